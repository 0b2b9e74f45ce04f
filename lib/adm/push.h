/*
 * adm_push: pushes the images of opened archives (adm_image.h) to a
 * registry, or verifies that a registry holds them, without a Docker
 * daemon, over the registry HTTP API (OCI distribution).
 *
 * The engine:
 *   - one target "repo:tag" per image reference (--map rules, else the
 *     reference's repository path under the registry's path);
 *   - one blob job per (repository, digest), all images in one queue,
 *     largest first, at most jobs transfers at once over the libcurl
 *     multi interface (keep-alive connections, HTTP/1.1);
 *   - per blob: HEAD (present: skipped), else a cross-repository mount
 *     from a repository this run already filled, else POST an upload
 *     session and send the bytes: one monolithic PUT ?digest= for
 *     small blobs, a streamed PATCH (chunked) then PUT for large ones;
 *   - bytes are read with pread from the archive and sent as they are,
 *     not hashed: the registry hashes what it receives and refuses a
 *     blob that does not match its digest (DIGEST_INVALID), storing
 *     nothing. Only then is the archive's copy hashed: a mismatch there
 *     DELETEs the session and leaves out the images that need the
 *     blob, naming it; a match means the bytes changed on the way, and
 *     the push fails with the registry's answer;
 *   - manifests go only after every blob succeeded, and their
 *     Docker-Content-Digest must equal the sha256 of the bytes sent;
 *   - retries with backoff for network errors, 408, 429 (Retry-After),
 *     5xx; a 401 renews the token once; a 404 on an upload URL starts
 *     the upload again;
 *   - credentials go only to the registry's own origin, never to an
 *     upload Location on another host.
 * A rerun after a failure moves only what is missing (HEAD dedup).
 *
 * The library never prints: progress goes to the event callback.
 */
#ifndef ADM_PUSH_H
#define ADM_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "adm/image.h"
#include "adm/reg_client.h"
#include "adm/registry.h"
#include "core/err.h"

#define ADM_PUSH_DEFAULT_JOBS		5
#define ADM_PUSH_DEFAULT_RETRIES	10
/* Blobs up to this size go as one PUT, larger ones as a streamed PATCH. */
#define ADM_PUSH_PATCH_THRESHOLD	((uint64_t)32 << 20)

enum adm_push_mode {
	ADM_PUSH_UPLOAD,	/* push */
	ADM_PUSH_DRY_RUN,	/* HEAD checks only: what a push would send */
	ADM_PUSH_VERIFY,	/* HEAD every blob and manifest, compare digests */
};

enum adm_push_compress {
	ADM_PUSH_COMPRESS_NONE,	/* legacy layers as they are (tar) */
	ADM_PUSH_COMPRESS_GZIP,	/* legacy uncompressed layers: deterministic gzip */
};

enum adm_push_ev_type {
	ADM_EV_TARGET,		/* planned: source -> target (digest) */
	ADM_EV_BLOB_START,	/* an upload begins (size) */
	ADM_EV_BLOB_PROGRESS,	/* done of size bytes */
	ADM_EV_BLOB_SKIPPED,	/* already in the repository */
	ADM_EV_BLOB_MOUNTED,	/* mounted from another repository (from) */
	ADM_EV_BLOB_UPLOADED,
	ADM_EV_BLOB_NEEDED,	/* dry run: would be sent (size) */
	ADM_EV_MANIFEST_PUSHED,	/* target, digest */
	ADM_EV_RETRY,		/* message, delay_ms */
	ADM_EV_PRESENT,		/* verify: blob or manifest as expected */
	ADM_EV_MISSING,		/* verify: not there */
	ADM_EV_DIFFERENT,	/* verify: the tag names another digest (found) */
	ADM_EV_TICK,		/* a few times a second, for redrawing */
	ADM_EV_IMAGE_FAILED,	/* not pushed: a blob of it is bad (message) */
};

struct adm_push_stats {
	size_t		 targets;
	size_t		 blobs;		/* blob jobs: (repository, digest) */
	size_t		 uploaded;
	size_t		 skipped;
	size_t		 mounted;
	size_t		 manifests;	/* pushed, or present when verifying */
	size_t		 missing;	/* verify */
	size_t		 different;	/* verify */
	size_t		 retries;
	size_t		 not_pushed;	/* references left out: a bad blob */
	size_t		 images;	/* distinct images of the references */
	size_t		 images_pushed;	/* every reference of it pushed */
	uint64_t	 bytes_total;	/* of the distinct blobs (an upper bound) */
	uint64_t	 bytes_to_send;	/* known once HEADs are done */
	/*
	 * Body bytes that left, those sent again included: it never goes
	 * back, so neither does a progress line. bytes_resent counts the
	 * bytes a retry threw away (the blob is sent again from its start),
	 * which the upper bound bytes_total + bytes_resent takes in.
	 */
	uint64_t	 bytes_sent;
	uint64_t	 bytes_resent;
	long long	 elapsed_ms;
	int		 connected;	/* the registry answered and let us in */
};

struct adm_push_event {
	enum adm_push_ev_type	 type;
	const char		*source;	/* source reference */
	const char		*target;	/* "host/repo:tag" */
	const char		*repo;
	const char		*digest;
	const char		*found;		/* DIFFERENT: the registry's digest */
	const char		*from;		/* MOUNTED: the source repository */
	const char		*kind;		/* "blob" or "manifest" */
	const char		*message;	/* RETRY: why */
	uint64_t		 size;
	uint64_t		 done;
	long			 delay_ms;
	int			 attempt;	/* RETRY: this is retry N */
	int			 max_attempts;	/* RETRY: of at most M */
	long			 waited_ms;	/* RETRY: backoffs so far, this one too */
	const struct adm_push_stats *stats;
};

typedef void adm_push_event_fn(void *ud, const struct adm_push_event *);

struct adm_push_opts {
	enum adm_push_mode	 mode;
	const char		*registry;	/* HOST[:PORT][/PATH] */
	const struct adm_map_rule *maps;
	size_t			 nmaps;
	int			 jobs;		/* 0 = ADM_PUSH_DEFAULT_JOBS */
	int			 retries;	/* < 0 = ADM_PUSH_DEFAULT_RETRIES */
	enum adm_push_compress	 compress;
	uint64_t		 patch_threshold; /* 0 = the default */
	struct adm_reg_opts	 conn;		/* TLS and credentials */
	adm_push_event_fn	*on_event;
	void			*ud;
};

/*
 * Pushes (or dry-runs, or verifies) every image of the archives. 0 when
 * everything succeeded (verify: everything present and equal); -1 with
 * err otherwise. stats (may be NULL) gets the totals either way.
 */
int	 adm_push(struct adm_archive *const *, size_t narchives,
	    const struct adm_push_opts *, struct adm_push_stats *,
	    struct rai_err *);

/* Helpers exported for unit tests. */
/* An upload Location made absolute against base ("http://h:p"). */
char	*adm_push_resolve_location(const char *base, const char *location);
/* location with digest=D appended ('?' or '&' as needed). */
char	*adm_push_digest_url(const char *location, const char *digest);

#endif
