/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * regtab.h -- the region table: the remote regions a client knows, by name
 * (name -> descriptor, size, persistence, usage, generation, owning target),
 * kept in liburcu's lock-free hash table (cds_lfht) under RCU.
 *
 * RCU FLAVOUR
 * urcu-qsbr (liburcu-qsbr + liburcu-cds): a read-side section costs a
 * resident reader nothing at all; the grace period waits until every
 * registered thread that is online has announced a quiescent state (or gone
 * offline) since it began. The table does not define _LGPL_SOURCE: what
 * liburcu is asked to do (register, announce, go offline or online) is a
 * call into the shared library, not inlined LGPL code, and the read-side
 * brackets themselves are the table's own (below).
 *
 * WHO REGISTERS, AND HOW
 * Every thread that calls a function of this file but rpmaf__regtab_new()
 * must be registered, in one of two ways, and unregistered before it exits
 * (rpmaf__regtab_thread_unregister(), outside any read-side section):
 * - an occasional reader (an application thread, a test's thread):
 *   rpmaf__regtab_thread_register(). It is offline but inside a read-side
 *   section: rpmaf__regtab_read_lock() brings it online (a call into
 *   liburcu) and the matching unlock takes it offline again, so it never
 *   holds a grace period back between its sections;
 * - a resident reader (a worker thread, which reads on every operation):
 *   rpmaf__regtab_thread_resident(). It stays online; its sections cost
 *   nothing, and in exchange it must announce a quiescent state often
 *   (rpmaf__regtab_quiescent(), at a point where it holds no entry: the
 *   worker does every 16 turns) and go offline around every sleep but a
 *   short one (rpmaf__regtab_thread_sleep() / _wake(); the worker naps up
 *   to 2 ms online first). A resident reader that blocks while online
 *   holds every reclamation back until it wakes.
 * The call_rcu threads of liburcu are registered by liburcu.
 *
 * READERS
 * rpmaf__regtab_read_lock() and rpmaf__regtab_read_unlock() bracket a
 * read-side critical section: nothing for a resident reader, online and
 * offline for an occasional one (see above), plus, in ThreadSanitizer
 * builds, the happens-before edges that liburcu's (uninstrumented) grace
 * periods provide and that TSan cannot see. A section may nest in another
 * one; it must not block for long (it delays the freeing of every replaced
 * entry, not the updaters). Entries found in a section are valid until its
 * rpmaf__regtab_read_unlock().
 *
 * UPDATERS
 * rpmaf__regtab_apply(), rpmaf__regtab_remove() and rpmaf__regtab_prune()
 * are lock-free and thread-safe against each other and against readers;
 * the newest generation of a name always wins, whatever the order in which
 * announcements are applied. A replaced or removed entry (and the object
 * decoded from its descriptor) is freed by a call_rcu callback after a
 * grace period, on a liburcu call_rcu thread.
 *
 * REMOVALS
 * A removal leaves a tombstone: an entry with the removal's generation that
 * lookups do not return, so that an older announcement applied later (a
 * REGION_LIST page taken before the removal, say) cannot bring the region
 * back. rpmaf__regtab_prune() drops tombstones (after a full resync).
 *
 * ERRORS
 * Negative codes in their own range (-200 and below), apart from the public
 * RPMAF_E_* codes of rpmaf.h (-1 to -99) and the protocol's (-100 to -199).
 */

#ifndef RPMAF_REGTAB_H
#define RPMAF_REGTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <urcu/rculfhash.h>

#include "../proto/region.h"
#include "reader.h"

#define RPMAF__REGTAB_E_INVAL  (-200) /* an argument is invalid (NULL, a name out of bounds) */
#define RPMAF__REGTAB_E_NOMEM  (-201) /* memory could not be allocated */
#define RPMAF__REGTAB_E_NOENT  (-202) /* no such region, or it was removed or replaced */
#define RPMAF__REGTAB_E_STALE  (-203) /* the table holds this generation or a newer one */
#define RPMAF__REGTAB_E_DECODE (-204) /* the descriptor hook refused the descriptor */
#define RPMAF__REGTAB_E_BUSY   (-205) /* the table still holds entries (internal error) */

/* a name is 1 to 63 bytes, as on the wire */
#define RPMAF__REGTAB_NAME_MAX 63
#define RPMAF__REGTAB_DESC_MAX RPMAF__PROTO_DESC_MAX

/*
 * What the table does with descriptors, set once at creation.
 * obj_new decodes a descriptor into the object operations use (the client
 * passes a wrapper of rpma_mr_remote_from_descriptor()); it runs in the
 * updater's thread, outside any read-side critical section, and returns 0
 * or a negative code. obj_delete frees such an object (a wrapper of
 * rpma_mr_remote_delete()); it runs on a call_rcu thread after a grace
 * period, or in rpmaf__regtab_delete(), and must be thread-safe. Both may
 * be NULL: entries then carry no object (obj is NULL).
 */
struct rpmaf__regtab_ops {
	int (*obj_new)(const uint8_t *desc, size_t desc_len, void *arg, void **obj);
	void (*obj_delete)(void *obj, void *arg);
	void *arg;
};

/*
 * One region. Every field but the two liburcu links is written before the
 * entry is published and never changes afterwards; readers read them with
 * plain loads inside a read-side critical section. The entry is owned by
 * the table and freed by it after a grace period.
 */
struct rpmaf__regtab_entry {
	struct cds_lfht_node node; /* liburcu's; never touched by users */
	struct rcu_head rcu;	   /* liburcu's; never touched by users */
	struct rpmaf__regtab *tab; /* the table, for the free callback */
	uint64_t size;
	uint64_t generation;
	/*
	 * the oldest generation of the same memory this entry continues: a
	 * change (rpmaf__regtab_change()) keeps the one of the live entry it
	 * replaces; an addition, a listed entry or one after a tombstone starts
	 * with its own generation. An operation submitted against a generation
	 * from since on may still be posted through this entry (same memory).
	 */
	uint64_t since;
	uint32_t target;		       /* index of the owning target in the configuration */
	uint8_t persist;		       /* enum rpmaf__proto_persist */
	uint8_t usage;			       /* RPMAF__PROTO_USAGE_* bits */
	uint8_t name_len;		       /* 1 to RPMAF__REGTAB_NAME_MAX */
	uint8_t desc_len;		       /* 0 exactly in a tombstone */
	bool tombstone;			       /* a removal: lookups skip it */
	void *obj;			       /* from ops.obj_new(), or NULL */
	char name[RPMAF__REGTAB_NAME_MAX + 1]; /* NUL-terminated */
	uint8_t desc[RPMAF__REGTAB_DESC_MAX];
};

/* what rpmaf__regtab_get() copies out: an operation's view of a region */
struct rpmaf__regtab_info {
	uint64_t size;
	uint64_t generation;
	uint32_t target;
	uint8_t persist;
	uint8_t usage;
	uint8_t desc_len;
	uint8_t desc[RPMAF__REGTAB_DESC_MAX];
};

struct rpmaf__regtab;

/*
 * rpmaf__regtab_new -- create an empty table; ops is copied (NULL: no
 * descriptor objects).
 *
 * RETURN VALUE
 * 0 with *tab_ptr set; RPMAF__REGTAB_E_INVAL (tab_ptr NULL),
 * RPMAF__REGTAB_E_NOMEM.
 *
 * CONCURRENCY
 * Thread-safe; the caller need not be a registered RCU thread.
 */
int rpmaf__regtab_new(const struct rpmaf__regtab_ops *ops, struct rpmaf__regtab **tab_ptr);

/*
 * rpmaf__regtab_delete -- remove every entry, wait for every pending
 * call_rcu callback of the flavour (rcu_barrier(): the callbacks of the
 * entries replaced earlier use the table's ops), free the table and set
 * *tab_ptr to NULL. Nothing happens when *tab_ptr is NULL.
 *
 * RETURN VALUE
 * 0; RPMAF__REGTAB_E_INVAL (tab_ptr NULL); RPMAF__REGTAB_E_BUSY if liburcu
 * refused to destroy the hash table (nothing freed then).
 *
 * CONCURRENCY
 * Not thread-safe against any other use of the table: no reader may hold
 * one of its entries and no updater may run. Must not be called inside a
 * read-side critical section nor from a call_rcu callback (rcu_barrier()
 * would deadlock). The caller must be a registered thread (a resident one holding no entry:
 * the barrier takes it offline meanwhile).
 */
int rpmaf__regtab_delete(struct rpmaf__regtab **tab_ptr);

/*
 * rpmaf__regtab_apply -- apply an announcement of a region added or
 * changed (reg->desc_len > 0) for the given target: the region is added,
 * or replaces atomically (cds_lfht_replace) an entry or tombstone of the
 * same name with an older generation. A lookup finds either the old entry
 * or the new one, never neither, never both.
 *
 * RETURN VALUE
 * 0; RPMAF__REGTAB_E_STALE when the table already holds this generation or
 * a newer one (nothing changes: not a failure for an announcement handler);
 * RPMAF__REGTAB_E_INVAL (reg breaks rpmaf__proto_region_check()),
 * RPMAF__REGTAB_E_DECODE (ops.obj_new failed), RPMAF__REGTAB_E_NOMEM.
 *
 * CONCURRENCY
 * Lock-free; thread-safe against readers and other updaters. Call from a
 * registered thread, with or without the read lock held (it takes it).
 */
int rpmaf__regtab_apply(struct rpmaf__regtab *tab, uint32_t target,
			const struct rpmaf__proto_region *reg);

/*
 * rpmaf__regtab_change -- apply the announcement of a region changed in
 * place (ANNOUNCE CHANGED: resized, its usage changed, registered again):
 * as rpmaf__regtab_apply(), in one atomic replacement, but the new entry
 * continues the live entry it replaces (its since is that entry's), so
 * that operations submitted against the older generation may still be
 * posted through it when they fit it (rpmaf__regtab_entry_continues()).
 * Over a tombstone or nothing it is an addition.
 *
 * RETURN VALUE, CONCURRENCY
 * Those of rpmaf__regtab_apply().
 */
int rpmaf__regtab_change(struct rpmaf__regtab *tab, uint32_t target,
			 const struct rpmaf__proto_region *reg);

/*
 * rpmaf__regtab_entry_continues -- whether entry is the region an
 * operation was submitted against at generation gen: that generation, or
 * a later one of the same memory (changed in place since).
 *
 * CONCURRENCY
 * Call with rpmaf__regtab_read_lock() held (the entry's fields are immutable).
 */
static inline bool
rpmaf__regtab_entry_continues(const struct rpmaf__regtab_entry *entry, uint64_t gen)
{
	return entry->generation == gen || (entry->since <= gen && gen < entry->generation);
}

/*
 * rpmaf__regtab_remove -- apply the announcement of the removal of region
 * name at a generation: an entry with an older generation, or none, is
 * replaced by a tombstone. Lookups started after the call returned do not
 * find the region; operations issued through rpmaf__regtab_entry_check()
 * on an entry found earlier then fail with RPMAF__REGTAB_E_NOENT.
 *
 * RETURN VALUE
 * 0; RPMAF__REGTAB_E_STALE (the table holds this generation or a newer
 * one), RPMAF__REGTAB_E_INVAL (name NULL or its length out of bounds),
 * RPMAF__REGTAB_E_NOMEM.
 *
 * CONCURRENCY
 * As rpmaf__regtab_apply().
 */
int rpmaf__regtab_remove(struct rpmaf__regtab *tab, const char *name, size_t name_len,
			 uint64_t generation);

/*
 * rpmaf__regtab_announce -- apply a decoded ANNOUNCE entry: a removal
 * (rpmaf__regtab_remove()) when removed is true, rpmaf__regtab_apply()
 * otherwise.
 *
 * RETURN VALUE, CONCURRENCY
 * Those of the function it calls.
 */
int rpmaf__regtab_announce(struct rpmaf__regtab *tab, uint32_t target,
			   const struct rpmaf__proto_region *reg, bool removed);

/*
 * rpmaf__regtab_prune -- drop every tombstone (after a full REGION_LIST
 * resync, when no older announcement can still arrive).
 *
 * RETURN VALUE
 * The number of tombstones dropped (>= 0); RPMAF__REGTAB_E_INVAL.
 *
 * CONCURRENCY
 * As rpmaf__regtab_apply().
 */
int rpmaf__regtab_prune(struct rpmaf__regtab *tab);

/*
 * rpmaf__regtab_lookup -- the live entry of region name (not a tombstone).
 * No lock, no allocation.
 *
 * RETURN VALUE
 * The entry, valid until the caller's rpmaf__regtab_read_unlock(); NULL
 * when there is none (or an argument is invalid).
 *
 * CONCURRENCY
 * Call with rpmaf__regtab_read_lock() held, from a registered thread.
 * The entry's fields are immutable: read them freely inside the section.
 */
const struct rpmaf__regtab_entry *rpmaf__regtab_lookup(struct rpmaf__regtab *tab, const char *name,
						       size_t name_len);

/*
 * rpmaf__regtab_lookup_str -- rpmaf__regtab_lookup() of a NUL-terminated
 * name, for the data path: the calling thread remembers its last entry
 * found and returns it again, with no hashing, while the table has unlinked
 * nothing since (a replacement or removal of any name forgets it).
 *
 * RETURN VALUE, CONCURRENCY
 * Those of rpmaf__regtab_lookup().
 */
const struct rpmaf__regtab_entry *rpmaf__regtab_lookup_str(struct rpmaf__regtab *tab,
							   const char *name);

/*
 * rpmaf__regtab_entry_check -- whether an operation may still be issued
 * against an entry found earlier in this section: it may while the entry is
 * in the table, not once a removal or a newer generation has replaced it.
 * The check an operation makes as it is issued.
 *
 * RETURN VALUE
 * 0; RPMAF__REGTAB_E_NOENT (removed or replaced since it was found);
 * RPMAF__REGTAB_E_INVAL (entry NULL).
 *
 * CONCURRENCY
 * Call with rpmaf__regtab_read_lock() held, the same section as the lookup.
 */
int rpmaf__regtab_entry_check(const struct rpmaf__regtab_entry *entry);

/*
 * rpmaf__regtab_get -- copy out what an operation needs of region name.
 * Takes and releases the read lock itself.
 *
 * RETURN VALUE
 * 0 with *info filled; RPMAF__REGTAB_E_NOENT; RPMAF__REGTAB_E_INVAL.
 *
 * CONCURRENCY
 * Thread-safe; call from a registered thread.
 */
int rpmaf__regtab_get(struct rpmaf__regtab *tab, const char *name, size_t name_len,
		      struct rpmaf__regtab_info *info);

/*
 * rpmaf__regtab_foreach -- call cb for every live entry (tombstones
 * skipped), in no particular order, until cb returns non-zero. Entries
 * added or removed meanwhile may or may not be seen; an entry replaced
 * meanwhile is seen at most once in each of its generations.
 *
 * RETURN VALUE
 * What the last cb returned (0 when every entry was visited);
 * RPMAF__REGTAB_E_INVAL.
 *
 * CONCURRENCY
 * Call with rpmaf__regtab_read_lock() held; cb runs inside the section and
 * must not block nor call rpmaf__regtab_delete().
 */
int rpmaf__regtab_foreach(struct rpmaf__regtab *tab,
			  int (*cb)(const struct rpmaf__regtab_entry *entry, void *arg), void *arg);

/*
 * rpmaf__regtab_count -- the number of live entries (a traversal: for
 * listing and tests, not for the data path).
 *
 * CONCURRENCY
 * As rpmaf__regtab_foreach().
 */
size_t rpmaf__regtab_count(struct rpmaf__regtab *tab);

#endif /* RPMAF_REGTAB_H */
