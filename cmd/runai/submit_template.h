/*
 * runai submit's templates: the admin's template and --template NAME
 * applied to the flags the command line left unset (see
 * lib/runai/template.h for where they live and how they merge).
 */
#ifndef RUNAI_SUBMIT_TEMPLATE_H
#define RUNAI_SUBMIT_TEMPLATE_H

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "core/strv.h"

struct runai_templates {
	cJSON		*items;		/* the template ConfigMaps */
	cJSON		*values;	/* merged: option strings point here */
	struct rai_strv	 texts;		/* values turned into text */
	struct rai_strv	 extra_args;	/* used when no command is given */
};

/*
 * Reads the templates (a missing admin template, or no permission to
 * read it, is no error; a missing --template is) and sets every option
 * of submit's opts that the command line did not give. cli_env is the
 * command line's -e list: a template's variable of the same name is
 * dropped. A required field that nothing fills is an error.
 */
int	 runai_templates_apply(struct rai_ctx *, void *opts,
	    const struct rai_strv *cli_env, const char *name,
	    struct runai_templates *);
void	 runai_templates_release(struct runai_templates *);

#endif
