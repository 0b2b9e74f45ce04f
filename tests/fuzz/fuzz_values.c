/*
 * libFuzzer target for "runai-adm generate-values": the values template
 * (--template lets an admin bring their own) and the --set overrides,
 * through adm_values_build, adm_values_yaml and adm_values_render.
 * Byte 0 picks: even, the rest is the template; odd, the rest is lines
 * of "KEY.PATH=VALUE" overrides on the built-in template. Besides the
 * sanitizers' checks: a failure has a message; a success's YAML reads
 * back (rai_yaml_parse, as helm would read it) into the very tree that
 * was built, and the rendered file is non-empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adm/values.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/yaml.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
set_lines(char *s, struct rai_strv *sets)
{
	char *line, *next;

	for (line = s; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		rai_strv_push(sets, line);
	}
}

static void
round_trip(const cJSON *tree)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *back = NULL;
	char *t1, *t2;

	adm_values_yaml(tree, &b);
	if (rai_yaml_parse(b.data != NULL ? b.data : "", b.len, "fuzz",
	    &back, &err) == -1)
		abort();
	/*
	 * compared as JSON text: cJSON_Compare looks each member up both
	 * ways at every level, which takes 2^depth on a deep key path
	 */
	t1 = cJSON_PrintUnformatted(tree);
	t2 = cJSON_PrintUnformatted(back);
	if (t1 == NULL || t2 == NULL || strcmp(t1, t2) != 0)
		abort();
	cJSON_free(t1);
	cJSON_free(t2);
	cJSON_Delete(back);
	rai_buf_release(&b);
	rai_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_strv sets = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf out = RAI_BUF_INIT;
	struct adm_values v;
	const char *tmpl = adm_values_template;
	size_t len = strlen(adm_values_template);
	cJSON *tree = NULL;
	char *s;

	if (size < 1)
		return 0;
	s = xmalloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1) {
		set_lines(s, &sets);
	} else {
		tmpl = (const char *)data + 1;
		len = size - 1;
	}
	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	v.tls_crt_b64 = "Q1JU";
	v.tls_key_b64 = "S0VZ";
	v.registry = "registry.example.com:5000";
	if (adm_values_build(tmpl, len, "fuzz", &v, &sets, &tree, &err) == 0) {
		round_trip(tree);
		if (adm_values_render(tmpl, len, "fuzz", &v, &sets, &out,
		    &err) == -1 || out.len == 0)
			abort();
	} else if (err.message == NULL || err.message[0] == '\0') {
		abort();
	}
	cJSON_Delete(tree);
	rai_buf_release(&out);
	rai_strv_release(&sets);
	rai_err_release(&err);
	free(s);
	return 0;
}
