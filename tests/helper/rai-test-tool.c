/*
 * rai-test-tool: a hidden binary through which shell tests drive library
 * internals directly (git's t/helper/test-tool). Never installed.
 *
 *   rai-test-tool kube get RES NAME            [-n NS]
 *   rai-test-tool kube list RES                [-n NS] [-l SEL] [--field-selector SEL]
 *                                              [--limit N] [--single-page] [-o json|names|count|pages]
 *        (-o pages lists page by page: "page N" per page, "restart"
 *        when the list starts over, then "total N")
 *   rai-test-tool kube watch RES               [-n NS] [-l SEL] [--resource-version RV]
 *                                              [--watch-timeout S] [--max-events N]
 *   rai-test-tool kube stream PATH             [--max-lines N]
 *   rai-test-tool kube create RES -f FILE      [-n NS] [--dry-run]
 *   rai-test-tool kube update RES -f FILE      [-n NS] [--dry-run]
 *   rai-test-tool kube patch RES NAME -p PATCH [--type merge|strategic|json] [-n NS] [--dry-run]
 *   rai-test-tool kube delete RES NAME         [-n NS] [--propagation P] [--dry-run]
 *   rai-test-tool kube raw METHOD PATH         [--data BODY] [--content-type T] [--idempotent]
 *   rai-test-tool kube version
 *   rai-test-tool kube has-group GROUP VERSION
 *   rai-test-tool backend version              [--url URL] [--token T] [--ca FILE]
 *
 * Connection: --kubeconfig F [--context C], or --server URL [--ca FILE]
 * [--cert FILE --key FILE] [--token T | --token-file F] [--insecure]
 * [--tls-server-name N] [--proxy URL]. Client: --max-response BYTES,
 * --retries N, --timeout DUR, --connect-timeout DUR, -v N.
 *
 * RES is a plural the library knows (pods, nodes, runaijobs, ...) or
 * [GROUP/]VERSION/PLURAL (namespaced unless --cluster-scoped).
 * Objects print as one line of JSON; failures print the error as runai
 * does and exit 1; usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "kube/client.h"
#include "kube/config.h"
#include "runai/backend.h"

#include "core/banned.h"

#define PROG		"rai-test-tool"
#define FILE_MAX	((size_t)16 << 20)

struct tool {
	/* connection */
	const char	*kubeconfig;
	const char	*context;
	const char	*server;
	const char	*ca_file;
	const char	*cert_file;
	const char	*key_file;
	const char	*token;
	const char	*token_file;
	const char	*tls_server_name;
	const char	*proxy;
	int		 insecure;
	/* client */
	struct kube_client_opts copts;
	const char	*url;		/* backend */
	/* verb */
	const char	*ns;
	const char	*selector;
	const char	*field_selector;
	const char	*resource_version;
	const char	*filename;
	const char	*patch;
	const char	*patch_type;
	const char	*propagation;
	const char	*output;
	const char	*data;
	const char	*content_type;
	long		 limit;
	long		 watch_timeout;
	long		 max_events;
	long		 max_lines;
	int		 single_page;
	int		 dry_run;
	int		 idempotent;
	int		 cluster_scoped;
	int		 verbosity;
	const char	*verb;
	/* positional arguments after the verb */
	char		**args;
	int		 nargs;
	/* state */
	struct kube_config *kcfg;
	struct kube_conn conn;
	struct kube_client *client;
	struct kube_res	 res;
	char		*res_buf;
	long		 count;
};

static void
log_sink(int level, const char *msg, void *ud)
{
	(void)level;
	(void)ud;
	fprintf(stderr, "%s\n", msg);
}

static int
usage(const char *why)
{
	fprintf(stderr, "%s: %s (see the comment at the top of "
	    "tests/helper/rai-test-tool.c)\n", PROG, why);
	return 2;
}

static int
read_file(const char *path, struct rai_buf *out, struct rai_err *err)
{
	char chunk[8192];
	ssize_t n;
	int fd;

	fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
	if (fd == -1)
		return rai_err_errno(err, errno, "cannot open '%s'", path);
	rai_buf_init(out, FILE_MAX);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (rai_buf_add(out, chunk, (size_t)n) == -1) {
			n = -1;
			errno = EFBIG;
			break;
		}
	if (n == -1)
		rai_err_errno(err, errno, "cannot read '%s'", path);
	if (fd != 0)
		close(fd);
	return n == -1 ? -1 : 0;
}

