/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * dump.h -- a resolved configuration written back as YAML, every key that
 * applies with its value, in the order of the key table.
 */

#ifndef RPMAF_CFG_DUMP_H
#define RPMAF_CFG_DUMP_H

#include <stdio.h>

#include "rpmaf.h"

/*
 * rpmaf__cfg_dump_write -- cfg as YAML to out
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL when cfg holds a value no key can have (an enum out of
 * range); RPMAF_E_IO when out fails.
 */
int rpmaf__cfg_dump_write(const struct rpmaf_cfg *cfg, FILE *out);

#endif /* RPMAF_CFG_DUMP_H */
