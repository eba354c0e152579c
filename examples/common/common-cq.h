/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-cq.h -- waiting for completions in the librpma examples: each wait
 * checks that what completed succeeded and is what was expected, and ends
 * the program otherwise (common.h).
 */

#ifndef EXAMPLES_COMMON_CQ_H
#define EXAMPLES_COMMON_CQ_H 1

#include <librpma.h>

#include "common.h"

void common_wait_one(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc);
void common_wait_send_recv(struct rpma_cq *cq, struct ibv_wc *recv_wc);
const char *common_opcode_2str(enum ibv_wc_opcode opcode);
void common_conn_cqs(const struct rpma_conn *conn, struct rpma_cq **cq, struct rpma_cq **rcq);

#endif /* EXAMPLES_COMMON_CQ_H */
