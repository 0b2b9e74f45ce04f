/*
 * libFuzzer target for the preflight support matrix (adm_matrix_parse;
 * an admin may pass their own file with --matrix), and for the version
 * strings it and the cluster give (adm_k8s_version_parse). The first
 * line of the input, when it starts with '@', is the Run:ai version
 * asked for ("@2.9.3"); the rest is the YAML. Besides the sanitizers'
 * checks: a parsed matrix has minimum <= maximumTested and a row name
 * that ends inside its field; the evaluation is PASS at the minimum,
 * FAIL below it and WARN above the maximum; a parsed version is not
 * negative; a failure has a message and leaves the output untouched.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adm/preflight.h"
#include "core/err.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
vless(int amaj, int amin, int bmaj, int bmin)
{
	return amaj < bmaj || (amaj == bmaj && amin < bmin);
}

static void
check_matrix(const struct adm_matrix *m)
{
	if (vless(m->k8s_max[0], m->k8s_max[1], m->k8s_min[0], m->k8s_min[1]))
		abort();
	if (memchr(m->row, '\0', sizeof(m->row)) == NULL)
		abort();
	if (adm_k8s_version_eval(m, m->k8s_min[0], m->k8s_min[1]) !=
	    ADM_PASS)
		abort();
	if (m->k8s_min[1] > 0 && adm_k8s_version_eval(m, m->k8s_min[0],
	    m->k8s_min[1] - 1) != ADM_FAIL)
		abort();
	if (m->k8s_max[1] < 1000000 && adm_k8s_version_eval(m,
	    m->k8s_max[0], m->k8s_max[1] + 1) != ADM_WARN)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nl;
	char version[64], *ver = NULL;
	struct adm_matrix m;
	struct rai_err err = RAI_ERR_INIT;
	int maj, min;

	if (size > 0 && text[0] == '@' &&
	    (nl = memchr(text, '\n', size)) != NULL &&
	    (size_t)(nl - text) < sizeof(version)) {
		memcpy(version, text + 1, (size_t)(nl - text) - 1);
		version[nl - text - 1] = '\0';
		ver = version;
		if (adm_k8s_version_parse(ver, &maj, &min) == 0 &&
		    (maj < 0 || min < 0))
			abort();
		size -= (size_t)(nl - text) + 1;
		text = nl + 1;
	}
	memset(&m, 0x5a, sizeof(m));
	if (adm_matrix_parse(text, size, "fuzz", ver, &m, &err) == 0) {
		check_matrix(&m);
	} else {
		if (err.message == NULL || err.message[0] == '\0')
			abort();
		if (m.k8s_min[0] != 0x5a5a5a5a || m.row[0] != 0x5a)
			abort();
	}
	rai_err_release(&err);
	return 0;
}
