/*
 * What the control plane's commands print when they are done: a dry
 * run's request with where it would go, or the lines saying what was
 * made and how to look at it (inference submit and update, workload
 * submit).
 */
#ifndef RUNAI_REQUEST_PRINT_H
#define RUNAI_REQUEST_PRINT_H

#include <cjson/cJSON.h>

#include "runai.h"

/*
 * "# METHOD PATH" and the request as YAML; with json the request alone,
 * as JSON. 0, or -1 with the context's error set.
 */
int	 runai_print_request(struct rai_ctx *, const char *method,
	    const char *path, const cJSON *request, int json);

/*
 * "The NOUN 'NAME' has been DONE", then how to see its status: "runai
 * NOUN describe NAME -p PROJECT" (the resolved project).
 */
void	 runai_say_done(struct rai_ctx *, const char *noun, const char *name,
	    const char *done);

#endif
