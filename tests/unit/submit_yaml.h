/*
 * A submit spec's objects as --dry-run prints them (the ConfigMap, then
 * each object, as YAML documents), for golden tests of lib/runai/submit.c
 * and of what is built on it (lib/runai/dist.c).
 *
 * Include after harness.h.
 */
#ifndef SUBMIT_YAML_H
#define SUBMIT_YAML_H

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/yaml.h"
#include "runai/submit.h"

/* All objects of a spec as YAML documents, the way --dry-run prints them. */
static char *
t_submit_yaml(const struct rai_submit_spec *s, const char *base, long index)
{
	struct rai_submit_objs objs;
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf b = RAI_BUF_INIT;
	cJSON *cm;
	size_t i;

	if (rai_submit_render(s, &objs, &err) == -1) {
		printf("# render: %s\n", err.message);
		rai_err_release(&err);
		return strdup("");
	}
	cm = rai_submit_configmap(s, base, index, &objs);
	T_INT_EQ(rai_yaml_emit(cm, &b, &err), 0);
	cJSON_Delete(cm);
	for (i = 0; i < objs.n; i++) {
		rai_buf_addstr(&b, "---\n");
		T_INT_EQ(rai_yaml_emit(objs.v[i].obj, &b, &err), 0);
	}
	rai_submit_objs_release(&objs);
	return rai_buf_detach(&b, NULL);
}

#endif
