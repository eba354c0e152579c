/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * peer_cfg.h -- the peer configuration and its 1-byte descriptor.
 *
 * Threads: a constant only; the configuration's own calls are in librpma.h.
 */

#ifndef RPMA_PEER_CFG_H
#define RPMA_PEER_CFG_H

#include "librpma.h"

/* the size of a serialized peer configuration */
#define RPMA_PEER_CFG_DESCRIPTOR_SIZE 1

#endif /* RPMA_PEER_CFG_H */