static int
read_blob(const char *path, struct kube_blob *b, struct rai_err *err)
{
	struct rai_buf buf;
	size_t len;

	if (path == NULL)
		return 0;
	if (read_file(path, &buf, err) == -1)
		return -1;
	b->data = (unsigned char *)rai_buf_detach(&buf, &len);
	b->len = len;
	return 0;
}

/* --server and friends: a kube_conn without any kubeconfig. */
static int
direct_conn(struct tool *t, struct rai_err *err)
{
	struct kube_conn *c = &t->conn;

	c->context = xstrdup("direct");
	c->namespace = xstrdup("default");
	c->server = xstrdup(t->server);
	if (t->tls_server_name != NULL)
		c->tls_server_name = xstrdup(t->tls_server_name);
	if (t->proxy != NULL)
		c->proxy_url = xstrdup(t->proxy);
	c->insecure = t->insecure;
	if (read_blob(t->ca_file, &c->ca, err) == -1 ||
	    read_blob(t->cert_file, &c->cert, err) == -1 ||
	    read_blob(t->key_file, &c->key, err) == -1)
		return -1;
	c->auth = c->cert.len > 0 ? KUBE_AUTH_CERT : KUBE_AUTH_NONE;
	if (t->token != NULL) {
		c->auth = KUBE_AUTH_TOKEN;
		c->token = xstrdup(t->token);
	} else if (t->token_file != NULL) {
		c->auth = KUBE_AUTH_TOKEN_FILE;
		c->token_file = xstrdup(t->token_file);
	}
	return 0;
}

static int
make_client(struct tool *t, struct rai_err *err)
{
	struct kube_config_opts ko;

	if (t->server != NULL) {
		if (direct_conn(t, err) == -1)
			return -1;
	} else {
		memset(&ko, 0, sizeof(ko));
		ko.kubeconfig = t->kubeconfig;
		ko.context = t->context;
		if (kube_config_load(&t->kcfg, &ko, err) == -1 ||
		    kube_config_resolve(t->kcfg, &t->conn, err) == -1)
			return -1;
	}
	return kube_client_new(&t->client, &t->conn, &t->copts, err);
}

static const struct kube_res *const known_res[] = {
	&KUBE_RES_NAMESPACES, &KUBE_RES_NODES, &KUBE_RES_PODS,
	&KUBE_RES_CONFIGMAPS, &KUBE_RES_SECRETS, &KUBE_RES_SERVICES,
	&KUBE_RES_EVENTS, &KUBE_RES_PVCS, &KUBE_RES_JOBS,
	&KUBE_RES_DEPLOYMENTS, &KUBE_RES_STATEFULSETS, &KUBE_RES_RUNAIJOBS,
	&KUBE_RES_PROJECTS, &KUBE_RES_SSAR, NULL,
};

/* RES: a known plural, or [GROUP/]VERSION/PLURAL. */
static int
parse_res(struct tool *t, const char *spec)
{
	char *s1, *s2;
	size_t i;

	for (i = 0; known_res[i] != NULL; i++)
		if (strcmp(known_res[i]->plural, spec) == 0) {
			t->res = *known_res[i];
			return 0;
		}
	t->res_buf = xstrdup(spec);
	if ((s1 = strchr(t->res_buf, '/')) == NULL)
		return -1;
	*s1++ = '\0';
	t->res.namespaced = !t->cluster_scoped;
	if ((s2 = strchr(s1, '/')) == NULL) {
		t->res.group = "";
		t->res.version = t->res_buf;
		t->res.plural = s1;
		return 0;
	}
	*s2++ = '\0';
	t->res.group = t->res_buf;
	t->res.version = s1;
	t->res.plural = s2;
	return 0;
}

static void
print_json(const cJSON *obj)
{
	char *s = rai_json_print(obj);

	printf("%s\n", s);
	free(s);
}

static int
print_list(const struct tool *t, const cJSON *list)
{
	const cJSON *item;
	const char *name;

	if (t->output == NULL || strcmp(t->output, "json") == 0)
		print_json(list);
	else if (strcmp(t->output, "count") == 0)
		printf("%d\n",
		    cJSON_GetArraySize(rai_json_array(list, "items")));
	else if (strcmp(t->output, "names") == 0) {
		cJSON_ArrayForEach(item, rai_json_array(list, "items")) {
			name = rai_json_str(item, "metadata.name");
			printf("%s\n", name ? name : "");
		}
	} else
		return -1;
	return 0;
}

