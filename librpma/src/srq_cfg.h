/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * srq_cfg.h -- internal access to a shared receive queue configuration.
 *
 * Threads: any thread may call; the sizes are read under the
 * configuration's lock (the one its setters hold); its user frees it.
 */

#ifndef RPMA_SRQ_CFG_H
#define RPMA_SRQ_CFG_H

#include "librpma.h"

/*
 * rpma__srq_cfg_get_sizes -- read both sizes of cfg (NULL means the
 * defaults), together, as one state cfg was in. ERRORS: none.
 */
void rpma__srq_cfg_get_sizes(const struct rpma_srq_cfg *cfg, uint32_t *rq_size, uint32_t *rcq_size);

#endif /* RPMA_SRQ_CFG_H */
