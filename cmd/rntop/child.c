/*
 * Running a program on this machine, nvidia-smi: found on PATH (or
 * named), spawned from an argv with posix_spawn (no shell), stdin
 * /dev/null, stdout and stderr on non-blocking pipes, LC_ALL=C so
 * decimals use '.'. The caller polls the pipes; a child that hangs is
 * stopped with SIGTERM, then SIGKILL, and never waited on for long: a
 * process stuck in the driver (D state) cannot be killed, and rntop
 * must not hang with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "core/alloc.h"
#include "core/time.h"

#include "core/banned.h"

extern char **environ;

#define RNTOP_STDERR_MAX	4096

static int
is_exe(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

int
rntop_find_exe(const char *name, char **path, struct rai_err *err)
{
	const char *dirs, *p, *colon;
	char *cand;

	if (strchr(name, '/') != NULL) {
		if (!is_exe(name))
			return rai_err_set(err, RAI_E_NOTFOUND,
			    "%s: not an executable file", name);
		*path = xstrdup(name);
		return 0;
	}
	dirs = getenv("PATH");
	if (dirs == NULL || *dirs == '\0')
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (p = dirs; ; p = colon + 1) {
		size_t n;

		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		cand = n ? xasprintf("%.*s/%s", (int)n, p, name) :
		    xasprintf("./%s", name);
		if (is_exe(cand)) {
			*path = cand;
			return 0;
		}
		free(cand);
		if (colon == NULL)
			break;
	}
	rai_err_set(err, RAI_E_NOTFOUND, "%s not found on PATH", name);
	rai_err_set_hint(err, "install the NVIDIA driver utilities, or name "
	    "the program with --nvidia-smi PATH");
	return -1;
}

/* environ with LC_ALL=C in place of any LC_ALL; the strings are shared. */
static char **
child_env(void)
{
	size_t n = 0, i, j = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7) != 0)
			env[j++] = environ[i];
	env[j++] = (char *)(uintptr_t)"LC_ALL=C";
	env[j] = NULL;
	return env;
}

static int
nonblock_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	return 0;
}

void
rntop_child_init(struct rntop_child *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->out_fd = c->err_fd = -1;
}

int
rntop_child_running(const struct rntop_child *c)
{
	return c->pid > 0 || c->out_fd != -1;
}

