/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * regtab.c -- the region table: a cds_lfht of struct rpmaf__regtab_entry
 * keyed by name, read under urcu-qsbr, entries freed by call_rcu.
 */

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/wire.h"
#include "regtab.h"

/*
 * ThreadSanitizer cannot see the ordering liburcu provides: its grace
 * periods and its publication barriers live in an uninstrumented library.
 * In TSan builds the table states them with annotations:
 * - publication: the updater releases an entry before it is linked, a
 *   reader acquires it before reading a field;
 * - reclamation: every reader releases rpmaf__regtab_gp_sync as it leaves its
 *   read-side section, and the call_rcu callback acquires it before it
 *   frees an entry (RCU guarantees every section that could hold the entry
 *   has ended by then). A section that still reads an entry after its
 *   unlock, or a free without a grace period, is then a reported race.
 */
#include "tsan.h"

/* the initial number of buckets; the table grows by itself */
#define REGTAB_INIT_BUCKETS 64

struct rpmaf__regtab {
	struct cds_lfht *ht;	      /* owned; entries linked in it are owned too */
	struct rpmaf__regtab_ops ops; /* read-only after creation */
	/*
	 * advanced after every unlink, before the entry is retired: a thread's
	 * last lookup (regtab_last) stands while it is unchanged. Its high 32
	 * bits are the table's number, so that a table made at a freed one's
	 * address never matches what a thread remembers of the old one.
	 */
	_Atomic uint64_t changes;
};

/* tables made so far: the high half of each one's first changes value */
static _Atomic uint64_t regtab_made;

/*
 * the calling thread's last successful rpmaf__regtab_lookup_str(): its
 * entry, and the table's changes value when it was found
 */
struct regtab_last {
	const struct rpmaf__regtab *tab;
	uint64_t changes;
	const struct rpmaf__regtab_entry *e;
};
static __thread struct regtab_last regtab_last __attribute__((tls_model("initial-exec")));

/* a key: the name as the caller gives it (not NUL-terminated) */
struct regtab_key {
	const char *name;
	size_t len;
};

/* regtab_hash -- FNV-1a 64 of a name: cheap, and names are short */
static unsigned long
regtab_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)name[i];
		h *= 0x100000001b3ULL;
	}
	return (unsigned long)h;
}

/* regtab_match -- cds_lfht's match function: node's name is key's */
static int
regtab_match(struct cds_lfht_node *node, const void *key)
{
	const struct rpmaf__regtab_entry *e =
	    caa_container_of(node, struct rpmaf__regtab_entry, node);
	const struct regtab_key *k = key;

	tsan_acquire(e);
	return e->name_len == k->len && memcmp(e->name, k->name, k->len) == 0;
}

/* regtab_entry_free -- free an entry now, with the object decoded from it */
static void
regtab_entry_free(struct rpmaf__regtab_entry *e)
{
	if (e->obj != NULL && e->tab->ops.obj_delete != NULL)
		e->tab->ops.obj_delete(e->obj, e->tab->ops.arg);
	free(e);
}

/* regtab_entry_free_rcu -- call_rcu callback: the grace period of e is over */
static void
regtab_entry_free_rcu(struct rcu_head *head)
{
	struct rpmaf__regtab_entry *e = caa_container_of(head, struct rpmaf__regtab_entry, rcu);
	struct rpmaf__regtab *tab;

#ifdef RPMAF_TSAN
	tsan_acquire(&rpmaf__regtab_gp_sync);
#endif
	/* every field of e, tab included, is read after the retirement's release */
	tsan_acquire(e);
	tab = e->tab;
	regtab_entry_free(e);
	/* done with tab->ops: rpmaf__regtab_delete's barrier waits for this */
	tsan_release(tab);
}

/*
 * regtab_retire -- hand an entry unlinked from the table over to call_rcu;
 * the table's change comes first, so that a reader who still finds the old
 * value began its section before this grace period and holds it back
 */
static void
regtab_retire(struct rpmaf__regtab_entry *e)
{
	atomic_fetch_add(&e->tab->changes, 1);
	tsan_release(e);
	urcu_qsbr_call_rcu(&e->rcu, regtab_entry_free_rcu);
}

/*
 * regtab_entry_of -- the entry at a walk's position, NULL at its end (our
 * own walk: liburcu's cds_lfht_for_each_entry computes container_of(NULL)
 * at the end, undefined behaviour that UBSan reports)
 */