static int
need_args(const struct tool *t, int n)
{
	return t->nargs == n ? 0 : -1;
}

static int
do_get(struct tool *t, struct rai_err *err)
{
	cJSON *obj = NULL;

	if (kube_get(t->client, &t->res, t->ns, t->args[1], &obj, err) == -1)
		return -1;
	print_json(obj);
	cJSON_Delete(obj);
	return 0;
}

static int
on_page(void *ud, cJSON *page, struct rai_err *err)
{
	long *total = ud;
	int n;

	(void)err;
	if (page == NULL) {
		printf("restart\n");
		*total = 0;
		return 0;
	}
	n = cJSON_GetArraySize(rai_json_array(page, "items"));
	printf("page %d\n", n);
	*total += n;
	return 0;
}

static int
do_list(struct tool *t, struct rai_err *err)
{
	struct kube_list_opts lo;
	cJSON *list = NULL;
	long total = 0;
	int rc;

	memset(&lo, 0, sizeof(lo));
	lo.label_selector = t->selector;
	lo.field_selector = t->field_selector;
	lo.limit = t->limit;
	lo.single_page = t->single_page;
	lo.resource_version = t->resource_version;
	if (t->output != NULL && strcmp(t->output, "pages") == 0) {
		if (kube_list_pages(t->client, &t->res, t->ns, &lo, on_page,
		    &total, err) == -1)
			return -1;
		printf("total %ld\n", total);
		return 0;
	}
	if (kube_list(t->client, &t->res, t->ns, &lo, &list, err) == -1)
		return -1;
	rc = print_list(t, list);
	cJSON_Delete(list);
	if (rc == -1)
		return rai_err_set(err, RAI_E_USAGE, "unknown -o '%s'",
		    t->output);
	return 0;
}

static int
on_event(void *ud, const char *type, const cJSON *obj)
{
	struct tool *t = ud;
	const char *name = rai_json_str(obj, "metadata.name");

	if (t->output != NULL && strcmp(t->output, "json") == 0) {
		printf("%s ", type);
		print_json(obj);
	} else
		printf("%s %s\n", type, name ? name : "");
	fflush(stdout);
	return t->max_events > 0 && ++t->count >= t->max_events;
}

static int
do_watch(struct tool *t, struct rai_err *err)
{
	struct kube_list_opts lo;

	memset(&lo, 0, sizeof(lo));
	lo.label_selector = t->selector;
	lo.field_selector = t->field_selector;
	lo.resource_version = t->resource_version;
	return kube_watch(t->client, &t->res, t->ns, &lo, t->watch_timeout,
	    on_event, t, err);
}

static int
on_line(void *ud, const char *line, size_t len)
{
	struct tool *t = ud;

	fwrite(line, 1, len, stdout);
	putchar('\n');
	fflush(stdout);
	return t->max_lines > 0 && ++t->count >= t->max_lines;
}

static int
do_stream(struct tool *t, struct rai_err *err)
{
	return kube_stream(t->client, t->args[0], on_line, t, err);
}

static int
load_object(const struct tool *t, cJSON **obj, struct rai_err *err)
{
	struct rai_buf buf;
	int rc;

	if (t->filename == NULL)
		return rai_err_set(err, RAI_E_USAGE, "-f FILE is required");
	if (read_file(t->filename, &buf, err) == -1)
		return -1;
	rc = rai_json_parse(buf.data, buf.len, t->filename, obj, err);
	rai_buf_release(&buf);
	return rc;
}

static int
do_write(struct tool *t, struct rai_err *err)
{
	const char *verb = t->verb;
	unsigned flags = t->dry_run ? KUBE_DRY_RUN : 0;
	cJSON *obj = NULL, *out = NULL;
	int rc;

	if (load_object(t, &obj, err) == -1)
		return -1;
	if (strcmp(verb, "create") == 0)
		rc = kube_create(t->client, &t->res, t->ns, obj, flags, &out,
		    err);
	else
		rc = kube_update(t->client, &t->res, t->ns, obj, flags, &out,
		    err);
	if (rc == 0)
		print_json(out);
	cJSON_Delete(obj);
	cJSON_Delete(out);
	return rc;
}

