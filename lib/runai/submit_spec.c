/*
 * runai submit's spec before anything is rendered from it: its unset
 * fields, the flag parsers (-v, --pvc, --port, -e, --gpu-memory), the
 * checks of the whole spec with the reference CLI's messages, and who
 * submits (the "user" annotation, --run-as-user's ids). submit.c renders
 * the objects from a spec these checks passed.
 */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/quantity.h"
#include "runai/git_sync.h"
#include "runai/submit_kv.h"
#include "runai/submit_spec.h"

#include "core/banned.h"

#define NAME_MAX_LEN	63

void
rai_submit_spec_init(struct rai_submit_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->job_index = -1;
	s->backoff_limit = -1;
	s->completions = -1;
	s->parallelism = -1;
	s->ttl_after_finish = -1;
	s->create_home_dir = RAI_UNSET;
	s->replicas = -1;
	s->termination_grace = -1;
	s->run_as_uid = -1;
	s->run_as_gid = -1;
}

const char *const rai_submit_mig_profiles[] = { "1g.5gb", "2g.10gb",
	"3g.20gb", "4g.20gb", "7g.40gb", NULL };

static int
is_mig_profile(const char *p)
{
	size_t i;

	for (i = 0; rai_submit_mig_profiles[i] != NULL; i++)
		if (strcmp(rai_submit_mig_profiles[i], p) == 0)
			return 1;
	return 0;
}

/* ---- small checks ---- */

/*
 * An RFC 1123 label (lowercase alphanumerics and '-', alphanumeric at
 * both ends, at most 63), or with first_alpha an RFC 1035 label, which
 * also starts with a letter (job and Service names).
 */
static int
is_dns_label(const char *s, int first_alpha)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > NAME_MAX_LEN || s[0] == '-' || s[n - 1] == '-' ||
	    (first_alpha && !islower((unsigned char)s[0])))
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* A label value: "" or alphanumerics with -_. inside, at most 63. */
static int
is_label_value(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0)
		return 1;
	if (n > NAME_MAX_LEN || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-_.", s[i]) == NULL)
			return 0;
	return 1;
}

/* A label key's name part: a non-empty label value. */
static int
is_label_name(const char *s)
{
	return *s != '\0' && is_label_value(s);
}

/* A key's prefix: dot-separated RFC 1123 labels, at most 253 in all. */
static int
is_dns_subdomain(const char *s, size_t n)
{
	size_t start = 0, end;
	char *part;
	int ok = n > 0 && n <= 253;

	while (ok && start <= n) {
		for (end = start; end < n && s[end] != '.'; end++)
			;
		part = xstrndup(s + start, end - start);
		ok = is_dns_label(part, 0);
		free(part);
		start = end + 1;
	}
	return ok;
}

