/*
 * kube_exec_path: the exec and attach request paths, every word of the
 * command escaped on its own, the stream flags as kubectl sends them
 * (stderr is off with a tty: the terminal carries both streams).
 */
#include <stdlib.h>

#include "kube/exec.h"

#include "harness.h"

TEST(exec_path_escapes_each_word)
{
	char a0[] = "sh", a1[] = "-c", a2[] = "echo a&b=c; exit 7";
	char *const argv[] = { a0, a1, a2, NULL };
	char *p = kube_exec_path("runai-team-a", "job-0 x", "main", argv, 1, 0);

	T_STR_EQ(p, "/api/v1/namespaces/runai-team-a/pods/job-0%20x/exec"
	    "?container=main&command=sh&command=-c"
	    "&command=echo%20a%26b%3Dc%3B%20exit%207"
	    "&stdin=true&stdout=true&stderr=true&tty=false");
	free(p);
}

TEST(exec_path_with_tty_has_no_stderr)
{
	char a0[] = "/bin/bash";
	char *const argv[] = { a0, NULL };
	char *p = kube_exec_path("ns", "pod", NULL, argv, 1, 1);

	T_STR_EQ(p, "/api/v1/namespaces/ns/pods/pod/exec?command=%2Fbin%2Fbash"
	    "&stdin=true&stdout=true&stderr=false&tty=true");
	free(p);
}

TEST(attach_path_has_no_command)
{
	char *p = kube_exec_path("ns", "pod", "c", NULL, 0, 0);

	T_STR_EQ(p, "/api/v1/namespaces/ns/pods/pod/attach?container=c"
	    "&stdin=false&stdout=true&stderr=true&tty=false");
	free(p);
}

int
main(void)
{
	RUN(exec_path_escapes_each_word);
	RUN(exec_path_with_tty_has_no_stderr);
	RUN(attach_path_has_no_command);
	return t_done();
}
