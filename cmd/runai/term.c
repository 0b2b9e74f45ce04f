/*
 * The local terminal during exec, bash and attach: raw mode that is put
 * back on every way out (normal return, error, a signal that stops us,
 * exit() from anywhere), and signals turned into readable pipes so one
 * poll() loop sees them: SIGWINCH (the window changed) and SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT (stop). SIGPIPE is ignored so a vanished
 * reader is an EPIPE we handle, not a death that leaves the tty raw.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "runai.h"

#include "core/banned.h"

static struct termios saved_mode;
static int raw_fd = -1;
static int winch_pipe[2] = { -1, -1 };
static int stop_pipe[2] = { -1, -1 };
static volatile sig_atomic_t stop_signal;
static struct sigaction saved_actions[6];
static const int handled[] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT,
    SIGPIPE };
static int atexit_done;

void
runai_term_restore(void)
{
	if (raw_fd < 0)
		return;
	(void)tcsetattr(raw_fd, TCSADRAIN, &saved_mode);
	raw_fd = -1;
}

int
runai_term_raw(int fd)
{
	struct termios raw;

	if (raw_fd >= 0 || tcgetattr(fd, &saved_mode) == -1)
		return -1;
	if (!atexit_done) {
		atexit(runai_term_restore);
		atexit_done = 1;
	}
	raw = saved_mode;
	cfmakeraw(&raw);
	/*
	 * TCSADRAIN, not TCSAFLUSH: keys typed while the session connects
	 * (a command typed the moment the prompt hint shows) wait in the
	 * input queue and reach the pod, as they do through kubectl.
	 */
	if (tcsetattr(fd, TCSADRAIN, &raw) == -1)
		return -1;
	raw_fd = fd;
	return 0;
}

int
runai_term_size(void *ud, unsigned *cols, unsigned *rows)
{
	struct winsize ws;
	int fd = *(const int *)ud;

	if (ioctl(fd, TIOCGWINSZ, &ws) == -1 || ws.ws_col == 0 ||
	    ws.ws_row == 0)
		return -1;
	*cols = ws.ws_col;
	*rows = ws.ws_row;
	return 0;
}

static void
poke(int fd)
{
	int saved = errno;
	ssize_t n;

	/* a full pipe already wakes the loop: nothing to do on failure */
	if (fd >= 0) {
		n = write(fd, "x", 1);
		(void)n;
	}
	errno = saved;
}

static void
on_signal(int sig)
{
	if (sig == SIGWINCH) {
		poke(winch_pipe[1]);
		return;
	}
	stop_signal = sig;
	poke(stop_pipe[1]);
}

static int
make_pipe(int p[2])
{
	int i;

	if (pipe(p) == -1)
		return -1;
	for (i = 0; i < 2; i++) {
		(void)fcntl(p[i], F_SETFL, fcntl(p[i], F_GETFL) | O_NONBLOCK);
		(void)fcntl(p[i], F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

static void
close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

int
runai_signals_catch(int *winch_fd, int *stop_fd)
{
	struct sigaction sa;
	size_t i;

	if (make_pipe(winch_pipe) == -1 || make_pipe(stop_pipe) == -1) {
		close_pipe(winch_pipe);
		return -1;
	}
	stop_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		sa.sa_handler = handled[i] == SIGPIPE ? SIG_IGN : on_signal;
		sigaction(handled[i], &sa, &saved_actions[i]);
	}
	*winch_fd = winch_pipe[0];
	*stop_fd = stop_pipe[0];
	return 0;
}

int
runai_signals_release(void)
{
	size_t i;

	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaction(handled[i], &saved_actions[i], NULL);
	close_pipe(winch_pipe);
	close_pipe(stop_pipe);
	return (int)stop_signal;
}
