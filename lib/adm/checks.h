/*
 * adm_checks: preflight's catalogue of checks and the run over it;
 * adm/preflight.h has the results, the matrix and the renderings.
 */
#ifndef ADM_CHECKS_H
#define ADM_CHECKS_H

#include <time.h>

#include "adm/preflight.h"
#include "core/strv.h"
#include "kube/client.h"

struct adm_check_info {
	const char	*id;
	const char	*title;
	int		 needs_api;	/* ADM_API_* */
};
#define ADM_API_NONE		0	/* from this host only */
#define ADM_API_NEEDED		1	/* reads the Kubernetes API */
#define ADM_API_OPTIONAL	2	/* uses the API when it answers */

/* The catalogue in run order; NULL past the end. */
const struct adm_check_info *adm_check_info(size_t i);
struct adm_pf_opts {
	const char		*domain;	/* may be NULL: DNS/TLS skip */
	const char		*cluster_domain;
	const char		*registry;	/* host[:port], no scheme */
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

/* Runs every selected check, in catalogue order, into report. */
void	 adm_preflight_run(struct kube_client *, const struct adm_pf_opts *,
	    struct adm_report *);

#endif
