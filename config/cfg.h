/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cfg.h -- the configuration object: what the loader's steps share about
 * a configuration being built.
 */

#ifndef RPMAF_CFG_CFG_H
#define RPMAF_CFG_CFG_H

#include "rpmaf.h"

/*
 * rpmaf__cfg_free -- free everything cfg points to (strings, lists, CPU
 * list) and cfg itself; cfg may be partly filled by a load that failed, or
 * NULL
 */
void rpmaf__cfg_free(struct rpmaf_cfg *cfg);

#endif /* RPMAF_CFG_CFG_H */
