/*
 * rntop_hosts: the pure parts of reaching many hosts over SSH, kept
 * apart from the engine (rntop_ssh) so they can be unit-tested and
 * fuzzed: "[user@]host[:port]" specs, hostfiles, "ssh -G" output (and
 * running it, argv only, with a timeout), known_hosts lines (markers,
 * hashed names, "[host]:port" patterns), SHA256 fingerprints as
 * OpenSSH prints them, the remote command line, and reconnect backoff.
 * The library never prints.
 */
#ifndef RNTOP_HOSTS_H
#define RNTOP_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

#define RNTOP_HOST_NAME_MAX	255
#define RNTOP_USER_MAX		64

/* One host as the user named it. */
struct rntop_target {
	char	*spec;		/* as typed: "alice@gpu1:2222" */
	char	*user;		/* NULL: from -l, ssh -G or the login name */
	char	*host;		/* "gpu1", an alias ssh -G may resolve */
	int	 port;		/* 0: from ssh -G or 22 */
};

struct rntop_targets {
	struct rntop_target	*v;
	size_t			 n;
};

/*
 * "[user@]host[:port]" ("[v6addr]:port" too). Host names are letters,
 * digits, '.', '-', '_' (never starting with '-', so one cannot become
 * an ssh option); users the same plus nothing else. Fills *t (owned;
 * rntop_target_release) on success.
 */
int	 rntop_target_parse(const char *spec, struct rntop_target *t,
	    struct rai_err *);
void	 rntop_target_release(struct rntop_target *);
int	 rntop_host_name_ok(const char *);
int	 rntop_user_name_ok(const char *);

/*
 * A hostfile: one host spec per line; '#' starts a comment; blank lines
 * are skipped; words after the spec are ignored (room for tags). A bad
 * line fails the whole file with "FILE:LINE: ..." in err. Appends to
 * *out.
 */
int	 rntop_hostfile_parse(const char *text, size_t len, const char *name,
	    struct rntop_targets *out, struct rai_err *);
void	 rntop_targets_push(struct rntop_targets *, struct rntop_target *take);
void	 rntop_targets_release(struct rntop_targets *);

/* Host key policy, OpenSSH's StrictHostKeyChecking. */
enum rntop_shk {
	RNTOP_SHK_UNSET = -1,
	RNTOP_SHK_YES = 0,	/* unknown and changed keys are refused */
	RNTOP_SHK_ACCEPT_NEW,	/* unknown keys are learnt, changed refused */
	RNTOP_SHK_NO,		/* anything goes (a warning is kept) */
};
/* "yes", "accept-new", "no" (and ssh -G's "ask", "true", "false", "off"). */
enum rntop_shk rntop_shk_parse(const char *);

/* What "ssh -G host" says, the parts rntop uses. */
struct rntop_sshg {
	char	*hostname;
	char	*user;
	int	 port;
	char	**identity;		/* identityfile, in order */
	size_t	 nidentity;
	char	**known_hosts;		/* userknownhostsfile words */
	size_t	 nknown_hosts;
	char	**global_known_hosts;	/* globalknownhostsfile words */
	size_t	 nglobal_known_hosts;
	int	 identities_only;
	enum rntop_shk strict;
	long	 connect_timeout;	/* seconds, 0: none */
	long	 server_alive_interval;	/* seconds, 0: off */
	int	 proxy;			/* a ProxyJump/ProxyCommand is set */
};

/*
 * Parses "keyword value" lines. "~/" in file names becomes home + "/".
 * Unknown keywords are ignored; a line without a value too.
 */
void	 rntop_sshg_parse(const char *text, size_t len, const char *home,
	    struct rntop_sshg *out);
void	 rntop_sshg_release(struct rntop_sshg *);

/*
 * Runs "ssh -G [-F config] [-l user] [-p port] -- host" from an argv
 * (posix_spawn, no shell), stdin /dev/null, for at most timeout_ms, and
 * parses its output. ssh is found on PATH unless ssh_path has a '/'.
 */
int	 rntop_sshg_run(const char *ssh_path, const char *config,
	    const struct rntop_target *, int timeout_ms, const char *home,
	    struct rntop_sshg *out, struct rai_err *);

