/*
 * Unit tests of lib/runai/submit.c: the flag parsers (the reference's own
 * test matrix for -v and --pvc), the checks with their messages, and the
 * rendered objects of each flag family against golden files. The first
 * golden file is the reference chart's example job (train1 with half a
 * GPU, a read-only host path, a large /dev/shm), as the chart renders it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/yaml.h"
#include "kube/auth.h"
#include "kube/token.h"
#include "runai/submit.h"

#include "harness.h"
#include "golden.h"
#include "submit_yaml.h"

/* ---- parsers ---- */

TEST(volumes_parse_as_the_reference)
{
	static const struct {
		const char	*arg;
		int		 ok;
		const char	*host, *path;
		int		 ro;
	} cases[] = {
		{ "/data:/data", 1, "/data", "/data", 0 },
		{ "/data:/mnt/d:ro", 1, "/data", "/mnt/d", 1 },
		{ "/data:/mnt/d:rw", 1, "/data", "/mnt/d", 0 },
		{ "/data:/mnt/d:", 1, "/data", "/mnt/d", 0 },
		{ "/data", 0, NULL, NULL, 0 },
		{ "/data:/mnt:oops", 0, NULL, NULL, 0 },
		{ "/a:/b:ro:x", 0, NULL, NULL, 0 },
		{ ":/b", 0, NULL, NULL, 0 },
		{ "/a:", 0, NULL, NULL, 0 },
	};
	struct rai_err err = RAI_ERR_INIT;
	struct rai_volume v;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = rai_submit_parse_volume(cases[i].arg, &v, &err);

		if (!cases[i].ok) {
			T_INT_EQ(rc, -1);
			T_INT_EQ(err.kind, RAI_E_USAGE);
			T_STR_CONTAINS(err.message, "the -v parameter must be "
			    "given in the form of <host_path>:<container_path>");
			rai_err_release(&err);
			continue;
		}
		T_INT_EQ(rc, 0);
		T_STR_EQ(v.host, cases[i].host);
		T_STR_EQ(v.path, cases[i].path);
		T_INT_EQ(v.read_only, cases[i].ro);
		rai_volume_release(&v);
	}
}

TEST(pvcs_parse_as_the_reference)
{
	static const struct {
		const char	*arg;
		const char	*err;	/* NULL = ok */
		int		 dynamic;
		const char	*claim_or_class, *size, *path;
		int		 ro;
	} cases[] = {
		{ "my-pvc:/path1", NULL, 0, "my-pvc", NULL, "/path1", 0 },
		{ "my-pvc:/path1:ro", NULL, 0, "my-pvc", NULL, "/path1", 1 },
		{ "my-pvc:/path1:rw", NULL, 0, "my-pvc", NULL, "/path1", 0 },
		{ "my-pvc:/path1:oops", "invalid readonly parameter given: "
		    "'oops'", 0, NULL, NULL, NULL, 0 },
		{ ":1Gi:/path", NULL, 1, "", "1Gi", "/path", 0 },
		{ "fast:10Gi:/ckpt", NULL, 1, "fast", "10Gi", "/ckpt", 0 },
		{ "fast:10Gi:/ckpt:ro", NULL, 1, "fast", "10Gi", "/ckpt", 1 },
		{ ":10Gi:/ckpt:ro", NULL, 1, "", "10Gi", "/ckpt", 1 },
		{ "::/path/to:ro", "persistent volume size must be specified",
		    0, NULL, NULL, NULL, 0 },
		{ ":1Gi:", "container mount path must be specified", 0, NULL,
		    NULL, NULL, 0 },
		{ ":/path", "persistent volume claim name must be specified", 0,
		    NULL, NULL, NULL, 0 },
		{ "my-pvc:", "container mount path must be specified", 0, NULL,
		    NULL, NULL, 0 },
		{ "Fast:1Gi:/p", "storage class 'Fast' must be a lowercase", 0,
		    NULL, NULL, NULL, 0 },
		{ ":lots:/p:ro", "persistent volume size 'lots' is not a "
		    "quantity", 0, NULL, NULL, NULL, 0 },
		{ "fast:1Gi:/p:maybe", "invalid readonly parameter given: "
		    "'maybe'", 0, NULL, NULL, NULL, 0 },
		{ "only", "the --pvc parameter can be given in either of the "
		    "forms", 0, NULL, NULL, NULL, 0 },
		{ "a:b:c:d:e", "the --pvc parameter can be given in either of "
		    "the forms", 0, NULL, NULL, NULL, 0 },
	};
	struct rai_err err = RAI_ERR_INIT;
	struct rai_pvc p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = rai_submit_parse_pvc(cases[i].arg, &p, &err);

		if (cases[i].err != NULL) {
			if (rc != -1)
				printf("# %s parsed\n", cases[i].arg);
			T_INT_EQ(rc, -1);
			T_STR_CONTAINS(err.message, cases[i].err);
			T_NULL(p.path);
			rai_err_release(&err);
			continue;
		}
		T_INT_EQ(rc, 0);
		T_INT_EQ(p.dynamic, cases[i].dynamic);
		if (p.dynamic) {
			T_STR_EQ(p.storage_class, cases[i].claim_or_class);
			T_STR_EQ(p.size, cases[i].size);
		} else {
			T_STR_EQ(p.claim, cases[i].claim_or_class);
		}
		T_STR_EQ(p.path, cases[i].path);
		T_INT_EQ(p.read_only, cases[i].ro);
		rai_pvc_release(&p);
	}
}

