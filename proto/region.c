/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * region.c -- the region entry: size u64, generation u64, persist u8,
 * usage u8, name_len u8, desc_len u8, then the name and the descriptor.
 */

#include <stdio.h>

#include "region.h"

/*
 * region_check_lens -- the lengths of the name and of the descriptor are
 * within bounds, and the descriptor is there exactly when the entry is not
 * a removal. Checked before the bytes are read, so that an oversized length
 * is reported as such even when the message ends before it.
 */
static int
region_check_lens(const struct rpmaf__proto_region *reg, bool removed, const char *field,
		  struct rpmaf__proto_err *err)
{
	if (reg->name_len == 0 || reg->name_len > RPMAF__PROTO_NAME_MAX)
		return rpmaf__proto_fail(
		    err, reg->name_len ? RPMAF__PROTO_E_TOO_BIG : RPMAF__PROTO_E_STRING,
		    "%s.name: %u bytes long (a name of 1 to %d bytes)", field,
		    (unsigned)reg->name_len, RPMAF__PROTO_NAME_MAX);
	if (reg->desc_len > RPMAF__PROTO_DESC_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TOO_BIG,
					 "%s.desc: %u bytes long (at most %d)", field,
					 (unsigned)reg->desc_len, RPMAF__PROTO_DESC_MAX);
	if (removed && reg->desc_len != 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "%s.desc: %u bytes in a removal (none expected)", field,
					 (unsigned)reg->desc_len);
	if (!removed && reg->desc_len == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "%s.desc: empty (1 to %d bytes)", field,
					 RPMAF__PROTO_DESC_MAX);
	return 0;
}

/*
 * region_check_values -- size, generation, persistence method and usage.
 * The largest generation is refused: a removal must be able to follow any
 * generation with a newer one, or a client could never drop the region.
 */
static int
region_check_values(const struct rpmaf__proto_region *reg, const char *field,
		    struct rpmaf__proto_err *err)
{
	if (reg->size == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE, "%s.size: 0 (at least 1)",
					 field);
	if (reg->generation == UINT64_MAX)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_RANGE,
		    "%s.generation: %llu (at most %llu: a removal must follow)", field,
		    (unsigned long long)reg->generation, (unsigned long long)UINT64_MAX - 1);
	if (reg->persist > RPMAF__PROTO_PERSIST_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "%s.persist: %u (0 none, 1 APM, 2 GPSPM)", field,
					 (unsigned)reg->persist);
	if (reg->usage == 0 || (reg->usage & ~RPMAF__PROTO_USAGE_ALL))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "%s.usage: 0x%02x (bits 0x1 read, 0x2 write, 0x4 flush; "
					 "at least one)",
					 field, (unsigned)reg->usage);
	return 0;
}

/* see region.h */
int
rpmaf__proto_region_check(const struct rpmaf__proto_region *reg, bool removed, const char *field,
			  struct rpmaf__proto_err *err)
{
	char sub[96];
	int ret;

	if ((ret = region_check_lens(reg, removed, field, err)) ||
	    (ret = region_check_values(reg, field, err)))
		return ret;
	if (reg->name == NULL || (reg->desc_len && reg->desc == NULL))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "%s: %s is NULL", field,
					 reg->name == NULL ? "name" : "desc");
	if (rpmaf__proto_name_check(reg->name, reg->name_len, "", NULL) == 0)
		return 0;
	/* the field's full name is only built for the message */
	snprintf(sub, sizeof(sub), "%s.name", field);
	return rpmaf__proto_name_check(reg->name, reg->name_len, sub, err);
}

/* see region.h */
int
rpmaf__proto_region_read(struct rpmaf__proto_rd *r, bool removed, const char *field,
			 struct rpmaf__proto_region *reg)
{
	const char *prefix = r->prefix;
	const uint8_t *name;
	int ret;

	r->prefix = field;
	if ((ret = rpmaf__proto_rd_u64(r, ".size", &reg->size)) ||
	    (ret = rpmaf__proto_rd_u64(r, ".generation", &reg->generation)) ||
	    (ret = rpmaf__proto_rd_u8(r, ".persist", &reg->persist)) ||
	    (ret = rpmaf__proto_rd_u8(r, ".usage", &reg->usage)) ||
	    (ret = rpmaf__proto_rd_u8(r, ".name_len", &reg->name_len)) ||
	    (ret = rpmaf__proto_rd_u8(r, ".desc_len", &reg->desc_len)) ||
	    (ret = region_check_lens(reg, removed, field, r->err)) ||
	    (ret = rpmaf__proto_rd_bytes(r, ".name", reg->name_len, &name)) ||
	    (ret = rpmaf__proto_rd_bytes(r, ".desc", reg->desc_len, &reg->desc)))
		goto out;
	reg->name = (const char *)name;
	ret = rpmaf__proto_region_check(reg, removed, field, r->err);
out:
	r->prefix = prefix;
	return ret;
}

/* see region.h */
int
rpmaf__proto_region_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_region *reg)
{
	size_t at = w->off;
	int ret;

	if ((ret = rpmaf__proto_wr_u64(w, reg->size)) ||
	    (ret = rpmaf__proto_wr_u64(w, reg->generation)) ||
	    (ret = rpmaf__proto_wr_u8(w, reg->persist)) ||
	    (ret = rpmaf__proto_wr_u8(w, reg->usage)) ||
	    (ret = rpmaf__proto_wr_u8(w, reg->name_len)) ||
	    (ret = rpmaf__proto_wr_u8(w, reg->desc_len)) ||
	    (ret = rpmaf__proto_wr_bytes(w, reg->name, reg->name_len)) ||
	    (ret = rpmaf__proto_wr_bytes(w, reg->desc, reg->desc_len)))
		w->off = at;
	return ret;
}