static struct rpmaf__regtab_entry *
regtab_entry_of(struct cds_lfht_iter *iter)
{
	struct cds_lfht_node *node = cds_lfht_iter_get_node(iter);
	struct rpmaf__regtab_entry *e;

	if (node == NULL)
		return NULL;
	e = caa_container_of(node, struct rpmaf__regtab_entry, node);
	tsan_acquire(e);
	return e;
}

/* regtab_first -- the first entry of a walk; call with the read lock held */
static struct rpmaf__regtab_entry *
regtab_first(struct rpmaf__regtab *tab, struct cds_lfht_iter *iter)
{
	cds_lfht_first(tab->ht, iter);
	return regtab_entry_of(iter);
}

/* regtab_next -- the next entry of a walk; call with the read lock held */
static struct rpmaf__regtab_entry *
regtab_next(struct rpmaf__regtab *tab, struct cds_lfht_iter *iter)
{
	cds_lfht_next(tab->ht, iter);
	return regtab_entry_of(iter);
}

/* see regtab.h */
int
rpmaf__regtab_new(const struct rpmaf__regtab_ops *ops, struct rpmaf__regtab **tab_ptr)
{
	struct rpmaf__regtab *tab;

	if (tab_ptr == NULL)
		return RPMAF__REGTAB_E_INVAL;
	tab = calloc(1, sizeof(*tab));
	if (tab == NULL)
		return RPMAF__REGTAB_E_NOMEM;
	if (ops != NULL)
		tab->ops = *ops;
	atomic_init(&tab->changes, (uint64_t)atomic_fetch_add(&regtab_made, 1) << 32);
	tab->ht = cds_lfht_new_flavor(REGTAB_INIT_BUCKETS, REGTAB_INIT_BUCKETS, 0,
				      CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, &urcu_qsbr_flavor,
				      NULL);
	if (tab->ht == NULL) {
		free(tab);
		return RPMAF__REGTAB_E_NOMEM;
	}
	*tab_ptr = tab;
	return 0;
}

/* see regtab.h */
int
rpmaf__regtab_delete(struct rpmaf__regtab **tab_ptr)
{
	struct rpmaf__regtab *tab;
	struct rpmaf__regtab_entry *e;
	struct cds_lfht_iter iter;

	if (tab_ptr == NULL)
		return RPMAF__REGTAB_E_INVAL;
	tab = *tab_ptr;
	if (tab == NULL)
		return 0;
	rpmaf__regtab_read_lock();
	for (e = regtab_first(tab, &iter); e != NULL; e = regtab_next(tab, &iter)) {
		if (cds_lfht_del(tab->ht, &e->node) == 0)
			regtab_retire(e);
	}
	rpmaf__regtab_read_unlock();
	/* the callbacks of every retired entry use tab->ops: let them all run */
	urcu_qsbr_barrier();
	tsan_acquire(tab);
	if (cds_lfht_destroy(tab->ht, NULL) != 0)
		return RPMAF__REGTAB_E_BUSY;
	free(tab);
	*tab_ptr = NULL;
	return 0;
}

/*
 * regtab_continue -- before e replaces old: a change continues a live
 * entry (its since), anything else starts from its own generation (e is
 * not published yet: plain stores, released again for the readers)
 */
static void
regtab_continue(struct rpmaf__regtab_entry *e, const struct rpmaf__regtab_entry *old, bool change)
{
	e->since = change && old && !old->tombstone ? old->since : e->generation;
	tsan_release(e);
}

/*
 * regtab_install -- link e in place of an older generation of its name, or
 * as a new name (a change continues the live entry it replaces); retire
 * what it replaced. Lock-free: a lost race with another updater is retried
 * on the table's new state. e is freed unless it was linked.
 */