/* Environment variable names as the API server takes them. */
static int
is_env_name(const char *s)
{
	size_t i;

	if (*s == '\0' || isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-._", s[i]) == NULL)
			return 0;
	return 1;
}

/* A non-negative Kubernetes quantity. */
static int
is_quantity(const char *s)
{
	double v;

	return rai_quantity_parse(s, &v) == 0 && v >= 0;
}

int
rai_submit_check_name(const char *name, struct rai_err *err)
{
	if (is_dns_label(name, 1))
		return 0;
	/* a name of good characters that is too long: say that, not them */
	if (strlen(name) > NAME_MAX_LEN && islower((unsigned char)name[0]) &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") ==
	    strlen(name) && name[strlen(name) - 1] != '-')
		return rai_err_set(err, RAI_E_USAGE, "Job name '%s' is %zu "
		    "characters long; a job name has at most %d", name,
		    strlen(name), NAME_MAX_LEN);
	return rai_err_set(err, RAI_E_USAGE, "Job names must consist of lower "
	    "case alphanumeric characters or '-' and start with an alphabetic "
	    "character (e.g. 'my-name',  or 'abc-123')");
}

/* ---- flag parsers ---- */

/* Splits s on ':' into at most max parts (copies); returns the count. */
static size_t
split_colons(const char *s, char **parts, size_t max)
{
	size_t n = 0;
	const char *c;

	for (;;) {
		c = strchr(s, ':');
		if (n == max) {
			/* one too many: count it, keep nothing */
			return max + 1;
		}
		parts[n++] = c ? xstrndup(s, (size_t)(c - s)) : xstrdup(s);
		if (c == NULL)
			return n;
		s = c + 1;
	}
}

static void
free_parts(char **parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(parts[i]);
}

/* "", "rw" -> 0, "ro" -> 1, else -1. */
static int
parse_access(const char *s)
{
	if (*s == '\0' || strcmp(s, "rw") == 0)
		return 0;
	return strcmp(s, "ro") == 0 ? 1 : -1;
}

int
rai_submit_parse_volume(const char *arg, struct rai_volume *v,
    struct rai_err *err)
{
	char *p[3] = { NULL, NULL, NULL };
	size_t n = split_colons(arg, p, 3);
	int ro = 0;

	memset(v, 0, sizeof(*v));
	if (n < 2 || n > 3 || *p[0] == '\0' || *p[1] == '\0' ||
	    (n == 3 && (ro = parse_access(p[2])) == -1)) {
		free_parts(p, n > 3 ? 3 : n);
		return rai_err_set(err, RAI_E_USAGE, "the -v parameter must be "
		    "given in the form of <host_path>:<container_path>:"
		    "<access_mode>[optional]: '%s'", arg);
	}
	v->host = p[0];
	v->path = p[1];
	v->read_only = ro;
	free(p[2]);
	return 0;
}

void
rai_volume_release(struct rai_volume *v)
{
	free(v->host);
	free(v->path);
	memset(v, 0, sizeof(*v));
}

/* The reference's test for "this part is a size": ^[+-]?[0-9.]+[eEinumkKMGTP]*[-+]?[0-9]*$ */
static int
looks_like_size(const char *s)
{
	size_t i = 0;

	if (s[i] == '+' || s[i] == '-')
		i++;
	if (!(isdigit((unsigned char)s[i]) || s[i] == '.'))
		return 0;
	while (isdigit((unsigned char)s[i]) || s[i] == '.')
		i++;
	while (s[i] != '\0' && strchr("eEinumkKMGTP", s[i]) != NULL)
		i++;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (isdigit((unsigned char)s[i]))
		i++;
	return s[i] == '\0';
}

static int
pvc_form_error(const char *arg, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_USAGE, "the --pvc parameter can be given "
	    "in either of the forms: [StorageClass]:Size:ContainerMountPath"
	    "[:ro] or ClaimName:ContainerMountPath[:ro]: '%s'", arg);
}

static int
pvc_dynamic(char **p, size_t n, struct rai_pvc *pvc, struct rai_err *err)
{
	const char *access = n == 4 ? p[3] : "";

	if (*p[1] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "persistent volume size "
		    "must be specified");
	if (!is_quantity(p[1]))
		return rai_err_set(err, RAI_E_USAGE, "persistent volume size "
		    "'%s' is not a quantity (for example 10Gi)", p[1]);
	if (*p[0] != '\0' && !is_dns_label(p[0], 0))
		return rai_err_set(err, RAI_E_USAGE, "storage class '%s' must "
		    "be a lowercase RFC 1123 label", p[0]);
	if (*p[2] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "container mount path must "
		    "be specified");
	if ((pvc->read_only = parse_access(access)) == -1)
		return rai_err_set(err, RAI_E_USAGE, "invalid readonly parameter "
		    "given: '%s'. this parameter may either be empty, ':ro' or "
		    "':rw'", access);
	pvc->dynamic = 1;
	pvc->storage_class = xstrdup(p[0]);
	pvc->size = xstrdup(p[1]);
	pvc->path = xstrdup(p[2]);
	return 0;
}