static int
do_patch(struct tool *t, struct rai_err *err)
{
	enum kube_patch_type type = KUBE_PATCH_MERGE;
	cJSON *out = NULL;

	if (t->patch == NULL)
		return rai_err_set(err, RAI_E_USAGE, "-p PATCH is required");
	if (t->patch_type == NULL || strcmp(t->patch_type, "merge") == 0)
		type = KUBE_PATCH_MERGE;
	else if (strcmp(t->patch_type, "strategic") == 0)
		type = KUBE_PATCH_STRATEGIC;
	else if (strcmp(t->patch_type, "json") == 0)
		type = KUBE_PATCH_JSON;
	else
		return rai_err_set(err, RAI_E_USAGE, "unknown --type '%s'",
		    t->patch_type);
	if (kube_patch(t->client, &t->res, t->ns, t->args[1], type, t->patch,
	    t->dry_run ? KUBE_DRY_RUN : 0, &out, err) == -1)
		return -1;
	print_json(out);
	cJSON_Delete(out);
	return 0;
}

static int
do_delete(struct tool *t, struct rai_err *err)
{
	cJSON *out = NULL;

	if (kube_delete(t->client, &t->res, t->ns, t->args[1], t->propagation,
	    t->dry_run ? KUBE_DRY_RUN : 0, &out, err) == -1)
		return -1;
	print_json(out);
	cJSON_Delete(out);
	return 0;
}

static int
do_raw(struct tool *t, struct rai_err *err)
{
	struct kube_req req;
	struct kube_resp resp = KUBE_RESP_INIT;
	int rc;

	memset(&req, 0, sizeof(req));
	req.method = t->args[0];
	req.path = t->args[1];
	req.body = t->data;
	req.body_len = t->data ? strlen(t->data) : 0;
	req.content_type = t->content_type ? t->content_type :
	    (t->data ? "application/json" : NULL);
	req.flags = t->idempotent ? KUBE_REQ_IDEMPOTENT : 0;
	rc = kube_client_do(t->client, &req, &resp, err);
	if (rc == 0) {
		printf("%ld\n", resp.status);
		fwrite(resp.body.data ? resp.body.data : "", 1, resp.body.len,
		    stdout);
		if (resp.body.len > 0 && resp.body.data[resp.body.len - 1] !=
		    '\n')
			putchar('\n');
	}
	kube_resp_release(&resp);
	return rc;
}

static int
do_version(struct tool *t, struct rai_err *err)
{
	char *v = NULL;

	if (kube_server_version(t->client, &v, err) == -1)
		return -1;
	printf("%s\n", v);
	free(v);
	return 0;
}

static int
do_has_group(struct tool *t, struct rai_err *err)
{
	int found = 0;

	if (kube_has_group_version(t->client, t->args[0], t->args[1], &found,
	    err) == -1)
		return -1;
	printf("%s\n", found ? "yes" : "no");
	return 0;
}

struct verb {
	const char	*name;
	int		 nargs;		/* positionals after the verb */
	int		 res;		/* the first one is a RES */
	int		(*fn)(struct tool *, struct rai_err *);
};

static const struct verb kube_verbs[] = {
	{ "get", 2, 1, do_get },
	{ "list", 1, 1, do_list },
	{ "watch", 1, 1, do_watch },
	{ "stream", 1, 0, do_stream },
	{ "create", 1, 1, do_write },
	{ "update", 1, 1, do_write },
	{ "patch", 2, 1, do_patch },
	{ "delete", 2, 1, do_delete },
	{ "raw", 2, 0, do_raw },
	{ "version", 0, 0, do_version },
	{ "has-group", 2, 0, do_has_group },
	{ NULL, 0, 0, NULL },
};

enum {
	O_KUBECONFIG = 256, O_CONTEXT, O_SERVER, O_CA, O_CERT, O_KEY, O_TOKEN,
	O_TOKEN_FILE, O_INSECURE, O_TLS_NAME, O_PROXY, O_MAX_RESPONSE,
	O_RETRIES, O_TIMEOUT, O_CONNECT_TIMEOUT, O_FIELD_SELECTOR, O_LIMIT,
	O_SINGLE_PAGE, O_RV, O_WATCH_TIMEOUT, O_MAX_EVENTS, O_MAX_LINES,
	O_TYPE, O_PROPAGATION, O_DRY_RUN, O_DATA, O_CONTENT_TYPE,
	O_IDEMPOTENT, O_CLUSTER_SCOPED, O_URL,
};