static int
regtab_install(struct rpmaf__regtab *tab, struct rpmaf__regtab_entry *e, bool change)
{
	struct regtab_key key = {e->name, e->name_len};
	unsigned long hash = regtab_hash(e->name, e->name_len);
	struct rpmaf__regtab_entry *old = NULL;
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	int ret;

	cds_lfht_node_init(&e->node);
	tsan_release(e);
	rpmaf__regtab_read_lock();
	for (;;) {
		cds_lfht_lookup(tab->ht, hash, regtab_match, &key, &iter);
		node = cds_lfht_iter_get_node(&iter);
		if (node == NULL) {
			/* a new name, unless another updater adds it first */
			regtab_continue(e, NULL, change);
			if (cds_lfht_add_unique(tab->ht, hash, regtab_match, &key, &e->node) ==
			    &e->node) {
				ret = 0;
				break;
			}
			continue;
		}
		old = caa_container_of(node, struct rpmaf__regtab_entry, node);
		if (old->generation >= e->generation) {
			old = NULL;
			ret = RPMAF__REGTAB_E_STALE;
			break;
		}
		regtab_continue(e, old, change);
		/* fails (-ENOENT) only when old left the table meanwhile */
		if (cds_lfht_replace(tab->ht, &iter, hash, regtab_match, &key, &e->node) == 0) {
			ret = 0;
			break;
		}
		old = NULL;
	}
	rpmaf__regtab_read_unlock();
	if (old != NULL)
		regtab_retire(old);
	if (ret != 0)
		regtab_entry_free(e); /* never published: no grace period needed */
	return ret;
}

/* regtab_entry_alloc -- an unpublished entry named name, of tab */
static struct rpmaf__regtab_entry *
regtab_entry_alloc(struct rpmaf__regtab *tab, const char *name, size_t name_len,
		   uint64_t generation)
{
	struct rpmaf__regtab_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->tab = tab;
	e->generation = generation;
	e->name_len = (uint8_t)name_len;
	memcpy(e->name, name, name_len);
	return e;
}

/* regtab_put -- rpmaf__regtab_apply() or, with change, rpmaf__regtab_change() */
static int
regtab_put(struct rpmaf__regtab *tab, uint32_t target, const struct rpmaf__proto_region *reg,
	   bool change)
{
	struct rpmaf__proto_err err;
	struct rpmaf__regtab_entry *e;
	int ret;

	if (tab == NULL || reg == NULL || reg->desc_len == 0 ||
	    rpmaf__proto_region_check(reg, false, "region", &err) != 0)
		return RPMAF__REGTAB_E_INVAL;
	e = regtab_entry_alloc(tab, reg->name, reg->name_len, reg->generation);
	if (e == NULL)
		return RPMAF__REGTAB_E_NOMEM;
	e->size = reg->size;
	e->target = target;
	e->persist = reg->persist;
	e->usage = reg->usage;
	e->desc_len = reg->desc_len;
	memcpy(e->desc, reg->desc, reg->desc_len);
	if (tab->ops.obj_new != NULL) {
		ret = tab->ops.obj_new(e->desc, e->desc_len, tab->ops.arg, &e->obj);
		if (ret != 0) {
			free(e);
			return RPMAF__REGTAB_E_DECODE;
		}
	}
	return regtab_install(tab, e, change);
}

/* see regtab.h */
int
rpmaf__regtab_apply(struct rpmaf__regtab *tab, uint32_t target,
		    const struct rpmaf__proto_region *reg)
{
	return regtab_put(tab, target, reg, false);
}

/* see regtab.h */
int
rpmaf__regtab_change(struct rpmaf__regtab *tab, uint32_t target,
		     const struct rpmaf__proto_region *reg)
{
	return regtab_put(tab, target, reg, true);
}

/* see regtab.h */
int
rpmaf__regtab_remove(struct rpmaf__regtab *tab, const char *name, size_t name_len,
		     uint64_t generation)
{
	struct rpmaf__regtab_entry *e;

	if (tab == NULL || name == NULL || name_len == 0 || name_len > RPMAF__REGTAB_NAME_MAX ||
	    rpmaf__proto_name_check(name, name_len, "name", NULL) != 0)
		return RPMAF__REGTAB_E_INVAL;
	e = regtab_entry_alloc(tab, name, name_len, generation);
	if (e == NULL)
		return RPMAF__REGTAB_E_NOMEM;
	e->tombstone = true;
	return regtab_install(tab, e, false);
}

/* see regtab.h */
int
rpmaf__regtab_announce(struct rpmaf__regtab *tab, uint32_t target,
		       const struct rpmaf__proto_region *reg, bool removed)
{
	if (reg == NULL)
		return RPMAF__REGTAB_E_INVAL;
	if (removed)
		return rpmaf__regtab_remove(tab, reg->name, reg->name_len, reg->generation);
	return rpmaf__regtab_apply(tab, target, reg);
}

