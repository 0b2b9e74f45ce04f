/* runai auth: the parent of the Run:ai CLI v2's "auth get-token". */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const auth_subcmds[] = {
	&runai_cmd_auth_get_token,
	NULL
};

const struct rai_cmd runai_cmd_auth = {
	.name = "auth",
	.summary = "the login's token, for other programs",
	.synopsis = "get-token [-o plaintext|kubeconfig]",
	.description = "Hands the token of the current login to other "
	    "programs: 'auth get-token' prints it.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = auth_subcmds,
};
