/*
 * TEMPORARY (delete when merging): the CLI v2's noun groups holding only
 * their submit commands, so the v2 submit commands can be run and
 * tested before the real groups (workspace, training, training
 * standard, training FRAMEWORK and the root aliases pytorch, mpi, ...)
 * exist. main.c lists these under the same TEMPORARY mark.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const char *const tf_alias[] = { "tf", NULL };

#define TMP_GROUP(var, word, aliases_, what, ...) \
	const struct rai_cmd var = { \
		.name = (word), \
		.aliases = (aliases_), \
		.summary = what, \
		.subcmds = (const struct rai_cmd *const[]){ __VA_ARGS__, NULL }, \
	}

TMP_GROUP(runai_tmp_workspace, "workspace", NULL, "workspaces (submit)",
    &runai_cmd_workspace_submit);
static TMP_GROUP(tmp_standard, "standard", NULL,
    "standard trainings (submit)", &runai_cmd_training_submit);
static TMP_GROUP(tmp_pytorch, "pytorch", NULL,
    "PyTorch trainings (submit)", &runai_cmd_pytorch_submit);
static TMP_GROUP(tmp_tensorflow, "tensorflow",
    tf_alias, "TensorFlow trainings (submit)",
    &runai_cmd_tensorflow_submit);
static TMP_GROUP(tmp_mpi, "mpi", NULL, "MPI trainings (submit)",
    &runai_cmd_mpi_submit);
static TMP_GROUP(tmp_xgboost, "xgboost", NULL, "XGBoost trainings (submit)",
    &runai_cmd_xgboost_submit);
static TMP_GROUP(tmp_jax, "jax", NULL, "JAX trainings (submit)",
    &runai_cmd_jax_submit);
TMP_GROUP(runai_tmp_training, "training", NULL, "trainings (submit)",
    &runai_cmd_training_submit, &tmp_standard, &tmp_pytorch,
    &tmp_tensorflow, &tmp_mpi, &tmp_xgboost, &tmp_jax);
/* the root aliases: runai pytorch submit ... */
TMP_GROUP(runai_tmp_pytorch, "pytorch", NULL, "PyTorch trainings (submit)",
    &runai_cmd_pytorch_submit);
TMP_GROUP(runai_tmp_tensorflow, "tensorflow",
    tf_alias, "TensorFlow trainings (submit)",
    &runai_cmd_tensorflow_submit);
TMP_GROUP(runai_tmp_mpi, "mpi", NULL, "MPI trainings (submit)",
    &runai_cmd_mpi_submit);
TMP_GROUP(runai_tmp_xgboost, "xgboost", NULL, "XGBoost trainings (submit)",
    &runai_cmd_xgboost_submit);
TMP_GROUP(runai_tmp_jax, "jax", NULL, "JAX trainings (submit)",
    &runai_cmd_jax_submit);
