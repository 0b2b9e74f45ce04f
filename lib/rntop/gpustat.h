/*
 * rntop_gpustat: a pure parser of nvidia-smi's CSV answer to the query
 * rntop sends (RNTOP_GPUSTAT_QUERY, --format=csv,noheader,nounits),
 * one-shot or as a -lms loop stream. Bytes may arrive in any chunks;
 * rows are framed by GPU index into snapshots: a row whose index is not
 * above the previous row's starts a new snapshot, and a snapshot is
 * handed out as soon as it is known to be complete (the same GPU indices
 * as the previous one, a new one starting, or the end of input).
 *
 * A row has exactly the query's columns (RNTOP_GPUSTAT_QUERY, or
 * RNTOP_GPUSTAT_QUERY_LIMITS when the caller says so) separated by ','
 * (nvidia-smi writes ", "); the name is last, so a comma in it cannot
 * shift columns. Bracketed sentinels ("[N/A]", "[Not Supported]",
 * "[GPU is lost]", ...), bare "N/A" and empty values are unknown: the
 * field's valid bit stays clear and the reason is kept; they never read
 * as 0. Any other line (Xid/ECC events, banners, error text, short or
 * malformed rows, lines over the cap) is noise: counted, the last one
 * kept, never parsed. The library never prints.
 */
#ifndef RNTOP_GPUSTAT_H
#define RNTOP_GPUSTAT_H

#include <stddef.h>

#include "core/buf.h"

/* The fields, in the order they are queried; name (free text) last. */
#define RNTOP_GPUSTAT_QUERY "index,uuid,utilization.gpu,memory.used," \
	"memory.total,temperature.gpu,power.draw,mig.mode.current,name"
/*
 * The same with the GPU's own limits before the name: the headroom in
 * degrees C to its temperature limit (temperature.gpu.tlimit: a margin,
 * negative past the limit, not a temperature) and the enforced power
 * limit in W. An older nvidia-smi refuses the whole query for a field
 * it does not know (rntop_gpustat_refused); RNTOP_GPUSTAT_QUERY is the
 * fallback then.
 */
#define RNTOP_GPUSTAT_QUERY_LIMITS "index,uuid,utilization.gpu," \
	"memory.used,memory.total,temperature.gpu,power.draw," \
	"mig.mode.current,temperature.gpu.tlimit,power.limit,name"

enum rntop_gpu_field {
	RNTOP_F_INDEX,
	RNTOP_F_UUID,
	RNTOP_F_UTIL,		/* % */
	RNTOP_F_MEM_USED,	/* MiB */
	RNTOP_F_MEM_TOTAL,	/* MiB */
	RNTOP_F_TEMP,		/* degrees C */
	RNTOP_F_POWER,		/* W */
	RNTOP_F_MIG,		/* Enabled / Disabled */
	RNTOP_F_NAME,
	RNTOP_F_TLIMIT,		/* degrees C to the limit; may be < 0 */
	RNTOP_F_POWER_LIMIT,	/* W */
	RNTOP_GPU_NFIELDS
};
#define RNTOP_V(f)	(1u << (f))	/* valid bit of a field */

/* Why a value is unknown. */
enum rntop_na {
	RNTOP_NA_NONE = 0,	/* the value is valid */
	RNTOP_NA_EMPTY,		/* "" */
	RNTOP_NA_NA,		/* [N/A], N/A */
	RNTOP_NA_NOT_SUPPORTED,	/* [Not Supported] */
	RNTOP_NA_PERMISSION,	/* [Insufficient Permissions] */
	RNTOP_NA_LOST,		/* [GPU is lost] */
	RNTOP_NA_RESET,		/* [GPU requires reset] */
	RNTOP_NA_ERROR,		/* [Unknown Error] */
	RNTOP_NA_OTHER,		/* any other [...] */
	RNTOP_NA_UNQUERIED,	/* not in the query (an older nvidia-smi) */
	RNTOP_NA_GONE,		/* listed before, missing from the list now */
};

#define RNTOP_UUID_MAX	96
#define RNTOP_NAME_MAX	96
#define RNTOP_LINE_MAX	1024	/* longer lines are noise */
#define RNTOP_GPUS_MAX	256	/* rows past this in one snapshot are noise */
#define RNTOP_NOISE_KEEP 8	/* noise lines kept, the newest */

struct rntop_gpu {
	unsigned	 valid;			/* RNTOP_V(field) bits */
	unsigned char	 na[RNTOP_GPU_NFIELDS];	/* enum rntop_na per field */
	long		 index;
	double		 util;
	double		 mem_used;
	double		 mem_total;
	double		 temp;
	double		 power;
	double		 tlimit;
	double		 power_limit;
	int		 mig;			/* 1 Enabled, 0 Disabled */
	char		 uuid[RNTOP_UUID_MAX];	/* "" when unknown */
	char		 name[RNTOP_NAME_MAX];	/* "" when unknown */
};

