/* Unit tests of the pure parts of job deletion and suspension. */
#include <stddef.h>

#include "core/err.h"
#include "kube/client.h"
#include "runai/workload.h"

#include "harness.h"

TEST(app_list_parses_reference_lines)
{
	struct rai_app_list l;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rai_app_list_parse("runaijob.run.ai/j1\n\n service/j1 \r\n"
	    "persistentvolumeclaim/pvc-j1-0\ningress.extensions/j1\n"
	    "widget.example.com/j1", &l, &err), 0);
	T_UINT_EQ(l.n, 5);
	T_STR_EQ(l.v[0].kind, "runaijob.run.ai");
	T_STR_EQ(l.v[0].name, "j1");
	T_INT_EQ(l.v[0].res == &KUBE_RES_RUNAIJOBS, 1);
	T_STR_EQ(l.v[1].kind, "service");
	T_STR_EQ(l.v[1].name, "j1");
	T_INT_EQ(l.v[1].res == &KUBE_RES_SERVICES, 1);
	T_STR_EQ(l.v[2].name, "pvc-j1-0");
	T_INT_EQ(l.v[2].res == &KUBE_RES_PVCS, 1);
	T_NOT_NULL(l.v[3].res);
	T_STR_EQ(l.v[3].res->plural, "ingresses");
	T_NULL(l.v[4].res);	/* unknown kinds are kept, unresolved */
	rai_app_list_release(&l);
	T_UINT_EQ(l.n, 0);

	T_INT_EQ(rai_app_list_parse("", &l, &err), 0);
	T_UINT_EQ(l.n, 0);
	rai_app_list_release(&l);
}

TEST(app_list_rejects_bad_lines)
{
	static const char *const bad[] = { "service", "/j1", "service/",
	    "a/b/c", "job.batch/j1\nnoslash", NULL };
	struct rai_app_list l;
	struct rai_err err = RAI_ERR_INIT;
	size_t i;

	for (i = 0; bad[i] != NULL; i++) {
		T_INT_EQ(rai_app_list_parse(bad[i], &l, &err), -1);
		T_INT_EQ(err.kind, RAI_E_PROTO);
		T_UINT_EQ(l.n, 0);
		rai_err_release(&err);
	}
}

TEST(app_kinds_map_to_resources)
{
	T_INT_EQ(rai_app_kind_res("job.batch") == &KUBE_RES_JOBS, 1);
	T_INT_EQ(rai_app_kind_res("deployment.apps") == &KUBE_RES_DEPLOYMENTS, 1);
	T_INT_EQ(rai_app_kind_res("statefulset.apps") ==
	    &KUBE_RES_STATEFULSETS, 1);
	T_STR_EQ(rai_app_kind_res("ingress.networking.k8s.io")->group,
	    "networking.k8s.io");
	T_NULL(rai_app_kind_res("Job"));
	T_NULL(rai_app_kind_res(""));
}

TEST(image_tags_compare)
{
	T_INT_EQ(rai_image_tag_at_least("gcr.io/x/job-controller:v0.1.8", 0, 1, 8), 1);
	T_INT_EQ(rai_image_tag_at_least("gcr.io/x/job-controller:v0.1.7", 0, 1, 8), 0);
	T_INT_EQ(rai_image_tag_at_least("jc:v0.0.99", 0, 1, 8), 0);
	T_INT_EQ(rai_image_tag_at_least("jc:0.2.0", 0, 1, 8), 1);
	T_INT_EQ(rai_image_tag_at_least("jc:v1.0.0", 0, 1, 8), 1);
	T_INT_EQ(rai_image_tag_at_least("jc:v0.1.10", 0, 1, 8), 1);
	/* Unknown versions are allowed, as in the reference. */
	T_INT_EQ(rai_image_tag_at_least("registry:5000/jc", 0, 1, 8), 1);
	T_INT_EQ(rai_image_tag_at_least("jc:latest", 0, 1, 8), 1);
	T_INT_EQ(rai_image_tag_at_least(NULL, 0, 1, 8), 1);
}

int
main(void)
{
	RUN(app_list_parses_reference_lines);
	RUN(app_list_rejects_bad_lines);
	RUN(app_kinds_map_to_resources);
	RUN(image_tags_compare);
	return t_done();
}
