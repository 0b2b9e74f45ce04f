/*
 * rai_kube_setup: what runai and runai-adm (and rntop when it reads the
 * cluster) share before a command runs: the global options that pick
 * the kubeconfig, context, log level and request time limit, and the
 * setup that opens a kube_session as far as the command needs.
 */
#ifndef RAI_KUBE_SETUP_H
#define RAI_KUBE_SETUP_H

#include <stddef.h>

#include "cli/opt.h"
#include "core/err.h"
#include "kube/session.h"

struct rai_kube_globals {
	const char	*kubeconfig;
	const char	*context;
	int		 verbosity;
	long		 request_timeout;	/* seconds, 0 = default */
};

/*
 * The four option rows, for a program's global option table: gtype is
 * the program's globals struct, member its struct rai_kube_globals.
 */
/* NOLINTBEGIN(bugprone-macro-parentheses): member is a field path for
 * offsetof, which parentheses would break */
#define RAI_KUBE_GLOBAL_OPTS(gtype, member)				\
	{ .long_name = "kubeconfig", .type = RAI_OPT_STRING,		\
	  .offset = offsetof(gtype, member.kubeconfig), .argh = "<file>", \
	  .help = "kubeconfig file to use instead of $KUBECONFIG",	\
	  .comp = RAI_COMP_FILE },					\
	{ .long_name = "context", .type = RAI_OPT_STRING,		\
	  .offset = offsetof(gtype, member.context), .argh = "<name>",	\
	  .help = "kubeconfig context to use", .comp = RAI_COMP_CONTEXT }, \
	{ .short_name = 'v', .long_name = "verbosity",			\
	  .type = RAI_OPT_LEVEL,					\
	  .offset = offsetof(gtype, member.verbosity), .argh = "<level>", \
	  .help = "log level: -v notes, -v=6 requests, -v=8 bodies "	\
	      "(secrets redacted)" },					\
	{ .long_name = "request-timeout", .type = RAI_OPT_DURATION,	\
	  .offset = offsetof(gtype, member.request_timeout),		\
	  .argh = "<duration>",						\
	  .help = "time limit for each API request (default 60s)" }
/* NOLINTEND(bugprone-macro-parentheses) */

/* The log level: -v when given, else $RUNAI_VERBOSITY (0-10), else 0. */
int	rai_kube_verbosity(const struct rai_kube_globals *);
/*
 * Sets the log level, then opens ks as far as flags ask:
 * RAI_CMD_NEED_CONFIG loads the kubeconfig; RAI_CMD_NEED_CLIENT and
 * RAI_CMD_NEED_PROJECT also connect, with --request-timeout and the
 * program's user agent. Steps already taken are skipped.
 */
int	rai_kube_setup(struct kube_session *ks, const struct rai_kube_globals *,
	    unsigned flags, const char *user_agent, struct rai_err *);

#endif
