/*
 * The push engine's model of one run, shared by its files (push.c has
 * the map): targets, sources, jobs and the run itself; and what
 * push_job.c gives the others: events, request bodies, starting and
 * ending a transfer. Callers of the engine include adm/push.h only.
 */
#ifndef ADM_PUSH_JOB_H
#define ADM_PUSH_JOB_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "adm/image.h"
#include "adm/push.h"
#include "adm/reg_client.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/err.h"

/* ---- the model of one run ---- */

struct target {
	const struct adm_archive *a;
	const struct adm_image	*im;
	char			*source;	/* the source reference */
	char			*repo;
	char			*tag;
	char			*full;		/* "host/repo:tag" */
	const char		*manifest;	/* bytes to push */
	size_t			 manifest_len;
	const char		*media_type;
	char			 digest[ADM_DIGEST_MAX];
	char			*own_manifest;	/* rebuilt for --compress gzip */
	int			 pushed;	/* its manifest is in */
};

/* One blob's bytes: where they come from and what they must hash to. */
struct source {
	char			 digest[ADM_DIGEST_MAX];
	uint64_t		 size;
	const struct adm_archive *a;
	const struct adm_blob	*b;
	int			 gzip;		/* b, gzip-compressed: */
	const struct adm_gz_layer *gz;		/* its gzip copy, or NULL */
	const char		*present_in;	/* a repository that has it now */
	const struct job	*owner;		/* the job working on it now */
	int			 counted;	/* in bytes_total already */
	char			*bad;		/* why the archive's bytes are wrong */
};

enum job_kind { JOB_BLOB, JOB_MANIFEST };

enum step {
	S_HEAD,			/* blob there? */
	S_MOUNT,		/* POST ?mount=&from= */
	S_POST,			/* open an upload session */
	S_PUT_WHOLE,		/* PUT ?digest= with the whole body */
	S_PATCH,		/* streamed PATCH with the whole body */
	S_PUT_FINAL,		/* PUT ?digest= with no body */
	S_MANIFEST_PUT,
	S_MANIFEST_HEAD,	/* verify */
};

enum job_state { J_WAITING, J_RUNNING, J_DONE, J_FAILED };

struct push;

struct job {
	struct push		*p;
	enum job_kind		 kind;
	enum job_state		 state;
	enum step		 step;
	const char		*repo;
	struct source		*src;		/* JOB_BLOB */
	struct target		*t;		/* JOB_MANIFEST */
	char			*location;	/* upload session URL */
	int			 attempts;	/* retries so far */
	long			 waited_ms;	/* their backoffs, added up */
	int			 restarts;
	int			 renewed;	/* 401s answered by renewing, this step */
	unsigned		 token_gen;	/* the token the request carried */
	long long		 not_before;	/* backoff: ms clock */
	long long		 started_ms;
	/* the transfer in flight */
	CURL			*easy;
	struct curl_slist	*hdrs;
	struct adm_resp		 resp;
	char			 errbuf[CURL_ERROR_SIZE];
	char			*url;
	/* the body */
	uint64_t		 sent;
	struct adm_blob_loc	 loc;
	int			 have_loc;
	size_t			 mem_off;
	int			 body_failed;
	struct rai_err		 berr;
};

struct push {
	const struct adm_push_opts *o;
	struct adm_reg_addr	 addr;
	struct adm_reg_client	 client;
	struct target		*targets;
	size_t			 ntargets;
	struct source		*sources;
	size_t			 nsources;
	struct job		*jobs;
	size_t			 njobs;
	CURLM			*multi;
	int			 running;
	int			 failed;	/* a fatal error: stop */
	char			*first_bad;	/* the first image not pushed, why */
	struct rai_err		 first_err;
	struct adm_push_stats	 st;
	long long		 t0;
	unsigned		 rnd;
	uint64_t		 threshold;
	int			 max_jobs;
	int			 retries;
	char			*first_missing;	/* verify: for the error */
	struct adm_gz_layer	*gz;
	size_t			 ngz;
};

void	 adm_push_emit(struct push *, struct adm_push_event *);
/* An event about job j; from and found as the event type needs. */
void	 adm_push_emit_job(struct push *, enum adm_push_ev_type,
	    const struct job *, const char *from, const char *found);
/* HEAD, POST, PATCH or PUT. */
const char *adm_push_step_method(enum step);
/* The request of j's step onto the multi handle; -1 with err. */
int	 adm_push_start_job(struct push *, struct job *, struct rai_err *);
/* Takes j's transfer off the multi handle and frees it. */
void	 adm_push_end_transfer(struct push *, struct job *);
void	 adm_push_body_release(struct job *);
void	 adm_push_cancel_session(struct push *, struct job *);
int	 adm_push_archive_at_fault(struct job *, struct rai_err *);

#endif