TEST(ports_and_env_parse)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_port p;
	const char *name, *value;
	char *buf;

	T_INT_EQ(rai_submit_parse_port("8888", &p, &err), 0);
	T_INT_EQ(p.port, 8888);
	T_INT_EQ(p.target, 8888);
	T_INT_EQ(p.pair, 0);
	T_INT_EQ(rai_submit_parse_port("30080:80", &p, &err), 0);
	T_INT_EQ(p.port, 30080);
	T_INT_EQ(p.target, 80);
	T_INT_EQ(p.pair, 1);
	T_INT_EQ(rai_submit_parse_port("0", &p, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_parse_port("65536", &p, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_parse_port("80:", &p, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_parse_port("http", &p, &err), -1);
	rai_err_release(&err);

	/* values keep every '=' after the first (the reference cut them) */
	T_INT_EQ(rai_submit_parse_env("OPTS=a=1,b=2", &buf, &name, &value,
	    &err), 0);
	T_STR_EQ(name, "OPTS");
	T_STR_EQ(value, "a=1,b=2");
	free(buf);
	T_INT_EQ(rai_submit_parse_env("EMPTY=", &buf, &name, &value, &err), 0);
	T_STR_EQ(value, "");
	free(buf);
	T_INT_EQ(rai_submit_parse_env("NOVALUE", &buf, &name, &value, &err),
	    -1);
	T_NULL(buf);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_parse_env("=x", &buf, &name, &value, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_parse_env("1BAD=x", &buf, &name, &value, &err), -1);
	T_STR_CONTAINS(err.message, "not a valid environment variable name");
	rai_err_release(&err);
}

TEST(gpu_memory_is_megabytes_and_at_least_100)
{
	struct rai_err err = RAI_ERR_INIT;
	long mb;

	T_INT_EQ(rai_submit_gpu_memory_mb("4G", &mb, &err), 0);
	T_INT_EQ(mb, 4000);
	T_INT_EQ(rai_submit_gpu_memory_mb("1Gi", &mb, &err), 0);
	T_INT_EQ(mb, 1073);
	T_INT_EQ(rai_submit_gpu_memory_mb("100M", &mb, &err), 0);
	T_INT_EQ(mb, 100);
	T_INT_EQ(rai_submit_gpu_memory_mb("99M", &mb, &err), -1);
	T_STR_EQ(err.message, "gpu memory must be greater than 100Mb");
	rai_err_release(&err);
	T_INT_EQ(rai_submit_gpu_memory_mb("lots", &mb, &err), -1);
	rai_err_release(&err);
}

TEST(job_names_are_dns1035_labels)
{
	struct rai_err err = RAI_ERR_INIT;
	char long_name[70];

	T_INT_EQ(rai_submit_check_name("train1", &err), 0);
	T_INT_EQ(rai_submit_check_name("a-b-1", &err), 0);
	memset(long_name, 'a', 63);
	long_name[63] = '\0';
	T_INT_EQ(rai_submit_check_name(long_name, &err), 0);
	long_name[63] = 'a';
	long_name[64] = '\0';
	T_INT_EQ(rai_submit_check_name(long_name, &err), -1);
	/* too long is said as such, not as bad characters */
	T_STR_CONTAINS(err.message, "is 64 characters long; a job name has at "
	    "most 63");
	rai_err_release(&err);
	T_INT_EQ(rai_submit_check_name("1abc", &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_check_name("abc-", &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_submit_check_name("Train", &err), -1);
	T_STR_EQ(err.message, "Job names must consist of lower case "
	    "alphanumeric characters or '-' and start with an alphabetic "
	    "character (e.g. 'my-name',  or 'abc-123')");
	rai_err_release(&err);
}

/* ---- whole specs ---- */

static void
base_spec(struct rai_submit_spec *s)
{
	rai_submit_spec_init(s);
	s->name = "train1";
	s->project = "team-a";
	s->namespace = "runai-team-a";
	s->user = "john@acme.com";
	s->image = "gcr.io/run-ai-demo/quickstart";
}

static void
strv(struct rai_strv *v, const char *a, const char *b)
{
	v->n = 0;
	v->v = calloc(2, sizeof(*v->v));
	if (a != NULL)
		v->v[v->n++] = a;
	if (b != NULL)
		v->v[v->n++] = b;
}

static void
strv_free(struct rai_strv *v)
{
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

/* Expects a usage error containing msg. */
static void
expect_error(const struct rai_submit_spec *s, const char *msg)
{
	struct rai_submit_objs objs;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rai_submit_render(s, &objs, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_CONTAINS(err.message, msg);
	T_UINT_EQ(objs.n, 0);
	rai_err_release(&err);
}

TEST(checks_refuse_what_the_reference_refuses)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.image = NULL;
	expect_error(&s, "-i, --image must be set");
	base_spec(&s);
	s.gpu = -1;
	expect_error(&s, "-g/--gpu must be 0 or more");
	s.gpu = 1.5;
	expect_error(&s, "a fraction of a GPU must be below 1");
	s.gpu = NAN;
	expect_error(&s, "-g/--gpu must be 0 or more");
	s.gpu = 0.5;
	s.gpu_memory = "4G";
	expect_error(&s, "unexpected to accept both gpu and gpu-memory flag");
	base_spec(&s);
	s.image_pull_policy = "always";
	expect_error(&s, "image-pull-policy flag should be set with one of");
	base_spec(&s);
	s.tty = 1;
	expect_error(&s, "--stdin is required for containers with -t/--tty=true");
	base_spec(&s);
	s.cpu = "two";
	expect_error(&s, "--cpu 'two' is not a quantity");
	base_spec(&s);
	s.memory_limit = "-1G";
	expect_error(&s, "--memory-limit '-1G' is not a quantity");
	base_spec(&s);
	s.parallelism = 2;
	expect_error(&s, "you must also set the number of successful pod "
	    "completions");
	s.interactive = 1;
	expect_error(&s, "interactive jobs can't run with Parallelism");
	base_spec(&s);
	s.service_type = "nodeport";
	expect_error(&s, "Ports must be provided when exposing a service.");
	base_spec(&s);
	strv(&s.ports, "8888", NULL);
	s.service_type = "ingress";
	expect_error(&s, "--service-type ingress is for interactive jobs");
	strv_free(&s.ports);
	base_spec(&s);
	s.name = "Bad_Name";
	expect_error(&s, "Job names must consist of lower case");
	base_spec(&s);
	strv(&s.env, "A=1", "B");
	expect_error(&s, "-e 'B': give NAME=VALUE");
	strv_free(&s.env);
	base_spec(&s);
	s.node_type = "a b";
	expect_error(&s, "--node-type 'a b' is not a valid label value");
}

static void
golden(const char *name, const struct rai_submit_spec *s, const char *base,
    long index)
{
	char *y = t_submit_yaml(s, base, index);

	T_GOLDEN(name, y);
	free(y);
}

/* The reference chart's example job, flag for flag. */
TEST(contract_example)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.cli_command = "runai submit --name train1 -i gcr.io/run-ai-demo/"
	    "quickstart -g 0.5 -p team-a --cpu 2 --memory 4G -e A=1 -v "
	    "/data:/data:ro --large-shm";
	s.job_index = 42;
	s.gpu = 0.5;
	s.cpu = "2";
	s.memory = "4G";
	strv(&s.env, "A=1", NULL);
	strv(&s.volumes, "/data:/data:ro", NULL);
	s.large_shm = 1;
	golden("submit-contract-example.yaml", &s, "train1", 0);
	strv_free(&s.env);
	strv_free(&s.volumes);
}

static const char *const train_cmd[] = { "python3", "train.py",
	"--epochs", "10" };

TEST(whole_gpus_command_and_container_flags)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.name = "job-3";
	s.gpu = 4;
	s.cpu = "8";
	s.cpu_limit = "16";
	s.memory = "32Gi";
	s.memory_limit = "64Gi";
	s.image_pull_policy = "IfNotPresent";
	s.working_dir = "/workspace";
	s.node_type = "dgx-a100";
	s.cmd = train_cmd;
	s.ncmd = 4;
	s.is_command = 1;
	strv(&s.env, "OPTS=a=1,b=2", "PASSWORD=SECRET:db-creds,password");
	golden("submit-whole-gpus.yaml", &s, "job", 3);
	/* without --command the words are the entrypoint's arguments */
	s.is_command = 0;
	s.ncmd = 2;
	s.gpu = 1;
	s.env.n = 0;
	golden("submit-args.yaml", &s, "job", 3);
	strv_free(&s.env);
}

TEST(interactive_ports_and_terminal)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.name = "nb";
	s.interactive = 1;
	s.preemptible = 1;
	s.gpu = 0.25;
	s.tty = 1;
	s.stdin_open = 1;
	strv(&s.ports, "8888", "30022:22");
	s.service_type = "nodeport";
	golden("submit-interactive-nodeport.yaml", &s, "nb", 0);
	s.preemptible = 0;
	s.service_type = "ingress";
	golden("submit-interactive-ingress.yaml", &s, "nb", 0);
	s.service_type = "loadbalancer";
	s.ports.n = 1;
	golden("submit-loadbalancer.yaml", &s, "nb", 0);
	strv_free(&s.ports);
}

TEST(storage)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.name = "st";
	strv(&s.volumes, "/mnt/datasets:/data", "/etc/ssl:/ssl:ro");
	s.pvcs.v = calloc(3, sizeof(*s.pvcs.v));
	s.pvcs.v[0] = ":10Gi:/ckpt";
	s.pvcs.v[1] = "shared-data:/shared:ro";
	s.pvcs.v[2] = "fast:1Ti:/scratch:rw";
	s.pvcs.n = 3;
	s.large_shm = 1;
	golden("submit-storage.yaml", &s, "st", 0);
	strv_free(&s.volumes);
	strv_free(&s.pvcs);
}

TEST(access_control)
{
	struct rai_submit_spec s;
	static const long groups[] = { 1000, 27, 100 };

	base_spec(&s);
	s.name = "sec";
	s.run_as_user = 1;
	s.uid = 1000;
	s.gid = 1000;
	s.groups = groups;
	s.ngroups = 3;
	s.prevent_privilege_escalation = 1;
	s.host_ipc = 1;
	s.host_network = 1;
	/* --create-home-dir defaults on with --run-as-user */
	golden("submit-run-as-user.yaml", &s, "sec", 0);
	s.create_home_dir = 0;
	s.ids_from_token = 1;
	s.ngroups = 0;
	golden("submit-run-as-token-user.yaml", &s, "sec", 0);
}

TEST(lifecycle_and_gpu_memory)
{
	struct rai_submit_spec s;

	base_spec(&s);
	s.name = "hpo";
	s.gpu_memory = "20G";
	s.completions = 10;
	s.parallelism = 3;
	s.backoff_limit = 2;
	s.ttl_after_finish = 7200;
	s.job_index = 7;
	golden("submit-lifecycle.yaml", &s, "hpo", 0);
	/* where run.ai/v1 is not served: the same pod template in a Job */
	s.batch_job = 1;
	golden("submit-batch-job.yaml", &s, "hpo", 0);
}

TEST(objects_come_in_creation_order)
{
	struct rai_submit_spec s;
	struct rai_submit_objs objs;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *cm;

	base_spec(&s);
	s.interactive = 1;
	strv(&s.ports, "8888", NULL);
	strv(&s.pvcs, ":1Gi:/a", ":2Gi:/b");
	s.service_type = "ingress";
	T_INT_EQ(rai_submit_render(&s, &objs, &err), 0);
	if (err.message)
		printf("# %s\n", err.message);
	T_UINT_EQ(objs.n, 5);
	T_INT_EQ(objs.v[0].res == &KUBE_RES_PVCS, 1);
	T_INT_EQ(objs.v[1].res == &KUBE_RES_PVCS, 1);
	T_INT_EQ(objs.v[2].res == &KUBE_RES_RUNAIJOBS, 1);
	T_INT_EQ(objs.v[3].res == &KUBE_RES_SERVICES, 1);
	T_INT_EQ(objs.v[4].res == &KUBE_RES_INGRESSES, 1);
	T_INT_EQ(rai_submit_workload(&objs) == &objs.v[2], 1);
	cm = rai_submit_configmap(&s, "train1", 0, &objs);
	/* the list the reference's delete walks */
	T_STR_EQ(rai_json_str(cm, "data.app"), "persistentvolumeclaim/"
	    "pvc-train1-0\npersistentvolumeclaim/pvc-train1-1\n"
	    "runaijob.run.ai/train1\nservice/train1\n"
	    "ingress.networking.k8s.io/train1");
	T_STR_EQ(rai_json_label(cm, "createdBy"), "arena");
	T_STR_EQ(rai_json_label(cm, "base-name"), "train1");
	T_STR_EQ(rai_json_label(cm, "base-name-index"), "0");
	cJSON_Delete(cm);
	rai_submit_objs_release(&objs);
	strv_free(&s.ports);
	strv_free(&s.pvcs);
}

/* ---- who submits ---- */

TEST(user_and_ids_come_from_the_id_token)
{
	/* {"alg":"none"} . {"email":"ada@lab.org","uid":"2001","gid":3001} . */
	static const char jwt[] = "eyJhbGciOiJub25lIn0."
	    "eyJlbWFpbCI6ImFkYUBsYWIub3JnIiwidWlkIjoiMjAwMSIsImdpZCI6MzAwMX0.";
	struct rai_submit_spec s;
	long groups[RAI_SUBMIT_MAX_GROUPS];
	cJSON *claims = kube_jwt_claims(jwt);
	char *user;

	T_NOT_NULL(claims);
	user = rai_submit_default_user(claims);
	T_STR_EQ(user, "ada@lab.org");
	free(user);
	rai_submit_spec_init(&s);
	rai_submit_ids(&s, claims, groups, RAI_SUBMIT_MAX_GROUPS);
	T_INT_EQ(s.uid, 2001);
	T_INT_EQ(s.gid, 3001);
	T_INT_EQ(s.ids_from_token, 1);
	T_UINT_EQ(s.ngroups, 0);
	cJSON_Delete(claims);

	/* without a token: the local user and ids */
	user = rai_submit_default_user(NULL);
	T_NOT_NULL(user);
	free(user);
	rai_submit_spec_init(&s);
	rai_submit_ids(&s, NULL, groups, RAI_SUBMIT_MAX_GROUPS);
	T_INT_EQ(s.ids_from_token, 0);
	T_INT_EQ(s.uid, (long)getuid());
	T_NULL(kube_jwt_claims("not-a-jwt"));
	T_NULL(kube_jwt_claims("a.bm90IGpzb24.c"));
}

int
main(void)
{
	RUN(volumes_parse_as_the_reference);
	RUN(pvcs_parse_as_the_reference);
	RUN(ports_and_env_parse);
	RUN(gpu_memory_is_megabytes_and_at_least_100);
	RUN(job_names_are_dns1035_labels);
	RUN(checks_refuse_what_the_reference_refuses);
	RUN(contract_example);
	RUN(whole_gpus_command_and_container_flags);
	RUN(interactive_ports_and_terminal);
	RUN(storage);
	RUN(access_control);
	RUN(lifecycle_and_gpu_memory);
	RUN(objects_come_in_creation_order);
	RUN(user_and_ids_come_from_the_id_token);
	return t_done();
}