/* The same in steps, so a caller can run many at once. */
struct rntop_sshg_job {
	int		 pid;
	int		 fd;		/* ssh's stdout, non-blocking; -1 at EOF */
	struct rai_buf	 out;
	double		 deadline;	/* monotonic ms */
	int		 timeout_ms;
	int		 timed_out;
};
int	 rntop_sshg_spawn(const char *ssh_path, const char *config,
	    const struct rntop_target *, int timeout_ms,
	    struct rntop_sshg_job *, struct rai_err *);
/* Reads what is ready; 1 when the output is complete (or timed out). */
int	 rntop_sshg_read(struct rntop_sshg_job *);
/* Reaps ssh (bounded) and parses; the job is released either way. */
int	 rntop_sshg_finish(struct rntop_sshg_job *, const char *host,
	    const char *home, struct rntop_sshg *out, struct rai_err *);

/* A known_hosts line, split (pointers into the line, not terminated). */
enum rntop_kh_kind {
	RNTOP_KH_SKIP,		/* blank, comment or malformed */
	RNTOP_KH_PLAIN,		/* hosts keytype key */
	RNTOP_KH_REVOKED,	/* @revoked hosts keytype key */
	RNTOP_KH_CA,		/* @cert-authority ... (not supported) */
};
struct rntop_kh_line {
	enum rntop_kh_kind kind;
	const char	*hosts;		/* "a,b,[c]:2222" or "|1|salt|hash" */
	size_t		 hosts_len;
	const char	*keytype;	/* "ssh-ed25519" */
	size_t		 keytype_len;
	const char	*key;		/* base64 */
	size_t		 key_len;
	const char	*entry;		/* from hosts to the end, for libssh2 */
	size_t		 entry_len;
};
void	 rntop_kh_split(const char *line, size_t len, struct rntop_kh_line *);
/*
 * Whether a host list ("pattern,pattern", with '*', '?', '!' negation
 * and "[host]:port"; or one hashed "|1|salt|hmac" name) names host at
 * port, as OpenSSH matches it: port 22 is the bare name, any other port
 * "[host]:port".
 */
int	 rntop_kh_hosts_match(const char *hosts, size_t len, const char *host,
	    int port);
/* A wildcard match of one pattern ('*' and '?') against a whole name. */
int	 rntop_glob_match(const char *pat, size_t plen, const char *s);

/*
 * The host key algorithms to offer first for a known key type, for
 * libssh2_session_method_pref ("ssh-rsa" becomes the rsa-sha2 family),
 * or NULL for a type rntop does not know.
 */
const char *rntop_hostkey_methods(const char *keytype, size_t len);

/* "SHA256:<base64 without '='>" of a 32-byte digest; out >= 52 bytes. */
void	 rntop_fp_sha256(const unsigned char digest[32], char *out,
	    size_t size);
/*
 * The nvidia-smi path is put into a remote shell command: only letters,
 * digits and "/._+-" are allowed, so it needs no quoting at all.
 */
int	 rntop_remote_path_ok(const char *);
/*
 * The remote command: LC_ALL=C, the query, and with loop_ms > 0 the
 * "-lms" loop under a watchdog that kills it when the channel's input
 * ends (the channel closed). Only fixed text, the checked path and a
 * number go in. Caller frees.
 */
char	*rntop_remote_command(const char *nvidia_smi, const char *query,
	    long loop_ms);
/*
 * The same with rntop's owner block (rntop/owner.h) on the same
 * channel: a shell function asks nvidia-smi for the compute apps, reads
 * each pid's cgroup and the driver version under ${RNTOP_PROC:-/proc}
 * (a test points it at a fixture tree), and prints the block with one
 * printf, so its lines come whole. One block beside the one-shot's
 * rows; beside the -lms stream, one at the start and then one for each
 * line rntop writes to the channel (a request), so the compute-apps
 * query runs only when rntop asks for it.
 */
char	*rntop_remote_command_owners(const char *nvidia_smi,
	    const char *query, long loop_ms);

/*
 * Reconnect delay with "full jitter": a uniform draw r in [0, 1) times
 * min(cap, base * 2^attempt).
 */
double	 rntop_backoff(unsigned attempt, double base, double cap, double r);

#endif
