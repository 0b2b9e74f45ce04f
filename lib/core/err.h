/*
 * rai_err: the one error value that travels from the transport up to main().
 *
 * Library functions return -1 (or NULL) and fill a caller-supplied
 * struct rai_err; only main() prints it. Callers branch on kind,
 * http_status and reason, never on message text.
 */
#ifndef RAI_ERR_H
#define RAI_ERR_H

#include <stddef.h>
#include <stdio.h>

enum rai_err_kind {
	RAI_OK = 0,
	RAI_E_USAGE,		/* bad command line (frontend only) */
	RAI_E_CONFIG,		/* kubeconfig or our config missing or invalid */
	RAI_E_AUTH,		/* no credentials, expired token, plugin failed */
	RAI_E_NET,		/* DNS, connect, TLS, timeout (curl_code set) */
	RAI_E_HTTP,		/* non-2xx answer (http_status, Status fields) */
	RAI_E_PROTO,		/* unexpected or oversized data from a peer */
	RAI_E_SSH,		/* libssh2 failure */
	RAI_E_IO,		/* local file or terminal I/O (sys_errno set) */
	RAI_E_NOTFOUND,		/* a named local thing does not exist */
	RAI_E_NOMEM,
	RAI_E_INTERNAL,		/* our bug; the message says so */
};

struct rai_err_cause {		/* Status.details.causes[] */
	char	*field;
	char	*reason;
	char	*message;
};

struct rai_err {
	enum rai_err_kind	 kind;
	int			 sys_errno;
	int			 curl_code;
	long			 http_status;	/* 0 = no HTTP answer */
	char			 reason[48];	/* Status.reason or "" */
	char			*message;	/* owned */
	char			*hint;		/* owned; what the user can do */
	char			*kind_name;	/* Status.details.kind */
	char			*obj_name;	/* Status.details.name */
	int			 retry_after;	/* seconds, 0 = none */
	struct rai_err_cause	*causes;
	size_t			 ncauses;
};
#define RAI_ERR_INIT { 0 }

/* All setters release what err held before and return -1. */
int	 rai_err_set(struct rai_err *, enum rai_err_kind, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 rai_err_errno(struct rai_err *, int errnum, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 rai_err_from_curl(struct rai_err *, int code, const char *url,
	    const char *errbuf);
/* Adds context in front of the message: "loading 'x': <old message>". */
void	 rai_err_prefix(struct rai_err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 rai_err_set_hint(struct rai_err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 rai_err_release(struct rai_err *);
/* Moves src into dst (dst released first); src is left empty. */
void	 rai_err_move(struct rai_err *dst, struct rai_err *src);
/* kubectl-style one line (plus a hint line), for main() only. */
void	 rai_err_print(const struct rai_err *, FILE *, const char *progname);
/* 0 ok, 1 failure, 2 usage. */
int	 rai_err_exit_code(const struct rai_err *);
const char *rai_err_kind_name(enum rai_err_kind);

/*
 * clang's analyzer (make lint) reads one file at a time, so it cannot
 * know that the setters above always return -1 and follows paths where
 * "return rai_err_set(...)" looks like a success. This tells it; a real
 * build never sees it (err.c defines RAI_ERR_IMPL for the definitions).
 */
#if defined(__clang_analyzer__) && !defined(RAI_ERR_IMPL)
#define rai_err_set(...)	({ rai_err_set(__VA_ARGS__); -1; })
#define rai_err_errno(...)	({ rai_err_errno(__VA_ARGS__); -1; })
#define rai_err_from_curl(...)	({ rai_err_from_curl(__VA_ARGS__); -1; })
#endif

#endif
