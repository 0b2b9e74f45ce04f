/*
 * Which CLI v2 group a workload verb runs in, and which jobs belong to
 * it. The original grammar's job types ("Train", "Interactive",
 * "Interactive-Preemptible", "Inference", a framework's "PyTorch") are
 * what both sources fill in (lib/runai/job_view.c, cp_work.c); the v2
 * grammar names them Workspace, Training and Inference.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

/* The distributed frameworks by the word of their group. */
static const struct {
	const char	*word;
	const char	*title;
	const char	*noun;
	const char	*article_noun;
} frameworks[] = {
	{ "pytorch", "PyTorch", "PyTorch training", "a PyTorch training" },
	{ "tensorflow", "TensorFlow", "TensorFlow training",
	    "a TensorFlow training" },
	{ "tf", "TensorFlow", "TensorFlow training", "a TensorFlow training" },
	{ "mpi", "MPI", "MPI training", "an MPI training" },
	{ "xgboost", "XGBoost", "XGBoost training", "an XGBoost training" },
	{ "jax", "JAX", "JAX training", "a JAX training" },
};

static int
framework_index(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(frameworks) / sizeof(*frameworks); i++)
		if (strlen(frameworks[i].word) == len &&
		    strncmp(frameworks[i].word, word, len) == 0)
			return (int)i;
	return -1;
}

static int
word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncmp(s, word, len) == 0;
}

void
runai_wl_group_of(const struct rai_ctx *ctx, struct runai_wl_group *g)
{
	const char *path = ctx->cmdpath != NULL ? ctx->cmdpath : "";
	size_t len = strcspn(path, " ");
	const char *second = path[len] == ' ' ? path + len + 1 : "";
	size_t len2 = strcspn(second, " ");
	int i;

	memset(g, 0, sizeof(*g));
	g->noun = "workload";
	if (word_is(path, len, "workspace")) {
		g->kind = RUNAI_WL_WORKSPACE;
		g->noun = "workspace";
	} else if (word_is(path, len, "inference")) {
		g->kind = RUNAI_WL_INFERENCE;
		g->noun = "inference";
		if (word_is(second, len2, "distributed")) {
			g->kind = RUNAI_WL_DIST_INFERENCE;
			g->noun = "distributed inference";
		}
	} else if (word_is(path, len, "training")) {
		g->kind = RUNAI_WL_TRAINING;
		g->noun = "training";
		if (word_is(second, len2, "standard")) {
			g->kind = RUNAI_WL_STANDARD;
			g->noun = "training standard";
		} else if ((i = framework_index(second, len2)) >= 0) {
			g->kind = RUNAI_WL_FRAMEWORK;
			g->framework = frameworks[i].title;
			g->noun = frameworks[i].noun;
		}
	}
}

const char *
runai_wl_framework(const struct rai_job_view *v)
{
	size_t i;

	for (i = 0; i < sizeof(frameworks) / sizeof(*frameworks); i++)
		if (v->type != NULL && strcmp(v->type, frameworks[i].title) == 0)
			return frameworks[i].title;
	return "";
}

const char *
runai_wl_v2_type(const struct rai_job_view *v)
{
	const char *t = v->type != NULL ? v->type : "";

	if (strncmp(t, "Interactive", 11) == 0)
		return "Workspace";
	/* the CLI v2's types are three: a distributed one is an inference */
	if (strcmp(t, "Inference") == 0 ||
	    strcmp(t, "DistributedInference") == 0)
		return "Inference";
	if (*t == '\0' || strcmp(t, "Train") == 0 ||
	    strcmp(t, "Distributed") == 0 || *runai_wl_framework(v) != '\0')
		return "Training";
	/* a control plane's other type: a manifest's kind ("Job") */
	return t;
}

