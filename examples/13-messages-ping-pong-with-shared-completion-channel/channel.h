/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * channel.h -- what both sides of this example do with a completion channel
 * shared by a connection's CQ and receive CQ: configure it, wait on it.
 */

#ifndef EXAMPLES_CHANNEL_H
#define EXAMPLES_CHANNEL_H 1

#include <stdbool.h>

#include <librpma.h>

struct rpma_conn_cfg *channel_cfg_new(void);
struct rpma_cq *channel_wait(struct rpma_conn *conn, bool *is_rcq);

#endif /* EXAMPLES_CHANNEL_H */
