/* The shared setup of the programs that talk to the cluster. */
#include <stdlib.h>

#include "cli/kube_setup.h"
#include "core/log.h"

#include "core/banned.h"

int
rai_kube_verbosity(const struct rai_kube_globals *g)
{
	const char *v;
	char *end;
	long n;

	if (g->verbosity != 0)
		return g->verbosity;
	v = getenv("RUNAI_VERBOSITY");
	if (v == NULL || *v == '\0')
		return 0;
	n = strtol(v, &end, 10);
	return (*end == '\0' && n >= 0 && n <= 10) ? (int)n : 0;
}

int
rai_kube_setup(struct kube_session *ks, const struct rai_kube_globals *g,
    unsigned flags, const char *user_agent, struct rai_err *err)
{
	struct kube_client_opts co = { 0 };

	rai_log_set_level(rai_kube_verbosity(g));
	if (!(flags & (RAI_CMD_NEED_CONFIG | RAI_CMD_NEED_CLIENT |
	    RAI_CMD_NEED_PROJECT)))
		return 0;
	if (kube_session_load(ks, g->kubeconfig, g->context, err) == -1)
		return -1;
	if (!(flags & (RAI_CMD_NEED_CLIENT | RAI_CMD_NEED_PROJECT)))
		return 0;
	co.request_timeout_ms = g->request_timeout * 1000;
	co.max_retries = -1;
	co.user_agent = user_agent;
	return kube_session_connect(ks, &co, err);
}
