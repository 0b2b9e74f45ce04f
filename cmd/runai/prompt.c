/*
 * The terminal and stdin input the login flows share (login.c for
 * Kubernetes mode's OIDC login, login_cp.c for a control plane's):
 * a secret line read with a time limit, and the password and user name
 * prompts, echo off for the password and back on whatever happens.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/time.h"
#include "runai.h"

#include "core/banned.h"

#define SECRET_LINE_MAX		4096

static struct termios saved_tio;
static volatile sig_atomic_t tio_fd = -1;

/* Echo comes back even when the user interrupts the password prompt. */
static void
restore_echo_and_die(int sig)
{
	if (tio_fd != -1)
		tcsetattr(tio_fd, TCSAFLUSH, &saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads one line from fd into a new string (without the newline). */
int
runai_read_secret_line(int fd, long timeout_ms, char **out,
    struct rai_err *err)
{
	char *buf = xmalloc(SECRET_LINE_MAX);
	long long deadline = rai_now_ms() + timeout_ms;
	struct pollfd p;
	size_t len = 0;
	ssize_t n;
	char c;

	for (;;) {
		if (rai_now_ms() >= deadline) {
			rai_free_secret_mem(buf, SECRET_LINE_MAX);
			return rai_err_set(err, RAI_E_IO, "no input within %ld "
			    "s", timeout_ms / 1000);
		}
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, &c, 1);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0 || c == '\n')
			break;
		if (len + 1 >= SECRET_LINE_MAX) {
			rai_free_secret_mem(buf, SECRET_LINE_MAX);
			return rai_err_set(err, RAI_E_USAGE, "the input line is "
			    "longer than %d bytes", SECRET_LINE_MAX - 1);
		}
		buf[len++] = c;
	}
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	*out = xstrdup(buf);
	rai_free_secret_mem(buf, SECRET_LINE_MAX);
	return 0;
}

/* The prompt on the terminal; one that cannot be shown changes nothing. */
static void
say(int fd, const char *s)
{
	ssize_t n = write(fd, s, strlen(s));

	(void)n;
}

/* "Password: " on the terminal, echo off, restored on every exit path. */
int
runai_prompt_password(long timeout_ms, const char *flag, char **out,
    struct rai_err *err)
{
	struct sigaction sa, old_int, old_term;
	struct termios tio;
	int fd, rc;

	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return rai_err_set(err, RAI_E_USAGE, "no terminal to ask for the "
		    "password; use %s", flag);
	if (tcgetattr(fd, &saved_tio) == -1) {
		close(fd);
		return rai_err_errno(err, errno, "cannot read the terminal "
		    "settings");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_echo_and_die;
	sigemptyset(&sa.sa_mask);
	tio_fd = fd;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	tio = saved_tio;
	tio.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	tio.c_lflag |= ICANON;
	say(fd, "Password: ");
	tcsetattr(fd, TCSAFLUSH, &tio);
	rc = runai_read_secret_line(fd, timeout_ms, out, err);
	tcsetattr(fd, TCSAFLUSH, &saved_tio);
	tio_fd = -1;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	say(fd, "\n");
	close(fd);
	return rc;
}

/*
 * "Username: " on the terminal, echoed, with the terminal's own line
 * editing (erase, kill, word erase), as at ssh's or sudo's prompts.
 * readline gave arrow keys here, but every run of runai paid for
 * loading it (about 350 KB of memory) for this one prompt.
 */
int
runai_prompt_username(long timeout_ms, const char *flag, char **out,
    struct rai_err *err)
{
	int fd, rc;

	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return rai_err_set(err, RAI_E_USAGE, "no terminal to ask for the "
		    "user name; use %s", flag);
	say(fd, "Username: ");
	rc = runai_read_secret_line(fd, timeout_ms, out, err);
	close(fd);
	if (rc == 0 && **out == '\0') {
		free(*out);
		*out = NULL;
		return rai_err_set(err, RAI_E_USAGE, "no user name was entered");
	}
	return rc;
}