static int
pvc_existing(char **p, size_t n, struct rai_pvc *pvc, struct rai_err *err)
{
	const char *access = n == 3 ? p[2] : "";

	if (*p[0] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "persistent volume claim "
		    "name must be specified");
	if (*p[1] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "container mount path must "
		    "be specified");
	if ((pvc->read_only = parse_access(access)) == -1)
		return rai_err_set(err, RAI_E_USAGE, "invalid readonly parameter "
		    "given: '%s'. this parameter may either be empty, ':ro' or "
		    "':rw'", access);
	pvc->claim = xstrdup(p[0]);
	pvc->path = xstrdup(p[1]);
	return 0;
}

int
rai_submit_parse_pvc(const char *arg, struct rai_pvc *pvc,
    struct rai_err *err)
{
	char *p[4] = { NULL, NULL, NULL, NULL };
	size_t n = split_colons(arg, p, 4);
	int rc;

	memset(pvc, 0, sizeof(*pvc));
	if (n == 4 || (n == 3 && (*p[0] == '\0' || (looks_like_size(p[1]) &&
	    parse_access(p[2]) == -1))))
		rc = pvc_dynamic(p, n, pvc, err);
	else if (n == 2 || n == 3)
		rc = pvc_existing(p, n, pvc, err);
	else
		rc = pvc_form_error(arg, err);
	free_parts(p, n > 4 ? 4 : n);
	if (rc == -1)
		rai_pvc_release(pvc);
	return rc;
}

void
rai_pvc_release(struct rai_pvc *pvc)
{
	free(pvc->claim);
	free(pvc->storage_class);
	free(pvc->size);
	free(pvc->path);
	memset(pvc, 0, sizeof(*pvc));
}

static int
parse_port_number(const char *s, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < 1 || v > 65535)
		return -1;
	*out = v;
	return 0;
}

int
rai_submit_parse_port(const char *arg, struct rai_port *p,
    struct rai_err *err)
{
	const char *c = strchr(arg, ':');
	char *first;
	int rc;

	memset(p, 0, sizeof(*p));
	first = c ? xstrndup(arg, (size_t)(c - arg)) : xstrdup(arg);
	rc = parse_port_number(first, &p->port);
	free(first);
	if (rc == 0 && c != NULL) {
		p->pair = 1;
		rc = parse_port_number(c + 1, &p->target);
	} else {
		p->target = p->port;
	}
	if (rc == -1)
		return rai_err_set(err, RAI_E_USAGE, "--port '%s': give PORT or "
		    "SERVICE_PORT:CONTAINER_PORT, each from 1 to 65535", arg);
	return 0;
}

int
rai_submit_parse_env(const char *arg, char **buf, const char **name,
    const char **value, struct rai_err *err)
{
	char *eq;

	*buf = xstrdup(arg);
	eq = strchr(*buf, '=');
	if (eq == NULL || eq == *buf) {
		free(*buf);
		*buf = NULL;
		return rai_err_set(err, RAI_E_USAGE, "-e '%s': give NAME=VALUE",
		    arg);
	}
	*eq = '\0';
	if (!is_env_name(*buf)) {
		rai_err_set(err, RAI_E_USAGE, "-e '%s': '%s' is not a valid "
		    "environment variable name", arg, *buf);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*name = *buf;
	*value = eq + 1;
	return 0;
}

int
rai_submit_gpu_memory_mb(const char *arg, long *mb, struct rai_err *err)
{
	double bytes;

	if (rai_quantity_parse(arg, &bytes) == -1 || bytes < 0)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-memory '%s' is not a "
		    "quantity (for example 4G or 500M)", arg);
	if (bytes / 1e6 < RAI_SUBMIT_GPU_MEM_MIN)
		return rai_err_set(err, RAI_E_USAGE, "gpu memory must be greater "
		    "than 100Mb");
	if (bytes / 1e6 > 1e12)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-memory '%s' is more "
		    "than any GPU has", arg);
	*mb = (long)(bytes / 1e6);
	return 0;
}

/* ---- whole-spec checks ---- */

static int
check_quantity_flag(const char *flag, const char *v, struct rai_err *err)
{
	if (v == NULL || is_quantity(v))
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "--%s '%s' is not a quantity "
	    "(for example %s)", flag, v,
	    strstr(flag, "cpu") ? "2, 0.5 or 500m" : "4G or 512Mi");
}

