/*
 * adm_preflight: "runai-adm preflight", the pre-install diagnostics that
 * run from the admin host: API reads through kube_client, and host-side
 * probes of DNS, TLS, the registry and NFS, each with a time limit.
 *
 * Every check has a stable id ("k8s.version") and gives one result:
 * PASS, WARN, FAIL or SKIP, a message, and a remediation hint for WARN
 * and FAIL. The run always completes: a check that cannot do its work
 * says so in its own result. The report renders as a text table (colour
 * optional), JSON, or the support file.
 */
#ifndef ADM_PREFLIGHT_H
#define ADM_PREFLIGHT_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "kube/client.h"

enum adm_status {
	ADM_PASS = 0,
	ADM_WARN,
	ADM_FAIL,
	ADM_SKIP,
};
#define ADM_NSTATUS 4

/* "PASS", "WARN", "FAIL", "SKIP". */
const char *adm_status_name(enum adm_status);

struct adm_result {
	const char	*id;		/* static: the catalogue's */
	const char	*title;		/* static */
	enum adm_status	 status;
	char		*message;	/* owned, one line */
	char		*hint;		/* owned; NULL for none */
};

struct adm_report {
	struct adm_result	*v;
	size_t			 n;
	/*
	 * The API server did not answer: its checks could not run, so the
	 * report is incomplete and the exit status says preflight could not
	 * run (2), whatever the other checks found.
	 */
	int			 api_unreachable;
};

/* Appends a result; message from fmt, hint copied (may be NULL). */
void	 adm_report_add(struct adm_report *, const char *id, const char *title,
	    enum adm_status, const char *hint, const char *fmt, ...)
	    __attribute__((format(printf, 6, 7)));
void	 adm_report_release(struct adm_report *);
/* counts[status] for each status. */
void	 adm_report_counts(const struct adm_report *,
	    size_t counts[ADM_NSTATUS]);
/*
 * The exit status policy: 1 when some check FAILed (or, with strict,
 * WARNed), else 0. (2 is for usage and tool errors, decided by the
 * caller.)
 */
int	 adm_report_exit_code(const struct adm_report *, int strict);

/* What the report file and JSON say about the run. */
struct adm_report_meta {
	const char	*version;	/* runai-adm's */
	time_t		 when;
	const char	*context;	/* kubeconfig context, or NULL */
	const char	*server;	/* API server URL, or NULL */
	const char	*domain;	/* or NULL */
};

/*
 * The table: "CHECK  RESULT  MESSAGE", then the hints of WARN/FAIL rows
 * and a summary line. color wraps RESULT in ANSI colours; messages are
 * sanitised either way.
 */
void	 adm_report_text(const struct adm_report *, int color,
	    struct rai_buf *out);
/* The support file: a header from meta, then the table without colour. */
void	 adm_report_file(const struct adm_report *,
	    const struct adm_report_meta *, struct rai_buf *out);
/* {"checks":[{id,title,status,message,hint?}],"summary":{...},...}. */
cJSON	*adm_report_json(const struct adm_report *,
	    const struct adm_report_meta *, int strict);

/* ---- the support matrix (data, shipped with each release) ---- */

struct adm_matrix {
	int	k8s_min[2];		/* oldest supported major.minor */
	int	k8s_max[2];		/* newest tested major.minor */
	char	row[16];		/* the Run:ai row used, "" for the top */
};

/* The built-in matrix (contrib/preflight/support-matrix.yaml). */
extern const char adm_matrix_default[];
extern const char adm_matrix_default_name[];

/*
 * YAML: kubernetes: {minimum: "1.21", maximumTested: "1.32"}, the range
 * of the release this runai-adm installs; and runai: {"2.9": {minimum,
 * maximumTested}, ...}, rows for older releases, each valid from its
 * version until the next row. With runai_version ("2.9", "2.9.3"), the
 * row at or below it is used; a version below every row is an error.
 */
int	 adm_matrix_parse(const char *yaml, size_t len, const char *name,
	    const char *runai_version, struct adm_matrix *, struct rai_err *);
/* "v1.32.5-gke.1" -> 1, 32; -1 when it is no version. */
int	 adm_k8s_version_parse(const char *, int *major, int *minor);
/* FAIL below the minimum, WARN above the tested maximum, else PASS. */
enum adm_status adm_k8s_version_eval(const struct adm_matrix *, int major,
	    int minor);

/*
 * Whether id runs: it matches some --only pattern (all when none) and
 * no --skip pattern. Patterns are fnmatch(3) globs ("net.*").
 */
int	 adm_check_selected(const char *id, const struct rai_strv *only,
	    const struct rai_strv *skip);

/* ---- the catalogue's entries and a run's options (adm/checks.h) ---- */

struct adm_check_info {
	const char	*id;
	const char	*title;
	int		 needs_api;	/* ADM_API_* */
};
#define ADM_API_NONE		0	/* from this host only */
#define ADM_API_NEEDED		1	/* reads the Kubernetes API */
#define ADM_API_OPTIONAL	2	/* uses the API when it answers */

/* What a run of the catalogue is given. */
struct adm_pf_opts {
	const char		*domain;	/* may be NULL: DNS/TLS skip */
	const char		*cluster_domain;
	const char		*registry;	/* host[:port], no scheme */
	const char		*registry_secret; /* NULL: runai-reg-creds */
	int			 airgapped;
	const char		*nfs_server;	/* host[:port], [v6]:port */
	const char		*tls_cert;	/* files for net.tls.files */
	const char		*tls_key;
	const char		*ca_file;	/* TLS and registry trust */
	const char		*tls_endpoint;	/* host:port to dial for TLS */
	long			 timeout_ms;	/* each network probe */
	const struct adm_matrix	*matrix;
	const struct rai_strv	*only;
	const struct rai_strv	*skip;
	time_t			 now;
};

#endif
