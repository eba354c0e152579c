/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * list.h -- REGION_LIST, the paged region list: a builder that fills one
 * message with as many entries as fit (so the server learns where a page
 * ends by the first entry that does not fit), and an iterator over the
 * entries of a decoded page.
 *
 * ASSUMPTIONS
 * A builder or an iterator belongs to one thread; they keep no global state.
 */

#ifndef RPMAF_PROTO_LIST_H
#define RPMAF_PROTO_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/* a REGION_LIST being built in a caller's buffer */
struct rpmaf__proto_list_builder {
	struct rpmaf__proto_wr w;
	uint32_t total;	      /* entries of the table */
	uint32_t start;	      /* index of the page's first entry */
	uint32_t count;	      /* entries added so far */
	uint32_t max_entries; /* stop at this many; 0: no limit but the buffer */
};

/*
 * rpmaf__proto_list_begin -- start a REGION_LIST in the size bytes at buf
 * with header hdr (type, body_len ignored), for a table of total entries at
 * generation table_generation, the page starting at entry start and holding
 * at most max_entries (0: as many as fit).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_INVAL (NULL, start beyond total, total beyond
 * RPMAF__PROTO_REGIONS_MAX), a header code of rpmaf__proto_msg_encode(),
 * RPMAF__PROTO_E_NOSPC (the buffer cannot hold one entry: less than
 * RPMAF__PROTO_MSG_MIN bytes).
 */
int rpmaf__proto_list_begin(struct rpmaf__proto_list_builder *b, void *buf, size_t size,
			    const struct rpmaf__proto_hdr *hdr, uint64_t table_generation,
			    uint32_t total, uint32_t start, uint32_t max_entries,
			    struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_list_add -- append reg to the page.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_NOSPC when it does not fit the buffer, or the page has
 * max_entries or reached the end of the table: the page is full, nothing
 * was written, end it; or a code of rpmaf__proto_region_check().
 */
int rpmaf__proto_list_add(struct rpmaf__proto_list_builder *b,
			  const struct rpmaf__proto_region *reg, struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_list_end -- finish the message: the count and the body
 * length go into place.
 *
 * RETURN VALUE
 * The message's length; RPMAF__PROTO_E_INVAL (NULL); RPMAF__PROTO_E_RANGE
 * when the page is empty although entries are left (start < total).
 */
int rpmaf__proto_list_end(struct rpmaf__proto_list_builder *b, struct rpmaf__proto_err *err);

/* a walk over the entries of a decoded REGION_LIST */
struct rpmaf__proto_list_iter {
	struct rpmaf__proto_rd r;
	uint32_t left;
};

/* rpmaf__proto_list_iter_init -- start walking the entries of list */
void rpmaf__proto_list_iter_init(struct rpmaf__proto_list_iter *it,
				 const struct rpmaf__proto_region_list *list);

/*
 * rpmaf__proto_list_next -- the next entry in *reg (pointing into the
 * message).
 *
 * RETURN VALUE
 * 1 with *reg filled; 0 after the last one; a negative code only for a list
 * that did not come from rpmaf__proto_msg_decode().
 */
int rpmaf__proto_list_next(struct rpmaf__proto_list_iter *it, struct rpmaf__proto_region *reg);

#endif /* RPMAF_PROTO_LIST_H */