static int
check_gpu(const struct rai_submit_spec *s, struct rai_err *err)
{
	if (!isfinite(s->gpu) || s->gpu < 0)
		return rai_err_set(err, RAI_E_USAGE, "-g/--gpu must be 0 or more");
	if (s->gpu > 1 && s->gpu != floor(s->gpu))
		return rai_err_set(err, RAI_E_USAGE, "-g/--gpu %g: a fraction "
		    "of a GPU must be below 1; more than one GPU must be a whole "
		    "number", s->gpu);
	if (s->gpu > 0 && s->gpu_memory != NULL)
		return rai_err_set(err, RAI_E_USAGE, "unexpected to accept both "
		    "gpu and gpu-memory flag. please use only one of them");
	if (s->mig_profile == NULL)
		return 0;
	if (s->gpu > 0)
		return rai_err_set(err, RAI_E_USAGE, "unexpected to accept both "
		    "gpu and mig flag. please use only one of them");
	if (s->gpu_memory != NULL)
		return rai_err_set(err, RAI_E_USAGE, "unexpected to accept both "
		    "gpu-memory and mig flag. please use only one of them");
	if (!is_mig_profile(s->mig_profile))
		return rai_err_set(err, RAI_E_USAGE, "unsupported mig device: "
		    "%s (expected 1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb or "
		    "7g.40gb)", s->mig_profile);
	return 0;
}

static int
check_resources(const struct rai_submit_spec *s, struct rai_err *err)
{
	long mb;

	if (check_gpu(s, err) == -1)
		return -1;
	if (s->gpu_memory != NULL &&
	    rai_submit_gpu_memory_mb(s->gpu_memory, &mb, err) == -1)
		return -1;
	return check_quantity_flag("cpu", s->cpu, err) == -1 ||
	    check_quantity_flag("cpu-limit", s->cpu_limit, err) == -1 ||
	    check_quantity_flag("memory", s->memory, err) == -1 ||
	    check_quantity_flag("memory-limit", s->memory_limit, err) == -1 ?
	    -1 : 0;
}

/* A Deployment runs until deleted: the Job fields mean nothing to it. */
static int
check_inference(const struct rai_submit_spec *s, struct rai_err *err)
{
	if (!s->inference)
		return s->replicas >= 0 ? rai_err_set(err, RAI_E_USAGE,
		    "--replicas is for --inference") : 0;
	if (s->interactive)
		return rai_err_set(err, RAI_E_USAGE, "The flags --inference and "
		    "--interactive cannot be used together");
	if (s->completions >= 0 || s->parallelism >= 0 ||
	    s->backoff_limit >= 0 || s->ttl_after_finish >= 0)
		return rai_err_set(err, RAI_E_USAGE, "--inference runs a "
		    "Deployment: --completions, --parallelism, --backoff-limit "
		    "and --ttl-after-finish do not apply to it");
	if (s->replicas == 0)
		return rai_err_set(err, RAI_E_USAGE, "--replicas must be 1 or "
		    "more");
	return 0;
}

static int
check_lifecycle(const struct rai_submit_spec *s, struct rai_err *err)
{
	if (check_inference(s, err) == -1)
		return -1;
	if (s->parallelism > 1 && s->elastic)
		return rai_err_set(err, RAI_E_USAGE, "elastic jobs can't run "
		    "with Parallelism");
	if (s->parallelism > 1 && s->interactive)
		return rai_err_set(err, RAI_E_USAGE, "interactive jobs can't run "
		    "with Parallelism");
	if (s->parallelism > 1 && s->completions < 0)
		return rai_err_set(err, RAI_E_USAGE, "if the parallelism flag is "
		    "set, you must also set the number of successful pod "
		    "completions (--completions)");
	if (s->interactive && s->completions > 1)
		return rai_err_set(err, RAI_E_USAGE, "interactive jobs run one "
		    "pod: --completions must be 1");
	if (s->interactive && s->backoff_limit > 0)
		return rai_err_set(err, RAI_E_USAGE, "interactive jobs are not "
		    "retried: --backoff-limit must be 0");
	if (s->completions == 0)
		return rai_err_set(err, RAI_E_USAGE, "--completions must be 1 "
		    "or more");
	if (s->parallelism == 0)
		return rai_err_set(err, RAI_E_USAGE, "--parallelism must be 1 "
		    "or more");
	return 0;
}

