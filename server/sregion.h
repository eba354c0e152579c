/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * sregion.h -- the regions a server exports: one mapped (libpmem2) or
 * allocated piece of memory registered with librpma, and the table of
 * them that the workers read and the control path changes.
 *
 * CONCURRENCY
 * A region is immutable from its insertion (which gives it its generation)
 * until rpmaf__sregion_delete(). The table is read under RCU (urcu-memb, as in
 * regtab/regtab.h) and changed under its mutex:
 * - Snapshots. The table's contents (count, generation, regions in the
 *   order they were exported) are an immutable snapshot that snap points
 *   to. A change never touches a published snapshot: it builds a new one
 *   and publishes it with rcu_xchg_pointer().
 * - Workers read without a lock. The worker threads are registered
 *   urcu-memb readers (workers/worker.c); rpmaf__sregtab_read_lock() opens
 *   a read-side critical section and returns the current snapshot, which,
 *   with every region it names, stays valid until
 *   rpmaf__sregtab_read_unlock(). A request that names a region (a list
 *   page, a lookup, a persist) finds it and uses it inside one section:
 *   no lock, no allocation, no blocking.
 * - Other threads read under the mutex. The application's threads and the
 *   control path are not registered readers: they take the mutex
 *   (rpmaf__sregtab_lock()), which keeps the snapshot and its regions
 *   valid until rpmaf__sregtab_unlock(). These are control-path calls
 *   (rpmaf_server_region_ptr(), rpmaf_server_get_stats(), a stop's
 *   persist), never the data path. The mutex is never taken inside a
 *   read-side section: a writer holds it through a grace period (a
 *   handler on a worker thread may take it, outside any section).
 * - Writers (insert, remove, pop) hold the mutex while they build and
 *   publish a snapshot and while they wait for the grace period that
 *   follows (urcu_memb_synchronize_rcu()); only then is the old snapshot
 *   reused or freed and the call returns. They must not run on a worker
 *   thread nor inside a read-side section: the grace period would wait
 *   for the caller itself.
 * - Freeing. Once rpmaf__sregtab_remove() or rpmaf__sregtab_pop() returns,
 *   no reader can reach the region it took out: the caller owns it and
 *   deletes it. A region in the table is deleted by nobody.
 * - ThreadSanitizer cannot see the ordering of liburcu (not instrumented):
 *   in TSan builds the read lock/unlock and the grace period carry
 *   happens-before annotations, as regtab/ does (sregion.c).
 */

#ifndef RPMAF_SERVER_SREGION_H
#define RPMAF_SERVER_SREGION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpmem2.h>
#include <librpma.h>

#include "rpmaf.h"

#include "../proto/region.h"
#include "../workers/wlog.h"

/* a region that is no mapping of a file (anonymous or the caller's memory): no granularity */
#define RPMAF__SREGION_NO_GRANULARITY (-1)

struct rpmaf__sregion {
	char name[RPMAF__PROTO_NAME_MAX + 1];
	uint8_t name_len;
	uint64_t size;
	uint64_t generation;
	/*
	 * the generation of its first registration under this name: a change
	 * (rpmaf__sregion_change()) keeps it, so that a request naming an older
	 * generation of the same memory (a persist posted before the change) is
	 * still served; set by the insertion, or by the change
	 */
	uint64_t since;
	uint8_t persist;    /* enum rpmaf__proto_persist */
	bool fell_back;	    /* auto with direct_write: GPSPM, APM would not be durable */
	int8_t granularity; /* enum pmem2_granularity of the file's mapping, or NO_GRANULARITY */
	char forced[16];    /* PMEM2_FORCE_GRANULARITY that set it (libpmem2's testing switch) */
	bool memory_fs;	    /* the file is on tmpfs or ramfs: nothing of it is durable */
	uint8_t usage;	    /* RPMAF_USAGE_* */
	bool file;	    /* file-backed (else anonymous or the caller's) */
	bool caller_mem;    /* the caller's memory: not unmapped, not persisted at the end */
	int fd;		    /* the file, locked (filelock.h), or the anonymous memory's memfd; */
			    /* -1 for the caller's memory */
	char *path;	    /* the file's, NULL for anonymous memory */
	bool created;	    /* the file was created for the region */
	bool extended;	    /* the file was extended for the region */
	int64_t old_size;   /* the file's size before */
	struct pmem2_map *map;
	pmem2_persist_fn persist_fn; /* NULL for anonymous memory */
	void *ptr;
	struct rpma_mr_local *mr;
	uint8_t desc[RPMAF__PROTO_DESC_MAX];
	uint8_t desc_len;
	/* the requests that named it, counted by any worker (relaxed atomics) */
	atomic_ullong lookups, persists, persist_bytes;
};