/* see regtab.h */
int
rpmaf__regtab_prune(struct rpmaf__regtab *tab)
{
	struct rpmaf__regtab_entry *e;
	struct cds_lfht_iter iter;
	int n = 0;

	if (tab == NULL)
		return RPMAF__REGTAB_E_INVAL;
	rpmaf__regtab_read_lock();
	for (e = regtab_first(tab, &iter); e != NULL; e = regtab_next(tab, &iter)) {
		/* fails when a newer generation replaced the tombstone meanwhile */
		if (e->tombstone && cds_lfht_del(tab->ht, &e->node) == 0) {
			regtab_retire(e);
			n++;
		}
	}
	rpmaf__regtab_read_unlock();
	return n;
}

/* see regtab.h */
const struct rpmaf__regtab_entry *
rpmaf__regtab_lookup(struct rpmaf__regtab *tab, const char *name, size_t name_len)
{
	struct regtab_key key = {name, name_len};
	struct rpmaf__regtab_entry *e;
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	if (tab == NULL || name == NULL || name_len == 0 || name_len > RPMAF__REGTAB_NAME_MAX)
		return NULL;
	cds_lfht_lookup(tab->ht, regtab_hash(name, name_len), regtab_match, &key, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node == NULL)
		return NULL;
	e = caa_container_of(node, struct rpmaf__regtab_entry, node);
	tsan_acquire(e);
	return e->tombstone ? NULL : e;
}

/* see regtab.h */
const struct rpmaf__regtab_entry *
rpmaf__regtab_lookup_str(struct rpmaf__regtab *tab, const char *name)
{
	struct regtab_last *last = &regtab_last;
	const struct rpmaf__regtab_entry *e;
	uint64_t changes;

	if (tab == NULL || name == NULL)
		return NULL;
	changes = atomic_load_explicit(&tab->changes, memory_order_acquire);
	if (last->tab == tab && last->changes == changes && strcmp(last->e->name, name) == 0) {
		tsan_acquire(last->e);
		return last->e;
	}
	e = rpmaf__regtab_lookup(tab, name, strnlen(name, RPMAF__REGTAB_NAME_MAX + 1));
	if (e != NULL)
		*last = (struct regtab_last){tab, changes, e};
	return e;
}

/* see regtab.h */
int
rpmaf__regtab_entry_check(const struct rpmaf__regtab_entry *entry)
{
	if (entry == NULL)
		return RPMAF__REGTAB_E_INVAL;
	return cds_lfht_is_node_deleted(&entry->node) ? RPMAF__REGTAB_E_NOENT : 0;
}

/* see regtab.h */
int
rpmaf__regtab_get(struct rpmaf__regtab *tab, const char *name, size_t name_len,
		  struct rpmaf__regtab_info *info)
{
	const struct rpmaf__regtab_entry *e;

	if (tab == NULL || name == NULL || info == NULL)
		return RPMAF__REGTAB_E_INVAL;
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, name, name_len);
	if (e != NULL) {
		info->size = e->size;
		info->generation = e->generation;
		info->target = e->target;
		info->persist = e->persist;
		info->usage = e->usage;
		info->desc_len = e->desc_len;
		memcpy(info->desc, e->desc, e->desc_len);
	}
	rpmaf__regtab_read_unlock();
	return e != NULL ? 0 : RPMAF__REGTAB_E_NOENT;
}

/* see regtab.h */
int
rpmaf__regtab_foreach(struct rpmaf__regtab *tab,
		      int (*cb)(const struct rpmaf__regtab_entry *entry, void *arg), void *arg)
{
	struct rpmaf__regtab_entry *e;
	struct cds_lfht_iter iter;
	int ret;

	if (tab == NULL || cb == NULL)
		return RPMAF__REGTAB_E_INVAL;
	for (e = regtab_first(tab, &iter); e != NULL; e = regtab_next(tab, &iter)) {
		if (!e->tombstone && (ret = cb(e, arg)) != 0)
			return ret;
	}
	return 0;
}

/* regtab_count_one -- rpmaf__regtab_foreach callback counting entries */
static int
regtab_count_one(const struct rpmaf__regtab_entry *entry, void *arg)
{
	(void)entry;
	(*(size_t *)arg)++;
	return 0;
}

/* see regtab.h */
size_t
rpmaf__regtab_count(struct rpmaf__regtab *tab)
{
	size_t n = 0;

	rpmaf__regtab_foreach(tab, regtab_count_one, &n);
	return n;
}