int
runai_wl_group_has(const struct runai_wl_group *g,
    const struct rai_job_view *v)
{
	const char *type = runai_wl_v2_type(v);

	switch (g->kind) {
	case RUNAI_WL_ANY:
		return 1;
	case RUNAI_WL_WORKSPACE:
		return strcmp(type, "Workspace") == 0;
	case RUNAI_WL_INFERENCE:
		return strcmp(type, "Inference") == 0;
	case RUNAI_WL_DIST_INFERENCE:
		return v->type != NULL &&
		    strcmp(v->type, "DistributedInference") == 0;
	case RUNAI_WL_TRAINING:
		return strcmp(type, "Training") == 0;
	case RUNAI_WL_STANDARD:
		return strcmp(type, "Training") == 0 &&
		    *runai_wl_framework(v) == '\0';
	case RUNAI_WL_FRAMEWORK:
		return strcasecmp(runai_wl_framework(v), g->framework) == 0;
	}
	return 0;
}

/* The group a job is in, by its first word ("workspace"). */
static const char *
group_word(const struct rai_job_view *v)
{
	const char *type = runai_wl_v2_type(v);

	return strcmp(type, "Workspace") == 0 ? "workspace" :
	    strcmp(type, "Inference") == 0 ? "inference" : "training";
}

static const char *
type_noun(const struct rai_job_view *v)
{
	const char *fw = runai_wl_framework(v);
	size_t i;

	for (i = 0; *fw != '\0' && i < sizeof(frameworks) /
	    sizeof(*frameworks); i++)
		if (strcmp(frameworks[i].title, fw) == 0)
			return frameworks[i].article_noun;
	if (v->type != NULL && strcmp(v->type, "DistributedInference") == 0)
		return "a distributed inference workload";
	return strcmp(group_word(v), "workspace") == 0 ? "a workspace" :
	    strcmp(group_word(v), "inference") == 0 ?
	    "an inference workload" : "a standard training";
}

static const char *
article(const char *noun)
{
	return strchr("aeiouAEIOUMX", noun[0]) != NULL ? "an" : "a";
}

int
runai_wl_group_check(struct rai_ctx *ctx, const struct runai_wl_group *g,
    const char *name, const struct rai_job_view *found, struct rai_err *err)
{
	if (found != NULL && runai_wl_group_has(g, found))
		return 0;
	if (found == NULL)
		return rai_err_set(err, RAI_E_NOTFOUND, "no %s named '%s' in "
		    "project %s", g->noun, name, RUNAI_WL(ctx)->project != NULL ?
		    RUNAI_WL(ctx)->project : "");
	rai_err_set(err, RAI_E_NOTFOUND, "'%s' is %s, not %s %s", name,
	    type_noun(found), article(g->noun), g->noun);
	rai_err_set_hint(err, "run 'runai %s ...' or 'runai workload ...'",
	    group_word(found));
	return -1;
}

int
runai_wl_group_find(struct rai_ctx *ctx, const struct runai_wl_group *g,
    const char *name, struct rai_err *err)
{
	struct rai_job_list jl = { 0 };
	const struct rai_job_view *found = NULL;
	size_t i;
	int rc;

	if (rai_wl_jobs(RUNAI_WL(ctx), 0, &jl, err) == -1)
		return -1;
	for (i = 0; i < jl.n && found == NULL; i++)
		if (strcmp(jl.v[i].name, name) == 0)
			found = &jl.v[i];
	rc = runai_wl_group_check(ctx, g, name, found, err);
	rai_job_list_release(&jl);
	return rc;
}

int
runai_wl_group_usable(struct rai_ctx *ctx, const struct runai_wl_group *g)
{
	struct rai_err *err = rai_ctx_err(ctx);

	/* the control plane makes its inference services; a cluster alone
	   has no such objects for runai to list */
	if ((g->kind != RUNAI_WL_INFERENCE &&
	    g->kind != RUNAI_WL_DIST_INFERENCE) ||
	    !(RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS))
		return 0;
	rai_err_set(err, RAI_E_CONFIG, "inference workloads are served by a "
	    "Run:ai control plane; this context is in Kubernetes mode");
	rai_err_set_hint(err, "run 'runai config control-plane <url>' to "
	    "use one");
	return -1;
}
