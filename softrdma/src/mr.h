/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains and memory regions with keys carrying a variant byte.
 *
 * Threads: any thread; a PD's count is atomic, the MR table is guarded by
 * softrdma_mr_lock (after a QP's lock in softrdma.h's order); an MR is
 * freed by ibv_dereg_mr, a PD by ibv_dealloc_pd once nothing holds it.
 */
#ifndef SOFTRDMA_MR_H
#define SOFTRDMA_MR_H

#include "softrdma.h"

struct softrdma_pd {
	struct ibv_pd pd;
	int refs;
};

void softrdma__pd_get(struct ibv_pd *pd);
void softrdma__pd_put(struct ibv_pd *pd);

/*
 * fork() handler of the MR table, in the child: an empty table and a new
 * lock (inherited MRs stay allocated for ibv_dereg_mr, but their keys name
 * nothing in the child).
 */
void softrdma__mr_fork_child(void);
struct softrdma_mr *softrdma__mr_get(uint32_t key);
void softrdma__mr_put(void);
int softrdma__mr_check(struct softrdma_mr *mr, struct ibv_pd *pd, uint64_t addr, uint64_t len,
		       int access);
void *softrdma__mr_ptr(struct softrdma_mr *mr, uint64_t addr);

#endif