int
rntop_child_start(struct rntop_child *c, const char *path,
    char *const argv[], rntop_snap_cb cb, void *ud, struct rai_err *err)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, def;
	char **env;
	pid_t pid;
	int rc;

	rntop_child_init(c);
	rai_buf_init(&c->err, RNTOP_STDERR_MAX);
	rntop_gpustat_init(&c->ps, cb, ud);
	if (pipe(out) == -1 || pipe(errp) == -1) {
		rc = errno;
		goto fail_pipes;
	}
	if (nonblock_cloexec(out[0]) == -1 || nonblock_cloexec(errp[0]) == -1 ||
	    fcntl(out[1], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(errp[1], F_SETFD, FD_CLOEXEC) == -1) {
		rc = errno;
		goto fail_pipes;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	posix_spawnattr_init(&attr);
	/* rntop ignores SIGPIPE; the child must die of it, like in a shell */
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
	env = child_env();
	rc = posix_spawn(&pid, path, &fa, &attr, argv, env);
	free(env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(errp[1]);
	if (rc != 0) {
		close(out[0]);
		close(errp[0]);
		return rai_err_errno(err, rc, "cannot run %s", path);
	}
	c->pid = pid;
	c->out_fd = out[0];
	c->err_fd = errp[0];
	c->started = c->last_out = rai_now_ms();
	return 0;

fail_pipes:
	if (out[0] != -1) {
		close(out[0]);
		close(out[1]);
	}
	if (errp[0] != -1) {
		close(errp[0]);
		close(errp[1]);
	}
	return rai_err_errno(err, rc, "cannot make a pipe");
}

int
rntop_child_read(struct rntop_child *c, int fd)
{
	char buf[16384];
	ssize_t n;
	int rounds;

	/* a few reads at most, so one chatty child cannot starve the loop */
	for (rounds = 0; rounds < 16; rounds++) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			if (fd == c->out_fd) {
				c->last_out = rai_now_ms();
				rntop_gpustat_feed(&c->ps, buf, (size_t)n);
			} else if (c->err.len < RNTOP_STDERR_MAX) {
				size_t room = RNTOP_STDERR_MAX - c->err.len;

				rai_buf_add(&c->err, buf,
				    (size_t)n < room ? (size_t)n : room);
			}
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* EOF or an error: this pipe is done */
		close(fd);
		if (fd == c->out_fd) {
			c->out_fd = -1;
			c->last_out = rai_now_ms();	/* when it ended */
			rntop_gpustat_finish(&c->ps);
			return 1;
		}
		c->err_fd = -1;
		return 0;
	}
	return 0;
}

int
rntop_child_reap(struct rntop_child *c)
{
	pid_t r;

	if (c->pid <= 0)
		return 1;
	do {
		r = waitpid(c->pid, &c->status, WNOHANG);
	} while (r == -1 && errno == EINTR);
	if (r == c->pid || (r == -1 && errno == ECHILD)) {
		c->reaped = r == c->pid;
		c->pid = -1;
		return 1;
	}
	return 0;
}

/* Waits up to ms for the child to go. */
static int
reap_within(struct rntop_child *c, int ms)
{
	int i;

	for (i = 0; i <= ms / 10; i++) {
		if (rntop_child_reap(c))
			return 1;
		rai_sleep_ms(10);
	}
	return 0;
}

void
rntop_child_stop(struct rntop_child *c)
{
	if (c->out_fd != -1) {
		close(c->out_fd);
		c->out_fd = -1;
	}
	if (c->err_fd != -1) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (c->pid <= 0 || rntop_child_reap(c))
		return;
	kill(c->pid, SIGTERM);
	if (reap_within(c, 500))
		return;
	kill(c->pid, SIGKILL);
	if (reap_within(c, 500))
		return;
	/* stuck in the kernel: give up on it rather than hang */
	c->pid = -1;
}

void
rntop_child_release(struct rntop_child *c)
{
	rntop_child_stop(c);
	rntop_gpustat_release(&c->ps);
	rai_buf_release(&c->err);
}

/* The first line of s (up to 200 bytes), sanitised; caller frees. */
static char *
first_line(const char *s)
{
	size_t n = strcspn(s, "\r\n");
	char *line, *p;

	if (n > 200)
		n = 200;
	line = xstrndup(s, n);
	for (p = line; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	return line;
}

char *
rntop_child_said(const struct rntop_child *c)
{
	if (c->ps.last_noise[0] != '\0')
		return xstrdup(c->ps.last_noise);
	if (c->err.len > 0)
		return first_line(rai_buf_str(&c->err));
	return NULL;
}

char *
rntop_child_failure(const struct rntop_child *c)
{
	char how[64];
	char *what, *msg;

	if (!c->reaped)
		snprintf(how, sizeof(how), "nvidia-smi stopped");
	else if (WIFEXITED(c->status))
		snprintf(how, sizeof(how), "nvidia-smi exited with status %d",
		    WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		snprintf(how, sizeof(how), "nvidia-smi was killed by signal "
		    "%d", WTERMSIG(c->status));
	else
		snprintf(how, sizeof(how), "nvidia-smi stopped");
	/* nvidia-smi prints its errors on stdout: they are noise lines */
	if ((what = rntop_child_said(c)) == NULL)
		what = xstrdup(c->reaped && WIFEXITED(c->status) &&
		    WEXITSTATUS(c->status) == 0 ? "no GPUs listed" : "");
	msg = what[0] ? xasprintf("%s: %s", how, what) : xstrdup(how);
	free(what);
	return msg;
}
