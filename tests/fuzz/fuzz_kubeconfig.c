/*
 * libFuzzer target for kubeconfig files: the input is loaded as a
 * kubeconfig (kube_config_load_buffer), every context is listed and
 * looked up by name, and the selected one is resolved into connection
 * parameters, as each command does on start-up. Besides the
 * sanitizers' checks: a context listed must be found again by its name,
 * and a failure must come with a message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "kube/config.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
walk_contexts(const struct kube_config *cfg)
{
	struct kube_context_info ci, again;
	size_t i, n = kube_config_ncontexts(cfg);

	for (i = 0; i < n; i++) {
		if (kube_config_context(cfg, i, &ci) == -1)
			continue;
		if (ci.name == NULL)
			abort();
		if (kube_config_find_context(cfg, ci.name, &again) == -1)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_config *cfg = NULL;
	struct kube_conn conn;
	struct rai_err err = RAI_ERR_INIT;

	if (kube_config_load_buffer(&cfg, (const char *)data, size,
	    "fuzz.yaml", &err) == -1) {
		if (err.message == NULL || err.message[0] == '\0')
			abort();
		rai_err_release(&err);
		return 0;
	}
	walk_contexts(cfg);
	memset(&conn, 0, sizeof(conn));
	if (kube_config_resolve(cfg, &conn, &err) == 0)
		kube_conn_release(&conn);
	else if (err.message == NULL || err.message[0] == '\0')
		abort();
	rai_err_release(&err);
	kube_config_free(cfg);
	return 0;
}
