/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * workload.h -- what rpma-load runs, read from a YAML file:
 *
 *   region: data                 # the target region (required)
 *   mix:                         # the operation mix (required, 1 to 5 entries)
 *     - {kind: write_persist, weight: 3}   # write | write_persist | read | atomic | call
 *     - {kind: read, weight: 1}            # weight: 0 to 1000000, not all 0
 *   sizes:                       # optional, per kind: a size or a distribution
 *     write_persist: 4K          #   defaults: 4K for writes and reads, 64 for calls
 *     read: {uniform: [512, 8K]} #   atomic is always 8 bytes
 *   threads: 2                   # application threads (1 to 256, default 1)
 *   queue_depth: 8               # operations in flight per thread (1 to 1024, default 1)
 *   duration: 5s                 # or count: N (operations in all), exactly one of them;
 *                                #   an override of one replaces the other of the file
 *   warmup: 1s                   # optional, with duration: run first, outside the figures
 *   rate: 10000                  # optional: total ops/s, open loop
 *   seed: 42                     # optional: the random choices (default: from the clock)
 *
 * Every error is a negative code and one message, FILE:LINE:COLUMN:
 * key.path: what is wrong (what was expected), from config/'s diagnostics.
 *
 * ASSUMPTIONS
 * A workload is read-only once loaded; any thread may read it.
 */

#ifndef RPMA_LOAD_WORKLOAD_H
#define RPMA_LOAD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpmaf.h"

enum wl_kind { WL_WRITE, WL_WRITE_PERSIST, WL_READ, WL_ATOMIC, WL_CALL, WL_NKINDS };

/* the names of enum wl_kind, NULL-terminated */
extern const char *const Wl_kind_names[WL_NKINDS + 1];

#define WL_ATOMIC_SIZE 8
#define WL_MAX_SIZE    (1ull << 30) /* the largest operation */

/* sizes of one kind: uniformly from lo to hi (lo == hi: fixed) */
struct wl_size {
	uint64_t lo, hi;
};

struct workload {
	char *region;
	uint32_t weight[WL_NKINDS]; /* 0: not in the mix */
	bool in_mix[WL_NKINDS];	    /* the kind has an entry in the mix */
	struct wl_size size[WL_NKINDS];
	uint32_t threads;
	uint32_t queue_depth;
	uint64_t duration_ns; /* 0: count is given */
	uint64_t count;	      /* 0: duration is given */
	uint64_t warmup_ns;   /* run before the figures start (with duration only) */
	double rate;	      /* ops/s in all; 0: closed loop */
	uint64_t seed;
	bool has_seed;
};

/*
 * wl_load_buffer -- the workload in len bytes at buf, name standing for the
 * file in messages, with the "key.path=value" overrides applied (as
 * rpmaf_cfg_opts.overrides are), into *wl_ptr (free it with wl_delete())
 *
 * RETURN VALUE
 * 0; or a negative code with *wl_ptr untouched and err filled (as the
 * configuration loader fills it): RPMAF_E_PARSE (not acceptable YAML, a bad
 * override), RPMAF_E_CONFIG (not a valid workload), RPMAF_E_IO (too large),
 * RPMAF_E_NOMEM, RPMAF_E_INVAL (a NULL argument, too many overrides).
 */
int wl_load_buffer(const char *name, const char *buf, size_t len, const char *const *overrides,
		   unsigned n_overrides, struct workload **wl_ptr, struct rpmaf_cfg_err *err);

/*
 * wl_load_file -- wl_load_buffer() of the file at path
 *
 * RETURN VALUE
 * As wl_load_buffer(); RPMAF_E_IO also when the file cannot be read.
 */
int wl_load_file(const char *path, const char *const *overrides, unsigned n_overrides,
		 struct workload **wl_ptr, struct rpmaf_cfg_err *err);

/* wl_delete -- free a workload and set *wl_ptr to NULL (nothing when it is NULL) */
void wl_delete(struct workload **wl_ptr);

/* wl_max_size -- the largest size of the kinds in the mix that match mask (bit i: kind i) */
uint64_t wl_max_size(const struct workload *wl, unsigned mask);

#endif /* RPMA_LOAD_WORKLOAD_H */
