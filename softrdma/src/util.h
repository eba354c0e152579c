/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers shared by both libraries: intrusive lists, event queues
 * backed by a pollable eventfd, memory copies that survive unmapped memory.
 *
 * Threads: the lists take no lock (their owner's lock guards them); an
 * event queue has its own lock; the rest any thread, no lock; each
 * caller frees what it made.
 */
#ifndef SOFTRDMA_UTIL_H
#define SOFTRDMA_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SOFTRDMA_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct softrdma_list {
	struct softrdma_list *next;
	struct softrdma_list *prev;
};

void softrdma__list_init(struct softrdma_list *head);
void softrdma__list_add_tail(struct softrdma_list *head, struct softrdma_list *node);
void softrdma__list_del(struct softrdma_list *node);
int softrdma__list_empty(const struct softrdma_list *head);
int softrdma__list_empty_hint(const struct softrdma_list *head);

/*
 * A queue of opaque items signalled through an eventfd in semaphore mode:
 * one readable count per queued item, so the fd can be polled and read()
 * blocks (a cancellation point) until an item is available. @lock guards
 * @items. Every queue is also on its library's list of queues (@all,
 * guarded by that list's lock), so a forked child can disown them.
 */
struct softrdma_evq {
	int fd;
	pthread_mutex_t lock;
	struct softrdma_list items;
	struct softrdma_list all;
};

int softrdma__evq_init(struct softrdma_evq *q);
/*
 * @size zeroed bytes of an object holding a struct softrdma_evq at @q_off,
 * that queue made: the object (freed with free() after softrdma__evq_fini),
 * or NULL with errno set (ENOMEM, or evq_init's error).
 */
void *softrdma__evq_obj_new(size_t size, size_t q_off);
void softrdma__evq_fini(struct softrdma_evq *q);
void softrdma__evq_push(struct softrdma_evq *q, struct softrdma_list *item);
/*
 * Take the next item, waiting for one; @taken (may be NULL) runs on it with
 * q->lock still held, so that whoever withdraws items under that lock sees
 * an item either still queued or already accounted for by @taken.
 */
int softrdma__evq_pop(struct softrdma_evq *q, struct softrdma_list **item,
		      void (*taken)(struct softrdma_list *item));
/*
 * With q->lock held, after taking an item off q->items other than through
 * softrdma__evq_pop (its owner went away): the fd stops counting it.
 */
void softrdma__evq_forget(struct softrdma_evq *q);

/*
 * fork() handlers for the list of event queues: prepare takes its lock
 * (after every other lock of the library: nothing is taken under it),
 * parent releases it. In the child every queue inherited from the parent
 * is disowned: its eventfd, shared with the parent, is replaced by @dead
 * (softrdma__fd_disown), so waiting on it fails with EIO at once instead
 * of blocking or consuming the parent's events; its lock is made anew and
 * it leaves the list. Queues made later in the child are the child's own.
 */
void softrdma__evq_fork_prepare(void);
void softrdma__evq_fork_parent(void);
void softrdma__evq_fork_child(int dead);

/*
 * Forked child: a placeholder descriptor (/dev/null, close-on-exec), or -1
 * when none can be opened; the caller closes it when done disowning.
 */
int softrdma__fd_dead_open(void);

/*
 * Forked child: stop *@fd, inherited from the parent, from reaching the
 * parent's object (socket, eventfd, epoll set...). Only the child's
 * reference goes: the parent and its peers see nothing, no shutdown, no
 * message. With a placeholder @dead the number stays taken, now pointing at
 * /dev/null (I/O on it fails or reads end-of-file, epoll refuses it), so
 * code or a user still holding the number never reaches a descriptor the
 * child opens later; without one *@fd is closed and set to -1.
 */
void softrdma__fd_disown(int *fd, int dead);

/*
 * Copy between memory of this process that may have been unmapped (or made
 * read-only) since it was registered: the kernel copies and reports a
 * fault as an error (EFAULT) instead of the process taking a SIGSEGV. For
 * memory a peer reaches (the target of its WRITE, READ or atomic) only;
 * buffers the process uses for its own operations are copied with memcpy.
 */
int softrdma__safe_read(void *dst, const void *src, size_t len);
int softrdma__safe_write(void *dst, const void *src, size_t len);
struct iovec;
/*
 * memcpy from the @ns pieces of @src to the @nd pieces of @dst, as far as
 * both go; returns the bytes copied.
 */
size_t softrdma__iov_copy(const struct iovec *dst, int nd, const struct iovec *src, int ns);
int softrdma__range_mapped(const void *addr, size_t len, int need_write);
uint64_t softrdma__now_ns(void);
int softrdma__set_nonblock(int fd);
void softrdma__block_signals(void);
long softrdma__env_long(const char *name, long def, long min);

/*
 * Connections accepted whose peer has not named itself yet (no CM request,
 * no data hello) are pending: each thread that accepts keeps at most
 * softrdma__pending_cap() of them, closing the oldest to make room (a
 * flood of idle sockets then ages out within the cap, while a peer that
 * speaks at once is served before its turn to go), and closes any still
 * pending SOFTRDMA_PENDING_TIMEOUT_MS after its accept. A listener whose
 * accept4() fails with softrdma__accept_starved() is not watched for
 * SOFTRDMA_ACCEPT_PAUSE_NS, then tried again, and says so once a burst.
 * No locking: these read the environment and the process's limits only.
 */
#define SOFTRDMA_PENDING_TIMEOUT_MS 5000
#define SOFTRDMA_PENDING_MIN	    8
#define SOFTRDMA_PENDING_CEIL	    1024
#define SOFTRDMA_ACCEPT_PAUSE_NS    100000000ull
#define SOFTRDMA_ACCEPT_BATCH	    32
/*
 * A data connection whose hello names a QP in the error state (or one whose
 * last inbound connection is still closing) stays pending and is offered to
 * its QP again every SOFTRDMA_PARKED_RETRY_NS, until the QP takes it after a
 * reset or the pending timeout closes it.
 */
#define SOFTRDMA_PARKED_RETRY_NS 10000000ull
void softrdma__pending_limits(long *max, uint64_t *timeout_ns);
long softrdma__pending_cap(long max);
int softrdma__accept_starved(int err);
void softrdma__log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Private request of the connection manager to the verbs library: with
 * qp_state IBV_QPS_ERR this attribute bit (otherwise meaningful only for
 * RTS -> SQD) asks the QP to first consume, for a bounded time, what its
 * peer sent on the data path before the disconnect, then enter the error
 * state. Only the CM passes it, on DREQ, DREP or loss of the CM connection.
 */
#define SOFTRDMA_QP_DISCONNECT IBV_QP_EN_SQD_ASYNC_NOTIFY

/*
 * Private requests of the connection manager, alone in the attribute mask
 * (bits no rdma-core attribute uses): HOLD while an id points at the QP,
 * RELEASE when it stops. A QP the application destroys with ibv_destroy_qp
 * while held stays allocated, inert, until the release: the CM thread may
 * still move it (a disconnect) after the application freed it.
 */
#define SOFTRDMA_QP_CM_HOLD    (1 << 30)
#define SOFTRDMA_QP_CM_RELEASE (1 << 29)

#endif
