/*
 * A Prometheus instant-query client for "runai top": the server is the
 * kube-prometheus-stack Service in namespace "monitoring", reached through
 * the API server's service proxy so that no other address or credential
 * is needed. Only vector results are understood; that is all top asks for.
 */
#ifndef RAI_PROM_H
#define RAI_PROM_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

#define RAI_PROM_NS		"monitoring"
#define RAI_PROM_SELECTOR	"app=kube-prometheus-stack-prometheus"
#define RAI_PROM_PORT		9090

struct rai_prom_sample {
	const cJSON	*metric;	/* label object, borrowed from doc */
	double		 value;		/* NaN for "NaN" and unparsable */
};

struct rai_prom_vec {
	struct rai_prom_sample	*v;
	size_t			 n;
	cJSON			*doc;	/* owns what the samples point into */
};

/* The Service's name (caller frees); RAI_E_NOTFOUND when there is none. */
int	 rai_prom_find(struct kube_client *, char **svc, struct rai_err *);
/* Pure: an /api/v1/query answer -> samples; "status":"error" is an error. */
int	 rai_prom_parse(const char *body, size_t len, struct rai_prom_vec *,
	    struct rai_err *);
/* GET .../services/http:<svc>:9090/proxy/api/v1/query?query=..&time=.. */
int	 rai_prom_query(struct kube_client *, const char *svc,
	    const char *query, time_t at, struct rai_prom_vec *,
	    struct rai_err *);
/*
 * Each query in turn into vecs[i] (empty where it failed): 0 when all
 * answered, else -1 with the first failure in err.
 */
int	 rai_prom_query_all(struct kube_client *, const char *svc,
	    const char *const *queries, size_t n, time_t at,
	    struct rai_prom_vec *vecs, struct rai_err *);
void	 rai_prom_vec_release(struct rai_prom_vec *);

/* A label's value, or NULL. */
const char *rai_prom_label(const struct rai_prom_sample *, const char *);
/*
 * The first sample whose labels k1=v1 (and k2=v2 unless k2 is NULL), or
 * NULL.
 */
const struct rai_prom_sample *rai_prom_find_sample(
	    const struct rai_prom_vec *, const char *k1, const char *v1,
	    const char *k2, const char *v2);

/* "1.5 GiB (37.5%)": used bytes and its share of total ("-" if unknown). */
const char *rai_prom_fmt_usage(double used, double total, char *, size_t);
/* "37.5%", or "-" for NaN. */
const char *rai_prom_fmt_pct(double, char *, size_t);

#endif