static int
check_container(const struct rai_submit_spec *s, struct rai_err *err)
{
	const char *p = s->image_pull_policy;

	if (s->image == NULL || *s->image == '\0')
		return rai_err_set(err, RAI_E_USAGE, "-i, --image must be set");
	if (p != NULL && strcmp(p, "Always") != 0 &&
	    strcmp(p, "IfNotPresent") != 0 && strcmp(p, "Never") != 0)
		return rai_err_set(err, RAI_E_USAGE, "image-pull-policy flag "
		    "should be set with one of the following values of: "
		    "\"Always\", \"IfNotPresent\" or \"Never\"");
	if (s->tty && !s->stdin_open)
		return rai_err_set(err, RAI_E_USAGE, "--stdin is required for "
		    "containers with -t/--tty=true");
	if (s->is_command && s->ncmd == 0)
		return rai_err_set(err, RAI_E_USAGE, "--command needs the command "
		    "after \"--\"");
	if (s->node_type != NULL && (*s->node_type == '\0' ||
	    !is_label_value(s->node_type)))
		return rai_err_set(err, RAI_E_USAGE, "--node-type '%s' is not a "
		    "valid label value", s->node_type);
	if (s->git_sync != NULL) {
		struct rai_git_sync g;

		if (rai_git_sync_parse_with(s->git_sync,
	    s->git_sync_password, &g, err) == -1)
			return -1;
		rai_git_sync_release(&g);
	}
	return 0;
}

static int
check_network(const struct rai_submit_spec *s, struct rai_err *err)
{
	const char *t = s->service_type;

	if (t == NULL)
		return 0;
	/* clusterip: a ClusterIP Service with no forwarding (the CLI v2's) */
	if (strcmp(t, "nodeport") != 0 && strcmp(t, "loadbalancer") != 0 &&
	    strcmp(t, "ingress") != 0 && strcmp(t, "portforward") != 0 &&
	    strcmp(t, "clusterip") != 0)
		return rai_err_set(err, RAI_E_USAGE, "--service-type must be "
		    "nodeport, loadbalancer, ingress or portforward, not '%s'",
		    t);
	if (s->ports.n == 0)
		return rai_err_set(err, RAI_E_USAGE, "Ports must be provided "
		    "when exposing a service.");
	if (strcmp(t, "ingress") == 0 && !s->interactive)
		return rai_err_set(err, RAI_E_USAGE, "--service-type ingress is "
		    "for interactive jobs: add --interactive, or use nodeport "
		    "or loadbalancer");
	return 0;
}

/* KEY=VALUE where KEY is a label key: [prefix/]name. */
static int
check_meta_pair(const char *flag, const char *pair, int label,
    struct rai_err *err)
{
	const char *eq = strchr(pair, '='), *slash;
	char *key;
	int ok;

	if (eq == NULL || eq == pair)
		return rai_err_set(err, RAI_E_USAGE, "--%s '%s': expected "
		    "key=value", flag, pair);
	key = xstrndup(pair, (size_t)(eq - pair));
	slash = strchr(key, '/');
	ok = slash == NULL ? is_label_name(key) :
	    (slash > key && is_dns_subdomain(key, (size_t)(slash - key)) &&
	    is_label_name(slash + 1));
	free(key);
	if (!ok)
		return rai_err_set(err, RAI_E_USAGE, "--%s '%s': the key must be "
		    "[prefix/]name, the name at most 63 letters, digits, '-', "
		    "'_' or '.'", flag, pair);
	if (label && !is_label_value(eq + 1))
		return rai_err_set(err, RAI_E_USAGE, "--%s '%s': a label value "
		    "is at most 63 letters, digits, '-', '_' or '.'", flag,
		    pair);
	return 0;
}