/* the table's contents at one instant: immutable once published */
struct rpmaf__sregsnap {
	uint32_t n;		    /* regions in v */
	uint32_t cap;		    /* room in v */
	uint64_t generation;	    /* of its last change (insert, remove) */
	struct rpmaf__sregion *v[]; /* in the order they were exported */
};

/*
 * snap is read by the workers through rcu_dereference(); everything is
 * written under lock only. spare is the snapshot snap replaced, unreachable
 * since the grace period that followed: a removal builds its snapshot
 * there (it has room for one region more than a removal needs), so that
 * a removal never allocates and never fails for memory.
 */
struct rpmaf__sregtab {
	pthread_mutex_t lock;	       /* serializes the writers and the readers off the workers */
	struct rpmaf__sregsnap *snap;  /* RCU-published; never NULL between init and fini */
	struct rpmaf__sregsnap *spare; /* lock's; NULL before the first insert */
	uint64_t last_gen;	       /* lock's: the newest generation handed out */
};

/*
 * THE RULE of a file region's persistence (doc/DURABILITY.md). APM (the
 * client's flush: an RDMA read after its writes, which returns once they
 * have reached the server's memory) makes them durable only where they
 * land in the power-fail protected domain as they arrive:
 * - the mapping is persistent memory mapped directly (DAX): libpmem2's
 *   store granularity of the mapping is BYTE (eADR: the CPU caches are in
 *   the protected domain) or CACHE_LINE (ADR: the memory controller is,
 *   the caches are not). PAGE is the page cache of a file on a disk (or
 *   on tmpfs): a write stays there until an msync(), which only a GPSPM
 *   persist makes;
 * - and the platform writes the RNIC's data there (direct_write: true, the
 *   operator's word: DDIO off under ADR, or eADR), which no software can
 *   check; librpma calls it direct write to PMem.
 * So: persistence apm where the mapping is PAGE is refused (RPMAF_E_INVAL,
 * logged with the region, the file and the granularity); auto is APM where
 * both hold, GPSPM otherwise; gpspm is GPSPM. GPSPM is durable at every
 * granularity: libpmem2's persist of the mapping (msync at PAGE, cache
 * flushes at CACHE_LINE, a fence at BYTE). Memory that promises no
 * persistence (anonymous) is never refused; the caller's memory
 * (rpmaf__sregion_new_mem()) is exported as the caller says.
 */

/*
 * rpmaf__sregion_new -- map or allocate, and register, the region rc
 * describes (its generation comes with rpmaf__sregtab_insert()); on failure nothing is left behind
 * (a file created is removed, a file extended is cut back). A file is locked (filelock.h) before
 * it is extended, and stays locked until rpmaf__sregion_delete(). RETURN VALUE: 0; RPMAF_E_INVAL
 * (a name that is no protocol name; persistence apm on a mapping where it cannot be durable, see
 * THE RULE above); RPMAF_E_NOMEM; RPMAF_E_IO (open, create, lock, extend, map);
 * RPMAF_E_BUSY (another server or process holds the file's lock; the log names the file and,
 * where it can be known, the holder's pid); RPMAF_E_RDMA.
 * CONCURRENCY: any thread; logs through log.
 */
int rpmaf__sregion_new(const struct rpmaf_cfg_region *rc, struct rpma_peer *peer,
		       const struct rpmaf__wlog *log, struct rpmaf__sregion **r_ptr);

/*
 * rpmaf__sregion_new_mem -- register the caller's memory mr describes
 * (rpmaf_server_region_add_mem()); the memory stays the caller's.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a bad name, size, usage or pointer);
 * RPMAF_E_NOMEM; RPMAF_E_RDMA. CONCURRENCY: any thread; logs through log.
 */
int rpmaf__sregion_new_mem(const struct rpmaf_mem_region *mr, struct rpma_peer *peer,
			   const struct rpmaf__wlog *log, struct rpmaf__sregion **r_ptr);

/*
 * rpmaf__sregion_delete -- persist a file region, deregister, unmap, close
 * (which releases the file's lock: another server may export it then);
 * with undo, also remove the file it created or cut back the file it
 * extended (a failed start leaves nothing behind); *r_ptr becomes NULL.
 * RETURN VALUE: 0; RPMAF_E_RDMA (the deregistration failed, freed anyway).
 * CONCURRENCY: the caller owns r: never inserted, or taken out by
 * rpmaf__sregtab_remove() or rpmaf__sregtab_pop() (no reader reaches it).
 */
int rpmaf__sregion_delete(struct rpmaf__sregion **r_ptr, bool undo, const struct rpmaf__wlog *log);