static const struct option long_opts[] = {
	{ "kubeconfig", required_argument, NULL, O_KUBECONFIG },
	{ "context", required_argument, NULL, O_CONTEXT },
	{ "server", required_argument, NULL, O_SERVER },
	{ "ca", required_argument, NULL, O_CA },
	{ "cert", required_argument, NULL, O_CERT },
	{ "key", required_argument, NULL, O_KEY },
	{ "token", required_argument, NULL, O_TOKEN },
	{ "token-file", required_argument, NULL, O_TOKEN_FILE },
	{ "insecure", no_argument, NULL, O_INSECURE },
	{ "tls-server-name", required_argument, NULL, O_TLS_NAME },
	{ "proxy", required_argument, NULL, O_PROXY },
	{ "max-response", required_argument, NULL, O_MAX_RESPONSE },
	{ "retries", required_argument, NULL, O_RETRIES },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "connect-timeout", required_argument, NULL, O_CONNECT_TIMEOUT },
	{ "namespace", required_argument, NULL, 'n' },
	{ "selector", required_argument, NULL, 'l' },
	{ "field-selector", required_argument, NULL, O_FIELD_SELECTOR },
	{ "limit", required_argument, NULL, O_LIMIT },
	{ "single-page", no_argument, NULL, O_SINGLE_PAGE },
	{ "resource-version", required_argument, NULL, O_RV },
	{ "watch-timeout", required_argument, NULL, O_WATCH_TIMEOUT },
	{ "max-events", required_argument, NULL, O_MAX_EVENTS },
	{ "max-lines", required_argument, NULL, O_MAX_LINES },
	{ "filename", required_argument, NULL, 'f' },
	{ "patch", required_argument, NULL, 'p' },
	{ "type", required_argument, NULL, O_TYPE },
	{ "propagation", required_argument, NULL, O_PROPAGATION },
	{ "dry-run", no_argument, NULL, O_DRY_RUN },
	{ "data", required_argument, NULL, O_DATA },
	{ "content-type", required_argument, NULL, O_CONTENT_TYPE },
	{ "idempotent", no_argument, NULL, O_IDEMPOTENT },
	{ "cluster-scoped", no_argument, NULL, O_CLUSTER_SCOPED },
	{ "output", required_argument, NULL, 'o' },
	{ "verbosity", required_argument, NULL, 'v' },
	{ "url", required_argument, NULL, O_URL },
	{ NULL, 0, NULL, 0 },
};

static int
num(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return (*end != '\0' || errno != 0 || *out < 0) ? -1 : 0;
}

static int
duration(const char *s, long *out)
{
	*out = rai_http_parse_duration_ms(s);
	return *out < 0 ? -1 : 0;
}

static int
set_opt(struct tool *t, int c, const char *arg)
{
	long n = 0;

	switch (c) {
	case O_KUBECONFIG: t->kubeconfig = arg; break;
	case O_CONTEXT: t->context = arg; break;
	case O_SERVER: t->server = arg; break;
	case O_CA: t->ca_file = arg; break;
	case O_CERT: t->cert_file = arg; break;
	case O_KEY: t->key_file = arg; break;
	case O_TOKEN: t->token = arg; break;
	case O_TOKEN_FILE: t->token_file = arg; break;
	case O_INSECURE: t->insecure = 1; break;
	case O_TLS_NAME: t->tls_server_name = arg; break;
	case O_PROXY: t->proxy = arg; break;
	case O_URL: t->url = arg; break;
	case 'n': t->ns = arg; break;
	case 'l': t->selector = arg; break;
	case O_FIELD_SELECTOR: t->field_selector = arg; break;
	case O_RV: t->resource_version = arg; break;
	case 'f': t->filename = arg; break;
	case 'p': t->patch = arg; break;
	case O_TYPE: t->patch_type = arg; break;
	case O_PROPAGATION: t->propagation = arg; break;
	case O_DATA: t->data = arg; break;
	case O_CONTENT_TYPE: t->content_type = arg; break;
	case 'o': t->output = arg; break;
	case O_SINGLE_PAGE: t->single_page = 1; break;
	case O_DRY_RUN: t->dry_run = 1; break;
	case O_IDEMPOTENT: t->idempotent = 1; break;
	case O_CLUSTER_SCOPED: t->cluster_scoped = 1; break;
	case O_MAX_RESPONSE:
		if (num(arg, &n) == -1)
			return -1;
		t->copts.max_response = (size_t)n;
		break;
	case O_RETRIES:
		if (num(arg, &n) == -1)
			return -1;
		t->copts.max_retries = (int)n;
		break;
	case O_TIMEOUT:
		return duration(arg, &t->copts.request_timeout_ms);
	case O_CONNECT_TIMEOUT:
		return duration(arg, &t->copts.connect_timeout_ms);
	case O_LIMIT: return num(arg, &t->limit);
	case O_WATCH_TIMEOUT: return num(arg, &t->watch_timeout);
	case O_MAX_EVENTS: return num(arg, &t->max_events);
	case O_MAX_LINES: return num(arg, &t->max_lines);
	case 'v':
		if (num(arg, &n) == -1)
			return -1;
		t->verbosity = (int)n;
		break;
	default:
		return -1;
	}
	return 0;
}

