/*
 * runai pytorch|tensorflow|mpi|xgboost|jax VERB: the CLI v2 grammar's
 * short words for "runai training FRAMEWORK VERB".
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

#define FRAMEWORK_ALIAS(NAME, WORD, ALIASES)				\
	const struct rai_cmd runai_cmd_alias_##NAME = {			\
		.name = (WORD), .aliases = (ALIASES),		\
		.summary = "the same as 'runai training " WORD "'",	\
		.forward = "training " WORD }

FRAMEWORK_ALIAS(pytorch, "pytorch", NULL);
static const char *const tf_aliases[] = { "tf", NULL };

FRAMEWORK_ALIAS(tensorflow, "tensorflow", tf_aliases);
FRAMEWORK_ALIAS(mpi, "mpi", NULL);
FRAMEWORK_ALIAS(xgboost, "xgboost", NULL);
FRAMEWORK_ALIAS(jax, "jax", NULL);
