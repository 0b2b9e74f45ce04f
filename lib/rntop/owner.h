/*
 * rntop_owner: who holds a GPU, pure. Three inputs meet here:
 *
 * - the remote side's owner block, lines that start with "#rntop " in
 *   the same channel as the GPU rows (rntop_remote_command with owners
 *   on): nvidia-smi --query-compute-apps rows, each process's
 *   /proc/PID/cgroup lines and the driver's version line;
 * - a pod from the API, reduced to what ownership needs (namespace,
 *   name, node, project, job, whole GPUs or a fraction and its device);
 * - a host's GPU snapshot.
 *
 * rntop_owners_map joins them into each GPU's owners: pods seen through
 * their processes first, then fractions by the device index the
 * scheduler wrote (annotation runai-gpu), then whole-GPU pods without a
 * process on the free GPUs, lowest index first (allocation without use).
 * The library never prints.
 */
#ifndef RNTOP_OWNER_H
#define RNTOP_OWNER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "rntop/gpustat.h"

#define RNTOP_OWNER_PREFIX	"#rntop "
#define RNTOP_POD_UID_MAX	40	/* 36 and the NUL, rounded */
#define RNTOP_CONTAINER_MAX	72	/* a 64-hex id and the NUL */
#define RNTOP_DRIVER_MAX	32
#define RNTOP_CUDA_MAX		16
#define RNTOP_PROCS_MAX		1024	/* per host; more are dropped */
#define RNTOP_LOGIN_MAX		33	/* a login name (32) and the NUL */
#define RNTOP_CMD_MAX		241	/* a command line, cut at 240 bytes */

/*
 * The pod and container of one /proc/PID/cgroup line (v1 "N:ctrl:/path"
 * or v2 "0::/path"), for the cgroupfs driver (/kubepods/burstable/
 * pod<uid>/<id>) and the systemd one (kubepods-burstable-pod<uid with
 * _>.slice/cri-containerd-<id>.scope, docker-, crio-). Returns 1 and
 * fills uid (dashed) and cid ("" when the path ends at the pod), 0 for
 * a line of no pod.
 */
int	 rntop_cgroup_pod(const char *line, size_t len,
	    char uid[RNTOP_POD_UID_MAX], char cid[RNTOP_CONTAINER_MAX]);
/*
 * The version in a /proc/driver/nvidia/version first line ("NVRM
 * version: NVIDIA UNIX x86_64 Kernel Module  550.163.01  ..."): the
 * first word after "Module" made of digits and dots. 0 and out filled,
 * or -1.
 */
int	 rntop_driver_version(const char *line, size_t len,
	    char out[RNTOP_DRIVER_MAX]);

/*
 * The CUDA version in nvidia-smi --version's "CUDA Version : 13.0" line
 * (what follows the colon): digits and dots, blanks around them. 0 and
 * out filled, or -1.
 */
int	 rntop_cuda_version(const char *s, size_t len,
	    char out[RNTOP_CUDA_MAX]);

/* One GPU process. */
struct rntop_proc {
	char	 gpu_uuid[RNTOP_UUID_MAX];
	long	 pid;
	double	 mem;			/* MiB, when mem_known */
	int	 mem_known;
	char	 pod_uid[RNTOP_POD_UID_MAX];	/* "" outside any pod */
	char	 container[RNTOP_CONTAINER_MAX];
	long	 uid;			/* -1 when unreadable */
	char	 user[RNTOP_LOGIN_MAX];	/* the host's name for uid, or "" */
	char	 cmd[RNTOP_CMD_MAX];	/* printable ASCII, or "" */
};

/* One owner block: a host's GPU processes at one moment. */
struct rntop_procs {
	struct rntop_proc *v;
	size_t		 n, cap;
	int		 apps_ok;	/* the compute-apps query answered */
	char		 driver[RNTOP_DRIVER_MAX];	/* "" when unknown */
	char		 cuda[RNTOP_CUDA_MAX];		/* "" when unknown */
};
void	 rntop_procs_copy(struct rntop_procs *dst, const struct rntop_procs *);
void	 rntop_procs_release(struct rntop_procs *);

/* Called with each complete block; it is only borrowed. */
typedef void (*rntop_procs_cb)(void *ud, const struct rntop_procs *);

/*
 * Frames owner blocks from "#rntop" lines: "begin", then "driver
 * LINE", "cuda VERSION", "app UUID PID MEM" and, after a process's app
 * lines, "cg PID CGROUP-LINE", "uid PID UID" (from /proc/PID/status), "cmd PID TEXT"
 * (its command line, NULs and control characters made spaces on the
 * host) and "user UID NAME" (the host's name for a uid) in any number,
 * then "end ok" (or "end fail": the compute-apps query failed). A block
 * is handed out only when its end comes; a "begin" drops an unfinished
 * one, so a cut block never shows. A command keeps printable ASCII (any
 * other byte becomes '?') without its trailing spaces; a user name
 * that is not a plain login name (letters, digits, "._-@$") is dropped.
 */
struct rntop_ownerframe {
	rntop_procs_cb	 cb;
	void		*ud;
	int		 open;
	struct rntop_procs cur;
	unsigned long	 blocks;
};
void	 rntop_ownerframe_init(struct rntop_ownerframe *, rntop_procs_cb,
	    void *ud);
/* One line (without '\n') that starts with RNTOP_OWNER_PREFIX. */
void	 rntop_ownerframe_line(struct rntop_ownerframe *, const char *,
	    size_t);
void	 rntop_ownerframe_release(struct rntop_ownerframe *);

/* A GPU pod as ownership needs it. */
struct rntop_pod {
	char	*uid, *ns, *name, *node, *project, *job;
	double	 whole;		/* whole GPUs (nvidia.com/gpu) */
	double	 frac;		/* a share of one GPU in (0, 1), else 0 */
	long	 gpu_index;	/* annotation runai-gpu, -1 when none */
};
/*
 * A pod of the API that holds or may hold GPUs: bound to a node, not
 * finished, asking for nvidia.com/gpu or a gpu-fraction (one of 1 or
 * more counts as whole GPUs, as the scheduler takes it). 0 and out
 * filled, or -1 for any other pod. project: label "project", else
 * "runai/queue", else the namespace without its "runai-" prefix; job:
 * label training.kubeflow.org/job-name (distributed training jobs) or
 * mpi_job_name (the original CLI's MPI jobs), else "release",
 * "job-name", else the controller's name, else the pod.
 */
int	 rntop_pod_from_json(const cJSON *pod, struct rntop_pod *out);
void	 rntop_pod_release(struct rntop_pod *);

/* One owner of a GPU: the pod, its share, whether a process runs. */
struct rntop_owner {
	const struct rntop_pod *pod;
	double		 share;		/* 1 for a whole GPU */
	int		 procs;		/* its processes on this GPU */
};
#define RNTOP_OWNERS_MAX	8	/* per GPU; fractions beyond are dropped */

struct rntop_gpu_own {
	struct rntop_owner v[RNTOP_OWNERS_MAX];
	size_t		 n;
	int		 foreign;	/* processes of no known pod */
};
/*
 * Each GPU of snap (own[i] for snap->gpus[i]) gets its owners among
 * pods (those of this host's node), using procs (NULL: none known).
 */
void	 rntop_owners_map(const struct rntop_snap *,
	    const struct rntop_procs *, const struct rntop_pod *const *pods,
	    size_t npods, struct rntop_gpu_own *own);

#endif