static int
check_meta(const struct rai_submit_spec *s, struct rai_err *err)
{
	size_t i;

	for (i = 0; i < s->pod_labels.n; i++)
		if (check_meta_pair("label", s->pod_labels.v[i], 1, err) == -1)
			return -1;
	for (i = 0; i < s->pod_annotations.n; i++)
		if (check_meta_pair("annotation", s->pod_annotations.v[i], 0,
		    err) == -1)
			return -1;
	return 0;
}

/* ---- what the CLI v2's flags add ---- */

static int
check_gpu_limits(const struct rai_submit_spec *s, struct rai_err *err)
{
	long req, lim;

	if (s->gpu_portion_limit != 0) {
		if (!(s->gpu > 0 && s->gpu < 1))
			return rai_err_set(err, RAI_E_USAGE, "--gpu-portion-limit "
			    "is for a portion of a GPU (--gpu-portion-request)");
		if (!(s->gpu_portion_limit >= s->gpu &&
		    s->gpu_portion_limit <= 1))
			return rai_err_set(err, RAI_E_USAGE, "--gpu-portion-limit "
			    "%g must be from the request (%g) to 1",
			    s->gpu_portion_limit, s->gpu);
	}
	if (s->gpu_memory_limit == NULL)
		return 0;
	if (s->gpu_memory == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-memory-limit is for "
		    "GPU memory asked for (--gpu-memory-request)");
	if (rai_submit_gpu_memory_mb(s->gpu_memory, &req, err) == -1 ||
	    rai_submit_gpu_memory_mb(s->gpu_memory_limit, &lim, err) == -1)
		return -1;
	if (lim < req)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-memory-limit %s is "
		    "less than the request %s", s->gpu_memory_limit,
		    s->gpu_memory);
	return 0;
}

/* Each value of a key=value flag, parsed once and thrown away. */
static int
check_kv_lists(const struct rai_submit_spec *s, struct rai_err *err)
{
	struct rai_kv kv;
	struct rai_toleration t;
	struct rai_nfs n;
	struct rai_named_volume v;
	struct rai_extended e;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < s->tolerations.n; i++)
		if ((rc = rai_parse_toleration(s->tolerations.v[i], &kv, &t,
		    err)) == 0)
			rai_kv_release(&kv);
	for (i = 0; rc == 0 && i < s->nfs.n; i++)
		if ((rc = rai_parse_nfs(s->nfs.v[i], &kv, &n, err)) == 0)
			rai_kv_release(&kv);
	for (i = 0; rc == 0 && i < s->extended_resources.n; i++)
		if ((rc = rai_parse_extended(s->extended_resources.v[i], &kv, &e,
		    err)) == 0)
			rai_kv_release(&kv);
	for (i = 0; rc == 0 && i < s->configmap_volumes.n; i++)
		if ((rc = rai_parse_named_volume(RAI_VOL_CONFIGMAP,
		    s->configmap_volumes.v[i], &kv, &v, err)) == 0)
			rai_kv_release(&kv);
	for (i = 0; rc == 0 && i < s->secret_volumes.n; i++)
		if ((rc = rai_parse_named_volume(RAI_VOL_SECRET,
		    s->secret_volumes.v[i], &kv, &v, err)) == 0)
			rai_kv_release(&kv);
	for (i = 0; rc == 0 && i < s->empty_dirs.n; i++)
		if ((rc = rai_parse_named_volume(RAI_VOL_EMPTYDIR,
		    s->empty_dirs.v[i], &kv, &v, err)) == 0)
			rai_kv_release(&kv);
	return rc;
}

/* The POSIX capabilities a container may be given (the API's list). */
static const char *const capabilities[] = { "AUDIT_CONTROL", "AUDIT_READ",
	"AUDIT_WRITE", "BLOCK_SUSPEND", "CHOWN", "DAC_OVERRIDE",
	"DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL",
	"LEASE", "LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD",
	"NET_ADMIN", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_RAW", "SETGID",
	"SETFCAP", "SETPCAP", "SETUID", "SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT",
	"SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO",
	"SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "SYSLOG", "WAKE_ALARM",
	NULL };

