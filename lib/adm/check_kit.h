/*
 * The preflight checks' shared state and helpers (check_kit.c): struct
 * pf, the run over the catalogue that every check is given, and the
 * helpers the groups of checks (check_k8s.c, check_nvidia.c,
 * check_runai.c, check_host.c) share. Callers include adm/checks.h.
 */
#ifndef ADM_CHECK_KIT_H
#define ADM_CHECK_KIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "adm/preflight.h"
#include "core/buf.h"
#include "core/err.h"
#include "kube/client.h"

#define MAX_NAMES	5

struct pf;
typedef void check_fn(struct pf *);

struct check {
	struct adm_check_info	 info;
	check_fn		*fn;
};

struct pf {
	struct kube_client		*kc;
	const struct adm_pf_opts	*o;
	struct adm_report		*r;
	const struct check		*cur;
	int				 api;	/* 0 unknown, 1 up, -1 down */
	int				 api_down_told;
	char				*version;	/* gitVersion */
	struct rai_err			 api_err;
	cJSON				*nodes;		/* NodeList */
	struct rai_err			 nodes_err;
	int				 nodes_tried;
};

/* Adds the current check's result: message from fmt, hint copied. */
void	 adm_pf_add(struct pf *, enum adm_status, const char *hint,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Run preflight as cluster-admin: the hint of a refused read. */
extern const char adm_pf_hint_admin[];
/* An API read failed: FAIL with what and why. */
void	 adm_pf_add_api_error(struct pf *, const char *what,
	    const struct rai_err *);

/* A comma list of at most MAX_NAMES, then "and N more". */
struct names {
	struct rai_buf	b;
	size_t		n;
};

void	 adm_pf_names_add(struct names *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* The list as text (valid until adm_pf_names_release). */
const char *adm_pf_names_str(struct names *);
void	 adm_pf_names_release(struct names *);

/* Whether API checks can run; adds the result that says why not. */
int	 adm_pf_api_ready(struct pf *);
/* The NodeList, read once; NULL with a result added. */
const cJSON *adm_pf_nodes(struct pf *);
const char *adm_pf_name_of(const cJSON *);
/* Whether the node's condition type is True. */
int	 adm_pf_cond_true(const cJSON *node, const char *type);
/* The node's allocatable nvidia.com/gpu. */
double	 adm_pf_node_gpus(const cJSON *node);
/* NVIDIA labels from GFD or NFD: the node says it has NVIDIA GPUs. */
int	 adm_pf_node_gpu_labelled(const cJSON *node);
int	 adm_pf_node_is_gpu(const cJSON *node);
/* 1 when the CRD exists, 0 when not, -1 on an error (result added). */
int	 adm_pf_crd_exists(struct pf *, const char *name);

#endif