/*
 * rpmaf__sregion_change -- a new region of rc on the memory of old, for a
 * change in place (rpmaf_server_region_change()): another size or usage,
 * the same bytes. The file (or the anonymous memory's memfd) gets a second
 * descriptor, which shares the file's lock; it is extended first when rc
 * is larger (a file only with rc->create, as at the start: the old bytes
 * are kept), then mapped again (a shared mapping: writes through either
 * mapping land in the same pages) and registered again. Nothing is cut
 * here: old stays mapped and registered, whole, until its owner deletes it
 * (rpmaf__sregion_trim() then cuts a file shrunk). *r_ptr gets the new
 * region, its since that of old (its generation comes with
 * rpmaf__sregtab_replace()).
 * RETURN VALUE: 0; RPMAF_E_INVAL (old is the caller's memory; rc is no
 * region rpmaf__sregion_new() would make, or names another backing, file
 * or persistence method: that is a removal and an addition, logged);
 * RPMAF_E_NOMEM; RPMAF_E_IO (extend, map); RPMAF_E_RDMA. On failure
 * nothing is left (a file extended is cut back).
 * CONCURRENCY: the control path; old must stay valid meanwhile (in the
 * table, which no other change or removal touches); logs through log.
 */
int rpmaf__sregion_change(const struct rpmaf__sregion *old, const struct rpmaf_cfg_region *rc,
			  struct rpma_peer *peer, const struct rpmaf__wlog *log,
			  struct rpmaf__sregion **r_ptr);

/*
 * rpmaf__sregion_trim -- after a change that shrank the region (from
 * old_size bytes) and the deletion of the old one (nothing maps the bytes
 * beyond any more), cut its file back to the region's size: the anonymous
 * memory's always, a file only with create (the server sizes the file it
 * manages) and only when it was the old region's size exactly (bytes that
 * were never the region's are not the server's to cut). A failure is
 * logged: the file keeps its size, the region is served.
 * CONCURRENCY: the control path, owning r's file (the table's mutex not needed).
 */
void rpmaf__sregion_trim(const struct rpmaf__sregion *r, uint64_t old_size, bool create,
			 const struct rpmaf__wlog *log);

/* rpmaf__sregion_entry -- the protocol's entry of r (pointing into r) */
void rpmaf__sregion_entry(const struct rpmaf__sregion *r, struct rpmaf__proto_region *e);

/*
 * rpmaf__sregion_persist -- make [offset, offset + length) persistent (a
 * barrier for anonymous memory). No lock, no allocation.
 * CONCURRENCY: any thread, while r is reachable: inside a read-side section
 * that found it, or under the table's mutex, or owning it.
 */
void rpmaf__sregion_persist(const struct rpmaf__sregion *r, uint64_t offset, uint64_t length);

/*
 * rpmaf__sregtab_init -- an empty table whose first generation (of a
 * region, a removal, the table) will be first_gen: one counter under the
 * table's lock, so that a table's generation is that of its last change.
 * RETURN VALUE: 0; RPMAF_E_NOMEM; RPMAF_E_SYS (the mutex).
 * CONCURRENCY: before any other use of t.
 */
int rpmaf__sregtab_init(struct rpmaf__sregtab *t, uint64_t first_gen);

/*
 * rpmaf__sregtab_fini -- wait for a grace period, free the snapshot and
 * the mutex. The table must be empty (its regions are not deleted here).
 * CONCURRENCY: no other use of t may start any more; not on a worker thread
 * nor inside a read-side section.
 */
void rpmaf__sregtab_fini(struct rpmaf__sregtab *t);

/*
 * rpmaf__sregtab_read_lock -- open a read-side critical section and return
 * the table's snapshot, valid (with its regions) until
 * rpmaf__sregtab_read_unlock(). No lock, no allocation.
 * CONCURRENCY: a registered urcu-memb reader (a worker thread); sections
 * nest; keep them short and never block inside.
 */
const struct rpmaf__sregsnap *rpmaf__sregtab_read_lock(struct rpmaf__sregtab *t);

/* rpmaf__sregtab_read_unlock -- close the section rpmaf__sregtab_read_lock() opened */
void rpmaf__sregtab_read_unlock(void);

/*
 * rpmaf__sregtab_lock -- take the mutex and return the table's snapshot,
 * valid (with its regions) until rpmaf__sregtab_unlock().
 * CONCURRENCY: the control path and the application's threads (not
 * registered readers); not inside a read-side section of the caller.
 */
const struct rpmaf__sregsnap *rpmaf__sregtab_lock(struct rpmaf__sregtab *t);

