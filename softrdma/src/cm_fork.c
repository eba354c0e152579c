// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * cm_fork.c -- fork: the CM's lock across fork(), and a forked child disowning the
 * ids it inherited from its parent.
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include <unistd.h>

#include "cm_int.h"

/* fork(), before: the CM's state is whole in the copy (softrdma__cm.lock comes first). */
static void
softrdma_cm_fork_prepare(void)
{
	pthread_mutex_lock(&softrdma__cm.lock);
	softrdma__evq_fork_prepare();
}

/* fork(), in the parent. */
static void
softrdma_cm_fork_parent(void)
{
	softrdma__evq_fork_parent();
	pthread_mutex_unlock(&softrdma__cm.lock);
}

/*
 * Forked child: @id is the parent's. Close the child's reference to its
 * socket (no shutdown, no message: the parent's connection and its peer see
 * nothing), stop its timers and take it off the list of ids.
 */
static void
softrdma_cm_id_disown(struct softrdma_cm_id *id)
{
	if (id->fd >= 0)
		close(id->fd);
	id->fd = -1;
	id->state = CM_ERROR;
	id->deadline = 0;
	id->retry_at = 0;
	id->inherited = 1;
	softrdma__list_init(&id->node);
}

/*
 * fork(), in the child: a CM of its own on first use (thread, epoll set,
 * device context); the parent's channels and ids are disowned, and the
 * context and PD the parent's CM opened are left to the parent's objects
 * that point to them.
 */
static void
softrdma_cm_fork_child(void)
{
	struct softrdma_list *n, *next;
	int dead = softrdma__fd_dead_open();

	softrdma__evq_fork_child(dead);
	if (dead >= 0)
		close(dead);
	pthread_cond_init(&softrdma__cm.cond, NULL);
	/* held since prepare, by this very thread: released, not made anew */
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (!softrdma__cm.started)
		return;
	for (n = softrdma__cm.ids.next; n != &softrdma__cm.ids; n = next) {
		next = n->next;
		softrdma_cm_id_disown(SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node));
	}
	softrdma__list_init(&softrdma__cm.ids);
	softrdma__list_init(&softrdma__cm.pending);
	softrdma__cm.npending = 0;
	close(softrdma__cm.wakefd);
	close(softrdma__cm.epfd);
	softrdma__cm.wakefd = -1;
	softrdma__cm.epfd = -1;
	softrdma__cm.verbs = NULL;
	softrdma__cm.pd = NULL;
	softrdma__cm.started = 0;
}

/*
 * Register the fork handlers when the library is loaded. libibverbs, which
 * this library depends on, registered its own first, so this prepare
 * handler runs before its: softrdma__cm.lock is taken before the verbs' locks, as
 * the CM does everywhere.
 */
__attribute__((constructor)) static void
softrdma_cm_fork_register(void)
{
	if (pthread_atfork(softrdma_cm_fork_prepare, softrdma_cm_fork_parent,
			   softrdma_cm_fork_child)) {
		/* out of memory at load time: fork() then leaves a child unusable */
	}
}
