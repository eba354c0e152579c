/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * list.c -- building and walking REGION_LIST pages. The body is
 * table_generation u64, total u32, start u32, count u32, then count
 * entries; the builder writes count and the body length last.
 */

#include <stdio.h>

#include "list.h"

/* where count sits in the message: after the header, table_generation, total and start */
#define LIST_COUNT_OFF (RPMAF__PROTO_HDR_SIZE + 16)

/* see list.h */
int
rpmaf__proto_list_begin(struct rpmaf__proto_list_builder *b, void *buf, size_t size,
			const struct rpmaf__proto_hdr *hdr, uint64_t table_generation,
			uint32_t total, uint32_t start, uint32_t max_entries,
			struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_hdr h;
	int ret;

	if (b == NULL || buf == NULL || hdr == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "REGION_LIST: NULL argument");
	if (total > RPMAF__PROTO_REGIONS_MAX || start > total)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL,
					 "REGION_LIST: start %u, total %u (start <= total <= %d)",
					 (unsigned)start, (unsigned)total,
					 RPMAF__PROTO_REGIONS_MAX);
	if (size < RPMAF__PROTO_MSG_MIN)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_NOSPC,
					 "REGION_LIST: a %zu-byte buffer (at least %d)", size,
					 RPMAF__PROTO_MSG_MIN);
	h = *hdr;
	h.type = RPMAF__PROTO_T_REGION_LIST;
	if ((ret = rpmaf__proto_hdr_check(&h, err)))
		return ret;
	*b = (struct rpmaf__proto_list_builder){
	    .w = {.p = buf,
		  .size = size < RPMAF__PROTO_MSG_MAX ? size : RPMAF__PROTO_MSG_MAX,
		  .err = err},
	    .total = total,
	    .start = start,
	    .max_entries = max_entries,
	};
	/* the buffer holds at least RPMAF__PROTO_MSG_MIN bytes: these cannot fail */
	(void)rpmaf__proto_hdr_write(&b->w, &h, 0);
	(void)rpmaf__proto_wr_u64(&b->w, table_generation);
	(void)rpmaf__proto_wr_u32(&b->w, total);
	(void)rpmaf__proto_wr_u32(&b->w, start);
	(void)rpmaf__proto_wr_u32(&b->w, 0);
	return 0;
}

/* list_check_entry -- reg is a valid entry; its index is only formatted for a message */
static int
list_check_entry(const struct rpmaf__proto_list_builder *b, const struct rpmaf__proto_region *reg,
		 struct rpmaf__proto_err *err)
{
	char field[48];

	if (rpmaf__proto_region_check(reg, false, "", NULL) == 0)
		return 0;
	snprintf(field, sizeof(field), "REGION_LIST.entries[%u]", (unsigned)b->count);
	return rpmaf__proto_region_check(reg, false, field, err);
}

/* see list.h */
int
rpmaf__proto_list_add(struct rpmaf__proto_list_builder *b, const struct rpmaf__proto_region *reg,
		      struct rpmaf__proto_err *err)
{
	int ret;

	if (b == NULL || reg == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "REGION_LIST: NULL argument");
	if (b->count == b->total - b->start || (b->max_entries && b->count == b->max_entries))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_NOSPC,
					 "REGION_LIST: the page is full with %u entries",
					 (unsigned)b->count);
	if ((ret = list_check_entry(b, reg, err)))
		return ret;
	b->w.err = err;
	if ((ret = rpmaf__proto_region_write(&b->w, reg)))
		return ret;
	b->count++;
	return 0;
}

/* see list.h */
int
rpmaf__proto_list_end(struct rpmaf__proto_list_builder *b, struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_wr count = {.size = 4}, body_len = {.size = 4};

	if (b == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "REGION_LIST: NULL argument");
	count.p = b->w.p + LIST_COUNT_OFF;
	body_len.p = b->w.p + 8;
	if (b->count == 0 && b->start < b->total)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "REGION_LIST.count: 0 while entries %u to %u are left",
					 (unsigned)b->start, (unsigned)b->total - 1);
	(void)rpmaf__proto_wr_u32(&count, b->count);
	(void)rpmaf__proto_wr_u32(&body_len, (uint32_t)(b->w.off - RPMAF__PROTO_HDR_SIZE));
	return (int)b->w.off;
}

/* see list.h */
void
rpmaf__proto_list_iter_init(struct rpmaf__proto_list_iter *it,
			    const struct rpmaf__proto_region_list *list)
{
	*it = (struct rpmaf__proto_list_iter){
	    .r = {.p = list->entries, .len = list->entries_len},
	    .left = list->count,
	};
}

/* see list.h */
int
rpmaf__proto_list_next(struct rpmaf__proto_list_iter *it, struct rpmaf__proto_region *reg)
{
	int ret;

	if (it->left == 0)
		return 0;
	if ((ret = rpmaf__proto_region_read(&it->r, false, "REGION_LIST.entries[]", reg)))
		return ret;
	it->left--;
	return 1;
}
