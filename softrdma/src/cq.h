/* SPDX-License-Identifier: BSD-3-Clause */
/* Completion channels and completion queues. */
#ifndef SOFTRDMA_CQ_H
#define SOFTRDMA_CQ_H

#include "softrdma.h"

int softrdma__poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int softrdma__req_notify_cq(struct ibv_cq *cq, int solicited_only);

#endif