static int
is_capability(const char *c)
{
	size_t i;

	for (i = 0; capabilities[i] != NULL; i++)
		if (strcmp(capabilities[i], c) == 0)
			return 1;
	return 0;
}

static int
check_identity(const struct rai_submit_spec *s, struct rai_err *err)
{
	long groups[RAI_SUBMIT_MAX_GROUPS];
	size_t i, n;

	if ((s->run_as_uid >= 0 || s->run_as_gid >= 0 ||
	    s->supplemental_groups != NULL) && s->run_as_user)
		return rai_err_set(err, RAI_E_USAGE, "--run-as-user takes the ids "
		    "from your login; --run-as-uid, --run-as-gid and "
		    "--supplemental-groups give them: not both");
	if (s->supplemental_groups != NULL &&
	    rai_parse_groups(s->supplemental_groups, groups,
	    RAI_SUBMIT_MAX_GROUPS, &n, err) == -1)
		return -1;
	for (i = 0; i < s->capabilities.n; i++)
		if (!is_capability(s->capabilities.v[i]))
			return rai_err_set(err, RAI_E_USAGE, "--capability '%s' is "
			    "not a POSIX capability (e.g. NET_ADMIN, SYS_PTRACE)",
			    s->capabilities.v[i]);
	if (s->allow_privilege_escalation && s->prevent_privilege_escalation)
		return rai_err_set(err, RAI_E_USAGE, "privilege escalation "
		    "cannot be both allowed and prevented");
	return 0;
}

int
rai_submit_check_spec(const struct rai_submit_spec *s, struct rai_err *err)
{
	if (s->name == NULL || rai_submit_check_name(s->name, err) == -1)
		return s->name == NULL ? rai_err_set(err, RAI_E_INTERNAL,
		    "submit: no job name") : -1;
	return check_container(s, err) == -1 ||
	    check_meta(s, err) == -1 ||
	    check_resources(s, err) == -1 ||
	    check_gpu_limits(s, err) == -1 ||
	    check_kv_lists(s, err) == -1 ||
	    check_identity(s, err) == -1 ||
	    check_lifecycle(s, err) == -1 ||
	    check_network(s, err) == -1 ? -1 : 0;
}

/* ---- who submits ---- */

/* The "user" annotation: the email claim, else the local user's name. */
char *
rai_submit_default_user(const cJSON *claims)
{
	const char *email = rai_json_str(claims, "email");
	const struct passwd *pw;
	const char *env;

	if (email != NULL && *email != '\0')
		return xstrdup(email);
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name[0] != '\0')
		return xstrdup(pw->pw_name);
	env = getenv("USER");
	return env != NULL && *env != '\0' ? xstrdup(env) : NULL;
}

/* A uid/gid claim written as a number or a string of digits. */
static int
claim_id(const cJSON *claims, const char *key, long *out)
{
	const cJSON *v = rai_json_child(claims, key);
	char *end;

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	    v->valuedouble <= UINT32_MAX) {
		*out = (long)v->valuedouble;
		return 0;
	}
	if (cJSON_IsString(v) && *v->valuestring != '\0') {
		*out = strtol(v->valuestring, &end, 10);
		return *end == '\0' && *out >= 0 ? 0 : -1;
	}
	return -1;
}

/*
 * --run-as-user: the uid/gid claims of the id-token (the identity the
 * cluster knows), else this process's ids and groups.
 */
void
rai_submit_ids(struct rai_submit_spec *s, const cJSON *claims, long *groups,
    size_t max)
{
	gid_t g[RAI_SUBMIT_MAX_GROUPS];
	int i, n;

	if (claim_id(claims, "uid", &s->uid) == 0 &&
	    claim_id(claims, "gid", &s->gid) == 0) {
		s->ids_from_token = 1;
		return;
	}
	s->uid = (long)getuid();
	s->gid = (long)getgid();
	n = getgroups(RAI_SUBMIT_MAX_GROUPS, g);
	if (n > (int)max)
		n = (int)max;
	for (i = 0; i < n; i++)
		groups[i] = (long)g[i];
	s->groups = groups;
	s->ngroups = n > 0 ? (size_t)n : 0;
}
