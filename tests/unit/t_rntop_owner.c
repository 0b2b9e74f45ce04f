/*
 * rntop_owner: cgroup lines of real nodes (v1 and v2, systemd and
 * cgroupfs drivers, the H100 capture's non-pod line), the driver
 * version line, owner blocks framed from any lines, pods from API
 * JSON, the join into GPU owners, and the remote owner command run
 * through /bin/sh against a stub nvidia-smi and a fixture /proc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "rntop/hosts.h"
#include "rntop/owner.h"

#include "harness.h"

#define UID1	"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define UID1_	"0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0"
#define CID	"4c01db0b339c4e7b8e8fd0e4b1ad3c6b2c3f0c4d5e6f708192a3b4c5d6e7f809"

static int
cg(const char *line, char *uid, char *cid)
{
	return rntop_cgroup_pod(line, strlen(line), uid, cid);
}

TEST(cgroup_shapes)
{
	char uid[RNTOP_POD_UID_MAX], cid[RNTOP_CONTAINER_MAX];

	/* v2, systemd driver, containerd */
	T_INT_EQ(cg("0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod" UID1_ ".slice/cri-containerd-" CID
	    ".scope", uid, cid), 1);
	T_STR_EQ(uid, UID1);
	T_STR_EQ(cid, CID);
	/* v2, systemd, guaranteed QoS (no class slice), cri-o */
	T_INT_EQ(cg("0::/kubepods.slice/kubepods-pod" UID1_ ".slice/crio-"
	    CID ".scope", uid, cid), 1);
	T_STR_EQ(uid, UID1);
	T_STR_EQ(cid, CID);
	/* v1, cgroupfs driver */
	T_INT_EQ(cg("12:memory:/kubepods/burstable/pod" UID1 "/" CID, uid,
	    cid), 1);
	T_STR_EQ(uid, UID1);
	T_STR_EQ(cid, CID);
	/* v1, cgroupfs, besteffort, docker's pause-less path ends at the pod */
	T_INT_EQ(cg("4:devices:/kubepods/besteffort/pod" UID1, uid, cid), 1);
	T_STR_EQ(uid, UID1);
	T_STR_EQ(cid, "");
	/* v1, systemd, docker */
	T_INT_EQ(cg("11:cpu,cpuacct:/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-pod" UID1_ ".slice/docker-" CID ".scope\r",
	    uid, cid), 1);
	T_STR_EQ(uid, UID1);
	T_STR_EQ(cid, CID);
}

TEST(cgroup_not_pods)
{
	char uid[RNTOP_POD_UID_MAX], cid[RNTOP_CONTAINER_MAX];
	char *real = t_slurp(t_fixture("nvidia-smi/real/h100/"
	    "load-cgroup.txt"), NULL);

	/* the H100 capture: a process outside Kubernetes */
	T_NOT_NULL(real);
	T_INT_EQ(rntop_cgroup_pod(real, strcspn(real, "\n"), uid, cid), 0);
	T_STR_EQ(uid, "");
	free(real);
	T_INT_EQ(cg("0::/user.slice/user-1000.slice/session-3.scope", uid,
	    cid), 0);
	T_INT_EQ(cg("0::/system.slice/pod" UID1 ".service", uid, cid), 0);
	/* "pod" outside a kubepods tree names no pod */
	T_INT_EQ(cg("0::/pod" UID1 "/x", uid, cid), 0);
	/* a UID of the wrong shape */
	T_INT_EQ(cg("0::/kubepods/burstable/pod1234/abc", uid, cid), 0);
	T_INT_EQ(cg("0::/kubepods/burstable/podzz1e2d3c-4b5a-6978-8796-"
	    "a5b4c3d2e1f0/abc", uid, cid), 0);
	T_INT_EQ(cg("no colons at all", uid, cid), 0);
	T_INT_EQ(cg("", uid, cid), 0);
	/* a container part that is not hex is no id, the pod still is */
	T_INT_EQ(cg("1:name=systemd:/kubepods/pod" UID1 "/not-an-id", uid,
	    cid), 1);
	T_STR_EQ(cid, "");
}