/* rpmaf__sregtab_unlock -- release the mutex rpmaf__sregtab_lock() took */
void rpmaf__sregtab_unlock(struct rpmaf__sregtab *t);

/*
 * rpmaf__sregion_describe -- at log.level notice, one line of what r is:
 * its name, backing (the file's path, anonymous or the caller's memory),
 * size, persistence method and how its bytes are made durable, e.g.
 * "server: region data: /srv/data.pmem, 64 MiB, GPSPM: a persist is an
 * msync() to the file's device (page granularity: not persistent memory)";
 * and a warning when PMEM2_FORCE_GRANULARITY decided the granularity, or
 * when the file is on a file system in memory (tmpfs: nothing is durable).
 * CONCURRENCY: the control path, r not yet published or its table's mutex held.
 */
void rpmaf__sregion_describe(const struct rpmaf__sregion *r, const struct rpmaf__wlog *log);

/* how a region's bytes are made durable, in the words of the statistics (static strings) */
struct rpmaf__sregion_dur {
	const char *persistence; /* what clients are told: "apm", "gpspm" */
	/*
	 * "msync" (page granularity), "cache_flush" (cache-line), "fence" (byte), "rdma_flush"
	 * (APM: the client's flush, nothing on the server), "application" (the caller's memory:
	 * its persist function, or its word for APM), "none" (volatile memory: a barrier)
	 */
	const char *mechanism;
	const char *granularity; /* "byte", "cache_line", "page"; "none" (anonymous), "unknown" */
};

/*
 * rpmaf__sregion_durability -- r's persistence, mechanism and granularity
 * CONCURRENCY: while r is reachable (its fields do not change once it is made).
 */
void rpmaf__sregion_durability(const struct rpmaf__sregion *r, struct rpmaf__sregion_dur *d);

/*
 * rpmaf__sregtab_find -- the region of s named name (len bytes), or NULL.
 * CONCURRENCY: while s is valid (rpmaf__sregtab_read_lock() or
 * rpmaf__sregtab_lock()); the region is valid as long as s is.
 */
struct rpmaf__sregion *rpmaf__sregtab_find(const struct rpmaf__sregsnap *s, const char *name,
					   size_t len);

/*
 * rpmaf__sregtab_insert -- add r (its name not in the table) with the next
 * generation, which becomes r's and the table's; *gen_ptr gets it.
 * Workers find r once this returns.
 * RETURN VALUE: 0; RPMAF_E_INVAL (the name is taken); RPMAF_E_NOMEM (no
 * memory, or the table holds RPMAF__PROTO_REGIONS_MAX regions).
 * CONCURRENCY: a writer (see above): takes the mutex, waits for a grace
 * period.
 */
int rpmaf__sregtab_insert(struct rpmaf__sregtab *t, struct rpmaf__sregion *r, uint64_t *gen_ptr);

/*
 * rpmaf__sregtab_remove -- take region name out of the table into *r_ptr;
 * *gen_ptr gets the next generation, the removal's and the table's. On
 * return no reader can reach
 * *r_ptr any more: the caller may delete it.
 * RETURN VALUE: 0; RPMAF_E_NOENT (nothing allocated: it cannot fail otherwise).
 * CONCURRENCY: a writer (see above): takes the mutex, waits for a grace
 * period.
 */
int rpmaf__sregtab_remove(struct rpmaf__sregtab *t, const char *name, struct rpmaf__sregion **r_ptr,
			  uint64_t *gen_ptr);

/*
 * rpmaf__sregtab_replace -- put r in old's place (its index: the order of
 * export is kept) with the next generation, which becomes r's and the
 * table's; *gen_ptr gets it. On return no reader reaches old any more (a
 * grace period has passed): the caller owns it and deletes it once nothing
 * posted to it is in flight.
 * RETURN VALUE: 0; RPMAF_E_NOENT (old is not in the table); RPMAF_E_NOMEM
 * (nothing changed).
 * CONCURRENCY: a writer (see above): takes the mutex, waits for a grace
 * period.
 */
int rpmaf__sregtab_replace(struct rpmaf__sregtab *t, struct rpmaf__sregion *old,
			   struct rpmaf__sregion *r, uint64_t *gen_ptr);

/*
 * rpmaf__sregtab_pop -- take the newest region out of the table into
 * *r_ptr, as rpmaf__sregtab_remove() does (to empty it in the reverse of
 * the making).
 * RETURN VALUE: 0; RPMAF_E_NOENT (the table is empty).
 * CONCURRENCY: as rpmaf__sregtab_remove().
 */
int rpmaf__sregtab_pop(struct rpmaf__sregtab *t, struct rpmaf__sregion **r_ptr);

#endif /* RPMAF_SERVER_SREGION_H */