/* Options anywhere after the verb; positionals collected in order. */
static int
parse_args(struct tool *t, int argc, char **argv)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:l:f:p:o:v:", long_opts,
	    NULL)) != -1) {
		if (c == '?' || c == ':' || set_opt(t, c, optarg) == -1) {
			fprintf(stderr, "%s: bad option '%s'\n", PROG,
			    argv[optind - 1]);
			return -1;
		}
	}
	t->args = argv + optind;
	t->nargs = argc - optind;
	return 0;
}

static void
tool_release(struct tool *t)
{
	kube_client_free(t->client);
	kube_conn_release(&t->conn);
	kube_config_free(t->kcfg);
	free(t->res_buf);
}

static int
finish(struct rai_err *err, int rc)
{
	int code = 0;

	if (rc == -1) {
		rai_err_print(err, stderr, PROG);
		code = rai_err_exit_code(err);
	}
	rai_err_release(err);
	return code;
}

static int
cmd_kube(int argc, char **argv)
{
	struct tool t;
	struct rai_err err = RAI_ERR_INIT;
	const struct verb *v;
	int rc;

	memset(&t, 0, sizeof(t));
	t.copts.max_retries = -1;
	if (argc < 2)
		return usage("kube needs a verb");
	for (v = kube_verbs; v->name != NULL; v++)
		if (strcmp(v->name, argv[1]) == 0)
			break;
	if (v->name == NULL)
		return usage("unknown kube verb");
	if (parse_args(&t, argc - 1, argv + 1) == -1 ||
	    need_args(&t, v->nargs) == -1) {
		tool_release(&t);
		return usage("wrong arguments");
	}
	t.verb = v->name;
	rai_log_set_level(t.verbosity);
	if (v->res && parse_res(&t, t.args[0]) == -1) {
		tool_release(&t);
		return usage("RES is a known plural or [GROUP/]VERSION/PLURAL");
	}
	rc = make_client(&t, &err);
	if (rc == 0)
		rc = v->fn(&t, &err);
	fflush(stdout);
	tool_release(&t);
	return finish(&err, rc);
}

static int
cmd_backend(int argc, char **argv)
{
	struct tool t;
	struct backend_opts bo;
	struct backend *b = NULL;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_blob ca = { NULL, 0 };
	char *version = NULL;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	t.copts.max_retries = -1;
	if (argc < 2 || strcmp(argv[1], "version") != 0 ||
	    parse_args(&t, argc - 1, argv + 1) == -1 || t.nargs != 0)
		return usage("backend version [--url URL] [--token T] "
		    "[--ca F]");
	rai_log_set_level(t.verbosity);
	memset(&bo, 0, sizeof(bo));
	bo.url = t.url;
	bo.id_token = t.token;
	bo.insecure = t.insecure;
	bo.request_timeout_ms = t.copts.request_timeout_ms;
	bo.max_retries = t.copts.max_retries;
	bo.max_response = t.copts.max_response;
	if (read_blob(t.ca_file, &ca, &err) == -1)
		goto out;
	bo.ca = ca.data;
	bo.ca_len = ca.len;
	if (backend_new(&b, &bo, &err) == -1 ||
	    backend_version(b, &version, &err) == -1)
		goto out;
	printf("%s\n", version);
	rc = 0;
out:
	free(version);
	free(ca.data);
	backend_free(b);
	return finish(&err, rc);
}

int
main(int argc, char **argv)
{
	int rc;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "%s: cannot initialise libcurl\n", PROG);
		return 1;
	}
	rai_log_set_sink(log_sink, NULL);
	if (argc >= 2 && strcmp(argv[1], "kube") == 0)
		rc = cmd_kube(argc - 1, argv + 1);
	else if (argc >= 2 && strcmp(argv[1], "backend") == 0)
		rc = cmd_backend(argc - 1, argv + 1);
	else
		rc = usage("expected 'kube' or 'backend'");
	curl_global_cleanup();
	return rc;
}
