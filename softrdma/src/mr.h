/* SPDX-License-Identifier: BSD-3-Clause */
/* Protection domains and memory regions with keys carrying a variant byte. */
#ifndef SOFTRDMA_MR_H
#define SOFTRDMA_MR_H

#include "softrdma.h"

struct softrdma_pd {
	struct ibv_pd pd;
	int refs;
};

void softrdma__pd_get(struct ibv_pd *pd);
void softrdma__pd_put(struct ibv_pd *pd);

#endif
