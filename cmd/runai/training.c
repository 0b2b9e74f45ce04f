/*
 * runai training [standard|pytorch|tensorflow|mpi|xgboost|jax] VERB:
 * the CLI v2 grammar's trainings. Plain "training" verbs see every
 * training (list shows the distributed ones too), "standard" the
 * single-pod ones (the original grammar's "runai submit"), and each
 * framework its distributed jobs (the original's "runai submit-dist
 * FRAMEWORK"). "runai pytorch ..." and the other root words stand for
 * "runai training pytorch ..." (framework_alias.c).
 */
#include <stddef.h>

#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

RUNAI_WL_VERBS(train, "a training", "trainings");
RUNAI_WL_VERBS(std, "a standard training", "standard trainings");
RUNAI_WL_VERBS(pt, "a PyTorch training", "PyTorch trainings");
RUNAI_WL_VERBS(tf, "a TensorFlow training", "TensorFlow trainings");
RUNAI_WL_VERBS(mpi, "an MPI training", "MPI trainings");
RUNAI_WL_VERBS(xgb, "an XGBoost training", "XGBoost trainings");
RUNAI_WL_VERBS(jax, "a JAX training", "JAX trainings");

#define FRAMEWORK_GROUP(P, WORD, ALIASES, SUMMARY, SUBMIT)		\
	static const struct rai_cmd *const P##_subcmds[] = {		\
		&(SUBMIT), RUNAI_WL_VERB_ENTRIES(P), NULL };		\
	static const struct rai_cmd runai_cmd_training_##P = {			\
		.name = (WORD), .aliases = (ALIASES),			\
		.summary = (SUMMARY),					\
		.subcmds = P##_subcmds }

FRAMEWORK_GROUP(std, "standard", NULL,
    "single-pod trainings (the original grammar's submit)",
    runai_cmd_training_submit);
FRAMEWORK_GROUP(pt, "pytorch", NULL, "PyTorch distributed trainings",
    runai_cmd_pytorch_submit);
static const char *const tf_aliases[] = { "tf", NULL };

FRAMEWORK_GROUP(tf, "tensorflow", tf_aliases,
    "TensorFlow distributed trainings", runai_cmd_tensorflow_submit);
FRAMEWORK_GROUP(mpi, "mpi", NULL, "MPI distributed trainings",
    runai_cmd_mpi_submit);
FRAMEWORK_GROUP(xgb, "xgboost", NULL, "XGBoost distributed trainings",
    runai_cmd_xgboost_submit);
FRAMEWORK_GROUP(jax, "jax", NULL, "JAX distributed trainings (control "
    "plane)", runai_cmd_jax_submit);

static const struct rai_cmd *const train_subcmds[] = {
	&runai_cmd_training_submit,
	RUNAI_WL_VERB_ENTRIES(train),
	&runai_cmd_training_std,
	&runai_cmd_training_pt,
	&runai_cmd_training_tf,
	&runai_cmd_training_mpi,
	&runai_cmd_training_xgb,
	&runai_cmd_training_jax,
	NULL
};

const struct rai_cmd runai_cmd_training = {
	.name = "training",
	.summary = "submit and manage trainings, standard and distributed",
	.subcmds = train_subcmds,
};
