/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * reader.h -- the threads that read the region table (regtab.h) and how
 * they bracket their read-side sections: liburcu's urcu-qsbr flavour, with
 * occasional readers (online only inside a section) and resident ones (the
 * workers: always online, quiescent between turns, offline while asleep).
 * See regtab.h, RCU FLAVOUR and WHO REGISTERS. Kept apart from the table
 * so that the workers, resident readers, need neither the table nor the
 * protocol it checks entries with.
 */

#ifndef RPMAF_REGTAB_READER_H
#define RPMAF_REGTAB_READER_H

#include <stdbool.h>

#include <urcu/urcu-qsbr.h>

#include "tsan.h"

/*
 * rpmaf__regtab_thread_register -- register the calling thread as an
 * occasional reader (regtab.h, WHO REGISTERS): offline outside its
 * read-side sections.
 *
 * CONCURRENCY
 * Any thread not registered yet; once per thread.
 */
void rpmaf__regtab_thread_register(void);

/*
 * rpmaf__regtab_thread_resident -- register the calling thread as a
 * resident reader (regtab.h, WHO REGISTERS): online from now on, its
 * read-side sections free; it announces quiescent states and goes offline
 * around its sleeps.
 *
 * CONCURRENCY
 * Any thread not registered yet; once per thread.
 */
void rpmaf__regtab_thread_resident(void);

/*
 * rpmaf__regtab_thread_unregister -- undo either registration.
 *
 * CONCURRENCY
 * A registered thread, outside any read-side section.
 */
void rpmaf__regtab_thread_unregister(void);

/*
 * rpmaf__regtab_quiescent -- a resident reader holds no entry found
 * earlier: grace periods waiting for it may end.
 *
 * CONCURRENCY
 * A resident reader, outside any read-side section.
 */
void rpmaf__regtab_quiescent(void);

/*
 * rpmaf__regtab_thread_sleep, rpmaf__regtab_thread_wake -- a resident
 * reader goes offline before it blocks and online again after: grace
 * periods do not wait for it meanwhile (going offline is a quiescent
 * state). It must not read the table between the two.
 *
 * CONCURRENCY
 * A resident reader, outside any read-side section.
 */
void rpmaf__regtab_thread_sleep(void);
void rpmaf__regtab_thread_wake(void);

/* the calling thread's registration (regtab.c): for the inline brackets below only */
struct rpmaf__regtab_reader {
	unsigned depth; /* sections open (an occasional reader: online while > 0) */
	bool resident;	/* rpmaf__regtab_thread_resident(): always online */
};
extern __thread struct rpmaf__regtab_reader rpmaf__regtab_me
    __attribute__((tls_model("initial-exec")));
#ifdef RPMAF_TSAN
extern char rpmaf__regtab_gp_sync; /* released at every unlock, acquired before a free */
#endif

/*
 * rpmaf__regtab_read_lock, rpmaf__regtab_read_unlock -- enter and leave a
 * read-side critical section (regtab.h, READERS): free for a resident
 * reader, liburcu's online and offline for the outermost section of an
 * occasional one.
 *
 * CONCURRENCY
 * Call from a registered thread; sections nest.
 */
static inline void
rpmaf__regtab_read_lock(void)
{
	if (!rpmaf__regtab_me.resident && rpmaf__regtab_me.depth++ == 0)
		urcu_qsbr_thread_online();
}

static inline void
rpmaf__regtab_read_unlock(void)
{
#ifdef RPMAF_TSAN
	tsan_release(&rpmaf__regtab_gp_sync);
#endif
	if (!rpmaf__regtab_me.resident && --rpmaf__regtab_me.depth == 0)
		urcu_qsbr_thread_offline();
}

#endif /* RPMAF_REGTAB_READER_H */