/*
 * A GPU is lost (or needs a reset) when any field says so; a GPU that
 * is gone (RNTOP_NA_GONE: nvidia-smi no longer lists it) is lost too.
 */
int	 rntop_gpu_lost(const struct rntop_gpu *);
/* Whether the GPU is gone: seen before, missing from the list now. */
int	 rntop_gpu_gone(const struct rntop_gpu *);
/* "N/A", "Not Supported", ... for a reason; "" for RNTOP_NA_NONE. */
const char *rntop_na_name(enum rntop_na);

struct rntop_snap {
	struct rntop_gpu *gpus;		/* n rows, in the order received */
	size_t		  n;
	size_t		  cap;
};

/* Called with each complete snapshot; it is only borrowed. */
typedef void (*rntop_snap_cb)(void *ud, const struct rntop_snap *);
/* Called with a side line (without its '\n'): see rntop_gpustat_side. */
typedef void (*rntop_side_cb)(void *ud, const char *line, size_t len);

struct rntop_gpustat {
	rntop_snap_cb	 cb;
	void		*ud;
	struct rai_buf	 line;		/* a partial line */
	int		 overlong;	/* dropping the rest of a long line */
	struct rntop_snap cur;		/* rows of the snapshot being read */
	long		*prev_idx;	/* indices of the last snapshot */
	size_t		 prev_n;
	unsigned long	 snapshots;	/* handed out so far */
	unsigned long	 rows;		/* rows parsed */
	unsigned long	 noise;		/* lines that were not rows */
	char		 last_noise[160]; /* sanitised, "" when none */
	/*
	 * The last RNTOP_NOISE_KEEP noise lines: line k at (k - 1) % KEEP;
	 * allocated at the first (a steady stream has none: 1.3 KiB a host).
	 */
	char		(*recent_noise)[160];
	int		 limits;	/* rows of RNTOP_GPUSTAT_QUERY_LIMITS */
	const char	*side_prefix;	/* lines for side, not rows or noise */
	rntop_side_cb	 side;
	void		*side_ud;
};

void	 rntop_gpustat_init(struct rntop_gpustat *, rntop_snap_cb, void *ud);
/* Any bytes, in any chunks. Never fails: bad input is noise. */
void	 rntop_gpustat_feed(struct rntop_gpustat *, const char *, size_t);
/* End of input: the last line (even without '\n') and snapshot go out. */
void	 rntop_gpustat_finish(struct rntop_gpustat *);
/*
 * Hands out the snapshot being read now, if it has rows (for a caller
 * that knows the stream went quiet); rows arriving later start a new one.
 */
void	 rntop_gpustat_flush(struct rntop_gpustat *);
void	 rntop_gpustat_release(struct rntop_gpustat *);
/*
 * Noise line number k (1 for the first this parser saw, up to noise),
 * sanitised; NULL when it is no longer kept (or never came).
 */
const char *rntop_gpustat_noise_line(const struct rntop_gpustat *,
	    unsigned long k);
/*
 * Lines that start with prefix (a literal, kept) go to cb instead of
 * being rows or noise: another answer sharing the channel (rntop's
 * owner block, rntop/owner.h). They never touch snapshot framing.
 */
void	 rntop_gpustat_side(struct rntop_gpustat *, const char *prefix,
	    rntop_side_cb, void *ud);
/*
 * The rows to expect: those of RNTOP_GPUSTAT_QUERY_LIMITS (1) or of
 * RNTOP_GPUSTAT_QUERY (0, the default), as the caller asked nvidia-smi.
 */
void	 rntop_gpustat_limits(struct rntop_gpustat *, int on);
/*
 * Whether nvidia-smi refused the query for a field it does not know
 * ("Field ... is not a valid field to query.", among the noise lines
 * kept), as an older one does for RNTOP_GPUSTAT_QUERY_LIMITS' fields.
 */
int	 rntop_gpustat_refused(const struct rntop_gpustat *);
/*
 * Primes framing with the GPU set of an earlier snapshot (a one-shot
 * inventory), so a stream's first snapshot is complete at its last row
 * instead of when the second one starts.
 */
void	 rntop_gpustat_expect(struct rntop_gpustat *, const struct rntop_snap *);

/*
 * One line without its '\n'. Returns 0 and fills *gpu for a row, -1
 * for noise. _limits reads a row of RNTOP_GPUSTAT_QUERY_LIMITS; the
 * other one of RNTOP_GPUSTAT_QUERY, the limits RNTOP_NA_UNQUERIED.
 */
int	 rntop_gpustat_parse_row(const char *, size_t, struct rntop_gpu *);
int	 rntop_gpustat_parse_row_limits(const char *, size_t,
	    struct rntop_gpu *);

/* Snapshot helpers for callers that keep a copy. */
void	 rntop_snap_copy(struct rntop_snap *dst, const struct rntop_snap *);
void	 rntop_snap_release(struct rntop_snap *);

#endif