TEST(driver_version_lines)
{
	char v[RNTOP_DRIVER_MAX];
	const char *l1 = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
	    "550.163.01  Tue Apr  8 12:49:23 UTC 2025";
	const char *l2 = "NVRM version: NVIDIA UNIX Open Kernel Module for "
	    "x86_64  580.159.04  Release Build  (dvs-builder@U16-I1-N08-12-2)";

	T_INT_EQ(rntop_driver_version(l1, strlen(l1), v), 0);
	T_STR_EQ(v, "550.163.01");
	T_INT_EQ(rntop_driver_version(l2, strlen(l2), v), 0);
	T_STR_EQ(v, "580.159.04");
	T_INT_EQ(rntop_driver_version("NVRM 12.3", 9, v), -1);
	T_INT_EQ(rntop_driver_version("Kernel Module x", 15, v), -1);
}

TEST(cuda_version_lines)
{
	char v[RNTOP_CUDA_MAX];

	T_INT_EQ(rntop_cuda_version("        13.0", 12, v), 0);
	T_STR_EQ(v, "13.0");
	T_INT_EQ(rntop_cuda_version(" 12.4 ", 6, v), 0);
	T_STR_EQ(v, "12.4");
	T_INT_EQ(rntop_cuda_version(" 12", 3, v), -1);		/* no dot */
	T_INT_EQ(rntop_cuda_version(" 12.4; rm", 9, v), -1);
	T_INT_EQ(rntop_cuda_version("", 0, v), -1);
	T_INT_EQ(rntop_cuda_version(" 1.2.3.4.5.6.7.8.9", 18, v), -1);
}

struct blocks {
	int		 n;
	struct rntop_procs last;
};

static void
on_block(void *ud, const struct rntop_procs *p)
{
	struct blocks *b = ud;

	b->n++;
	rntop_procs_copy(&b->last, p);
}

static void
feed_lines(struct rntop_ownerframe *f, const char *text)
{
	const char *p = text, *nl;

	while ((nl = strchr(p, '\n')) != NULL) {
		rntop_ownerframe_line(f, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

TEST(owner_blocks)
{
	struct rntop_ownerframe f;
	struct blocks b;

	memset(&b, 0, sizeof(b));
	rntop_ownerframe_init(&f, on_block, &b);
	feed_lines(&f,
	    "#rntop app GPU-x 1 2\n"		/* no begin: dropped */
	    "#rntop end ok\n"
	    "#rntop begin\n"
	    "#rntop driver NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
	    "550.163.01  Tue\n"
	    "#rntop cuda 12.4\n"
	    "#rntop app GPU-a 601 1386\n"
	    "#rntop app GPU-b 602 [N/A]\n"
	    "#rntop app GPU-b 603 [Insufficient\n"
	    "#rntop cg 601 0::/kubepods/burstable/pod" UID1 "/" CID "\n"
	    "#rntop cg 602 0::/user.slice/session-1.scope\n"
	    "#rntop uid 601 1000\n"
	    "#rntop uid 602 0\n"
	    "#rntop uid 603 x1\n"			/* not a number: unknown */
	    "#rntop cmd 601 python3 train.py --lr 0.1 \n"
	    "#rntop cmd 602 a\033[2Jb\tc\xc3\xa9  \n"	/* escapes, UTF-8 */
	    "#rntop user 1000 alice\n"
	    "#rntop user 0 ro ot\n"			/* not a login name */
	    "#rntop end ok\n");
	T_INT_EQ(b.n, 1);
	T_UINT_EQ(b.last.n, 3);
	T_INT_EQ(b.last.apps_ok, 1);
	T_STR_EQ(b.last.driver, "550.163.01");
	T_STR_EQ(b.last.cuda, "12.4");
	T_STR_EQ(b.last.v[0].gpu_uuid, "GPU-a");
	T_INT_EQ(b.last.v[0].pid, 601);
	T_INT_EQ(b.last.v[0].mem_known, 1);
	T_DBL_EQ(b.last.v[0].mem, 1386);
	T_STR_EQ(b.last.v[0].pod_uid, UID1);
	T_STR_EQ(b.last.v[0].container, CID);
	T_INT_EQ(b.last.v[1].mem_known, 0);
	T_STR_EQ(b.last.v[1].pod_uid, "");
	T_INT_EQ(b.last.v[2].mem_known, 0);
	T_INT_EQ(b.last.v[0].uid, 1000);
	T_STR_EQ(b.last.v[0].user, "alice");
	T_STR_EQ(b.last.v[0].cmd, "python3 train.py --lr 0.1");
	T_INT_EQ(b.last.v[1].uid, 0);
	T_STR_EQ(b.last.v[1].user, "");
	T_STR_EQ(b.last.v[1].cmd, "a?[2Jb?c??");
	T_INT_EQ(b.last.v[2].uid, -1);
	T_STR_EQ(b.last.v[2].user, "");
	T_STR_EQ(b.last.v[2].cmd, "");
	/* a command longer than the field is cut, never overflows */
	{
		char big[1200];

		memset(big, 'x', sizeof(big));
		memcpy(big, "#rntop cmd 601 ", 15);
		big[sizeof(big) - 1] = '\0';
		feed_lines(&f, "#rntop begin\n#rntop app GPU-a 601 1\n");
		rntop_ownerframe_line(&f, big, strlen(big));
		feed_lines(&f, "#rntop end ok\n");
		T_INT_EQ(b.n, 2);
		T_UINT_EQ(strlen(b.last.v[0].cmd), RNTOP_CMD_MAX - 1);
		b.n = 1;
	}
	/* a cut block is dropped when the next begins; a failed query says so */
	feed_lines(&f, "#rntop begin\n#rntop app GPU-a 9 1\n#rntop begin\n"
	    "#rntop end fail\n");
	T_INT_EQ(b.n, 2);
	T_UINT_EQ(b.last.n, 0);
	T_INT_EQ(b.last.apps_ok, 0);
	rntop_ownerframe_release(&f);
	rntop_procs_release(&b.last);
}

/* A GPU pod's fields, or "-" when the JSON is no GPU pod. */
static void
pod_fields(const char *json, char *out, size_t len)
{
	struct rntop_pod p;
	cJSON *j = cJSON_Parse(json);

	T_NOT_NULL(j);
	if (rntop_pod_from_json(j, &p) == -1) {
		snprintf(out, len, "-");
	} else {
		snprintf(out, len, "%s %s %s %s %g %g %ld", p.ns, p.project,
		    p.job, p.node, p.whole, p.frac, p.gpu_index);
		rntop_pod_release(&p);
	}
	cJSON_Delete(j);
}

#define T_POD(json, want) do {						\
	char t_got_[256];						\
	pod_fields((json), t_got_, sizeof(t_got_));			\
	T_STR_EQ(t_got_, (want));					\
} while (0)

TEST(pods_from_api)
{
	/* a Run:ai fraction, project by label, job by release */
	T_POD("{\"metadata\":{\"uid\":\"u1\",\"namespace\":"
	    "\"runai-team-a\",\"name\":\"j1-0-0\",\"labels\":{\"project\":"
	    "\"team-a\",\"release\":\"j1\"},\"annotations\":{\"gpu-fraction\":"
	    "\"0.5\",\"runai-gpu\":\"3\"}},\"spec\":{\"nodeName\":\"node-1\"},"
	    "\"status\":{\"phase\":\"Running\"}}",
	    "runai-team-a team-a j1 node-1 0 0.5 3");
	/* a distributed training worker: whole GPUs, the job's label */
	T_POD("{\"metadata\":{\"uid\":\"u2\",\"namespace\":"
	    "\"runai-team-b\",\"name\":\"dist-worker-1\",\"labels\":{"
	    "\"training.kubeflow.org/job-name\":\"dist\"},\"ownerReferences\":"
	    "[{\"name\":\"other\",\"controller\":true}]},\"spec\":{\"nodeName\":"
	    "\"node-2\",\"containers\":[{\"resources\":{\"limits\":{"
	    "\"nvidia.com/gpu\":\"2\"}}}]},\"status\":{\"phase\":\"Pending\"}}",
	    "runai-team-b team-b dist node-2 2 0 -1");
	/* the original CLI's MPI jobs name their job in mpi_job_name */
	T_POD("{\"metadata\":{\"uid\":\"u8\",\"namespace\":\"runai-p\","
	    "\"name\":\"m-launcher\",\"labels\":{\"mpi_job_name\":\"m\","
	    "\"release\":\"other\"}},\"spec\":{\"nodeName\":\"n\",\"containers\":"
	    "[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}}",
	    "runai-p p m n 1 0 -1");
	/* the controller names the job when no label does */
	T_POD("{\"metadata\":{\"uid\":\"u3\",\"namespace\":\"ml\","
	    "\"name\":\"x-abc\",\"ownerReferences\":[{\"name\":\"x\","
	    "\"controller\":true}]},\"spec\":{\"nodeName\":\"n\",\"containers\":"
	    "[{\"resources\":{\"requests\":{\"nvidia.com/gpu\":1}}}]}}",
	    "ml ml x n 1 0 -1");
	/* no GPU, not bound, finished: not GPU pods */
	T_POD("{\"metadata\":{\"uid\":\"u4\",\"namespace\":\"a\","
	    "\"name\":\"b\"},\"spec\":{\"nodeName\":\"n\",\"containers\":[{}]}}",
	    "-");
	T_POD("{\"metadata\":{\"uid\":\"u5\",\"namespace\":\"a\","
	    "\"name\":\"b\",\"annotations\":{\"gpu-fraction\":\"0.5\"}},"
	    "\"spec\":{}}", "-");
	T_POD("{\"metadata\":{\"uid\":\"u6\",\"namespace\":\"a\","
	    "\"name\":\"b\",\"annotations\":{\"gpu-fraction\":\"0.5\"}},"
	    "\"spec\":{\"nodeName\":\"n\"},\"status\":{\"phase\":"
	    "\"Succeeded\"}}", "-");
	/* a fraction of 1 or more is whole GPUs, as the scheduler takes it */
	T_POD("{\"metadata\":{\"uid\":\"u7\",\"namespace\":\"a\","
	    "\"name\":\"b\",\"annotations\":{\"gpu-fraction\":\"1.5\"}},"
	    "\"spec\":{\"nodeName\":\"n\"}}", "a a b n 1.5 0 -1");
}

static void
gpu(struct rntop_gpu *g, long idx, const char *uuid)
{
	memset(g, 0, sizeof(*g));
	g->index = idx;
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
}

static void
proc(struct rntop_procs *ps, const char *uuid, long pid, const char *uid)
{
	struct rntop_proc *p = &ps->v[ps->n++];

	memset(p, 0, sizeof(*p));
	snprintf(p->gpu_uuid, sizeof(p->gpu_uuid), "%s", uuid);
	p->pid = pid;
	snprintf(p->pod_uid, sizeof(p->pod_uid), "%s", uid);
}

TEST(owners_join)
{
	struct rntop_gpu gpus[4];
	struct rntop_snap s = { gpus, 4, 4 };
	struct rntop_proc pv[4];
	struct rntop_procs ps = { pv, 0, 4, 1, "" };
	char u[3][3] = { "ua", "ub", "uw" }, nm[3][2] = { "a", "b", "w" };
	struct rntop_pod a = { u[0], NULL, nm[0], NULL, NULL, NULL, 0, 0.5, 2 };
	struct rntop_pod b = { u[1], NULL, nm[1], NULL, NULL, NULL, 0, 0.25,
	    2 };
	struct rntop_pod w = { u[2], NULL, nm[2], NULL, NULL, NULL, 2, 0, -1 };
	const struct rntop_pod *pods[] = { &a, &b, &w };
	struct rntop_gpu_own own[4];

	gpu(&gpus[0], 0, "GPU-0");
	gpu(&gpus[1], 1, "GPU-1");
	gpu(&gpus[2], 2, "GPU-2");
	gpu(&gpus[3], 3, "GPU-3");
	/* w runs on GPU-3 only; a foreign process on GPU-0; a on GPU-2 */
	proc(&ps, "GPU-3", 10, "uw");
	proc(&ps, "GPU-0", 11, "");
	proc(&ps, "GPU-2", 12, "ua");
	proc(&ps, "GPU-9", 13, "ua");	/* no such GPU here */
	rntop_owners_map(&s, &ps, pods, 3, own);
	/* GPU-0: foreign only; w's second GPU is the free GPU-1 */
	T_UINT_EQ(own[0].n, 0);
	T_INT_EQ(own[0].foreign, 1);
	T_UINT_EQ(own[1].n, 1);
	T_STR_EQ(own[1].v[0].pod->name, "w");
	T_INT_EQ(own[1].v[0].procs, 0);
	/* GPU-2 shared: a with its process, b by the scheduler's index */
	T_UINT_EQ(own[2].n, 2);
	T_STR_EQ(own[2].v[0].pod->name, "a");
	T_DBL_EQ(own[2].v[0].share, 0.5);
	T_INT_EQ(own[2].v[0].procs, 1);
	T_STR_EQ(own[2].v[1].pod->name, "b");
	T_DBL_EQ(own[2].v[1].share, 0.25);
	T_INT_EQ(own[2].v[1].procs, 0);
	T_UINT_EQ(own[3].n, 1);
	T_STR_EQ(own[3].v[0].pod->name, "w");
	T_INT_EQ(own[3].v[0].procs, 1);
	/* without processes: allocation alone, lowest free GPUs */
	rntop_owners_map(&s, NULL, pods, 3, own);
	T_STR_EQ(own[0].v[0].pod->name, "w");
	T_STR_EQ(own[1].v[0].pod->name, "w");
	T_UINT_EQ(own[2].n, 2);
	T_UINT_EQ(own[3].n, 0);
}

/* The owner command, run by /bin/sh with a stub nvidia-smi and /proc. */
TEST(owner_command_runs)
{
	char dir[] = "/tmp/t_rntop_owner.XXXXXX", path[512], *cmd;
	const char *out;
	struct rntop_ownerframe f;
	struct blocks b;
	FILE *fp;

	memset(&b, 0, sizeof(b));
	T_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nvidia-smi", dir);
	fp = fopen(path, "w");
	fprintf(fp, "#!/bin/sh\ncase \"$1\" in\n"
	    "--query-gpu=*) echo '0, GPU-a, 5, 1, 2, 3, 4, Disabled, X';;\n"
	    "--query-compute-apps=*) echo 'GPU-a, 601, 1386'; "
	    "echo 'GPU-a, 602, [N/A]'; echo 'GPU-a, x$(id), 1';;\n"
	    "--version) echo 'NVIDIA-SMI version  : 580.159.04'; "
	    "echo 'CUDA Version        : 13.0';;\n"
	    "esac\n");
	fclose(fp);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "mkdir -p %s/proc/601 %s/proc/driver/"
	    "nvidia && printf '1:cpu:/\\n0::/kubepods/pod%s/%s\\n' >"
	    "%s/proc/601/cgroup && echo 'NVRM version: NVIDIA UNIX x86_64 "
	    "Kernel Module  550.1.2  x' >%s/proc/driver/nvidia/version", dir,
	    dir, UID1, CID, dir, dir);
	T_INT_EQ(system(path), 0);
	/* 601: uid 0 (root on every host), a command line with a newline */
	snprintf(path, sizeof(path), "printf 'Name:\\tpython3\\nUid:\\t0\\t0"
	    "\\t0\\t0\\nGid:\\t0\\n' >%s/proc/601/status && printf "
	    "'python3\\000-c\\000print(1)\\nx\\000' >%s/proc/601/cmdline && "
	    "mkdir -p %s/proc/602 && echo 'nv-app' >%s/proc/602/comm && : >"
	    "%s/proc/602/cmdline", dir, dir, dir, dir, dir);
	T_INT_EQ(system(path), 0);
	snprintf(path, sizeof(path), "%s/nvidia-smi", dir);
	cmd = rntop_remote_command_owners(path, "index,uuid", 0);
	T_NOT_NULL(cmd);
	{
		struct rai_buf sh = RAI_BUF_INIT;
		const char *p;
		FILE *pp;
		char line[1024];
		int keep;

		/*
		 * The command as sshd hands it to the user's shell, with an
		 * input that stays open (a FIFO this process holds), as a
		 * channel's does: its end stops the command.
		 */
		snprintf(path, sizeof(path), "%s/in", dir);
		T_INT_EQ(mkfifo(path, 0600), 0);
		keep = open(path, O_RDWR);
		T_OK(keep >= 0);
		rai_buf_addf(&sh, "RNTOP_PROC=%s/proc sh -c '", dir);
		for (p = cmd; *p; p++) {
			if (*p == '\'')
				rai_buf_addstr(&sh, "'\\''");
			else
				rai_buf_addch(&sh, *p);
		}
		rai_buf_addf(&sh, "' <%s", path);
		rntop_ownerframe_init(&f, on_block, &b);
		pp = popen(rai_buf_str(&sh), "r");
		T_NOT_NULL(pp);
		out = NULL;
		while (pp != NULL && fgets(line, sizeof(line), pp) != NULL) {
			size_t n = strcspn(line, "\n");

			if (strncmp(line, "0, GPU-a", 8) == 0)
				out = "row";
			else
				rntop_ownerframe_line(&f, line, n);
		}
		if (pp != NULL)
			T_INT_EQ(pclose(pp), 0);
		close(keep);
		rai_buf_release(&sh);
	}
	T_STR_EQ(out, "row");
	T_INT_EQ(b.n, 1);
	if (b.n != 1)
		return;
	T_INT_EQ(b.last.apps_ok, 1);
	T_STR_EQ(b.last.driver, "550.1.2");
	T_STR_EQ(b.last.cuda, "13.0");
	/* a pid that is not a number is printed as text, never run: dropped */
	T_UINT_EQ(b.last.n, 2);
	T_STR_EQ(b.last.v[0].pod_uid, UID1);
	T_STR_EQ(b.last.v[0].container, CID);
	T_STR_EQ(b.last.v[1].pod_uid, "");
	/* the user by the host's name for the status's uid; the command
	 * line's NULs and newline spaces; no cmdline: comm; no status: -1 */
	T_INT_EQ(b.last.v[0].uid, 0);
	T_STR_EQ(b.last.v[0].user, "root");
	T_STR_EQ(b.last.v[0].cmd, "python3 -c print(1) x");
	T_INT_EQ(b.last.v[1].uid, -1);
	T_STR_EQ(b.last.v[1].user, "");
	T_STR_EQ(b.last.v[1].cmd, "nv-app");
	rntop_ownerframe_release(&f);
	rntop_procs_release(&b.last);
	free(cmd);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	T_INT_EQ(system(path), 0);
	/*
	 * the stream form: one block at the start, then one per request
	 * line; the channel's end kills -lms (no timed loop of its own)
	 */
	cmd = rntop_remote_command_owners("nvidia-smi", "index", 500);
	T_STR_CONTAINS(cmd, "-lms 500 </dev/null");
	T_STR_CONTAINS(cmd, "(o; while read _; do o; done; kill $p) <&3");
	T_NULL(strstr(cmd, "sleep"));
	free(cmd);
	T_NULL(rntop_remote_command_owners("a;b", "index", 0));
}

/*
 * The stream form under /bin/sh: a block at once, one more for a
 * request line on its input, and the channel's end (EOF) stops the -lms
 * loop, whose rows kept coming meanwhile.
 */
TEST(owner_stream_requests)
{
	char dir[] = "/tmp/t_rntop_owner.XXXXXX", path[512], line[1024];
	struct rntop_ownerframe f;
	struct blocks b;
	struct rai_buf sh = RAI_BUF_INIT;
	const char *p;
	char *cmd;
	FILE *fp, *pp;
	int keep, rows = 0;

	memset(&b, 0, sizeof(b));
	T_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nvidia-smi", dir);
	fp = fopen(path, "w");
	T_NOT_NULL(fp);
	fprintf(fp, "#!/bin/sh\ncase \"$1\" in\n"
	    "--query-gpu=*) while :; do echo '0, GPU-a, 5, 1, 2, 3, 4, "
	    "Disabled, X'; sleep 0.05; done;;\n"
	    "--query-compute-apps=*) echo 'GPU-a, 601, 1386';;\n"
	    "esac\n");
	fclose(fp);
	chmod(path, 0755);
	cmd = rntop_remote_command_owners(path, "index,uuid", 100);
	T_NOT_NULL(cmd);
	snprintf(path, sizeof(path), "%s/in", dir);
	T_INT_EQ(mkfifo(path, 0600), 0);
	/* not inherited by the shell: its EOF is ours to give */
	keep = open(path, O_RDWR | O_CLOEXEC);
	T_OK(keep >= 0);
	rai_buf_addf(&sh, "RNTOP_PROC=%s/none sh -c '", dir);
	for (p = cmd; *p; p++) {
		if (*p == '\'')
			rai_buf_addstr(&sh, "'\\''");
		else
			rai_buf_addch(&sh, *p);
	}
	rai_buf_addf(&sh, "' <%s 2>/dev/null", path);
	rntop_ownerframe_init(&f, on_block, &b);
	alarm(30);	/* a command that does not stop fails, not hangs */
	pp = popen(rai_buf_str(&sh), "r");
	T_NOT_NULL(pp);
	while (pp != NULL && fgets(line, sizeof(line), pp) != NULL) {
		size_t n = strcspn(line, "\n");

		if (strncmp(line, "0, GPU-a", 8) == 0) {
			/* the shell holds the FIFO now: ask once, then end */
			if (++rows == 2 && keep >= 0) {
				T_INT_EQ(write(keep, "\n", 1), 1);
				close(keep);
				keep = -1;
			}
		} else {
			rntop_ownerframe_line(&f, line, n);
		}
	}
	if (pp != NULL)
		T_OK(pclose(pp) != 0);	/* nvidia-smi was killed */
	alarm(0);
	if (keep >= 0)
		close(keep);
	T_OK(rows >= 2);
	T_INT_EQ(b.n, 2);
	T_UINT_EQ(b.last.n, 1);
	T_INT_EQ(b.last.apps_ok, 1);
	rntop_ownerframe_release(&f);
	rntop_procs_release(&b.last);
	rai_buf_release(&sh);
	free(cmd);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	T_INT_EQ(system(path), 0);
}

int
main(void)
{
	RUN(cgroup_shapes);
	RUN(cgroup_not_pods);
	RUN(driver_version_lines);
	RUN(cuda_version_lines);
	RUN(owner_blocks);
	RUN(pods_from_api);
	RUN(owners_join);
	RUN(owner_command_runs);
	RUN(owner_stream_requests);
	return t_done();
}
