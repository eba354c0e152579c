/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by libibverbs and librdmacm replacements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/*
 * The @next links are stored atomically (relaxed: a plain store on the
 * machines we run on), so that softrdma__list_empty_hint() may read a
 * list's head without the lock that guards the list.
 */
static void
softrdma_list_set_next(struct softrdma_list *node, struct softrdma_list *next)
{
	__atomic_store_n(&node->next, next, __ATOMIC_RELAXED);
}

/* Make @head an empty circular list. */
void
softrdma__list_init(struct softrdma_list *head)
{
	softrdma_list_set_next(head, head);
	head->prev = head;
}

/* Append @node at the end of @head. */
void
softrdma__list_add_tail(struct softrdma_list *head, struct softrdma_list *node)
{
	node->prev = head->prev;
	softrdma_list_set_next(node, head);
	softrdma_list_set_next(head->prev, node);
	head->prev = node;
}

/* Unlink @node; it becomes a list of its own so a second del is harmless. */
void
softrdma__list_del(struct softrdma_list *node)
{
	softrdma_list_set_next(node->prev, node->next);
	node->next->prev = node->prev;
	softrdma_list_set_next(node, node);
	node->prev = node;
}

/* Return non-zero when @head holds no node (with the list's lock held). */
int
softrdma__list_empty(const struct softrdma_list *head)
{
	return head->next == head;
}

/*
 * Return non-zero when @head seemed empty: for a thread that does not hold
 * the list's lock and only wants a hint, which may be stale at once.
 */
int
softrdma__list_empty_hint(const struct softrdma_list *head)
{
	return __atomic_load_n(&head->next, __ATOMIC_RELAXED) == head;
}

/* Every event queue of this library, for a forked child to disown. */
static struct {
	pthread_mutex_t lock;
	struct softrdma_list head;
} softrdma_evqs = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .head = {&softrdma_evqs.head, &softrdma_evqs.head},
};

/* Create the eventfd and the list of an event queue. */
int
softrdma__evq_init(struct softrdma_evq *q)
{
	q->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (q->fd < 0)
		return errno;
	pthread_mutex_init(&q->lock, NULL);
	softrdma__list_init(&q->items);
	pthread_mutex_lock(&softrdma_evqs.lock);
	softrdma__list_add_tail(&softrdma_evqs.head, &q->all);
	pthread_mutex_unlock(&softrdma_evqs.lock);
	return 0;
}

/* see util.h */
void *
softrdma__evq_obj_new(size_t size, size_t q_off)
{
	char *obj = calloc(1, size);
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = softrdma__evq_init((struct softrdma_evq *)(obj + q_off));
	if (err) {
		free(obj);
		errno = err;
		return NULL;
	}
	return obj;
}

/* Release an event queue; remaining items belong to the caller. */
void
softrdma__evq_fini(struct softrdma_evq *q)
{
	pthread_mutex_lock(&softrdma_evqs.lock);
	softrdma__list_del(&q->all);
	pthread_mutex_unlock(&softrdma_evqs.lock);
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	pthread_mutex_destroy(&q->lock);
}

/* fork(): keep the list of queues whole across the fork. */
void
softrdma__evq_fork_prepare(void)
{
	pthread_mutex_lock(&softrdma_evqs.lock);
}

/* fork(), in the parent: the list is usable again. */
void
softrdma__evq_fork_parent(void)
{
	pthread_mutex_unlock(&softrdma_evqs.lock);
}

/* fork(), in the child: disown every inherited queue and start an empty list. */
void
softrdma__evq_fork_child(int dead)
{
	struct softrdma_list *n, *next;

	for (n = softrdma_evqs.head.next; n != &softrdma_evqs.head; n = next) {
		struct softrdma_evq *q = SOFTRDMA_CONTAINER_OF(n, struct softrdma_evq, all);

		next = n->next;
		softrdma__fd_disown(&q->fd, dead);
		/* a thread of the parent may have held it: that thread is not here */
		pthread_mutex_init(&q->lock, NULL);
		softrdma__list_init(&q->all);
	}
	softrdma__list_init(&softrdma_evqs.head);
	/* held since prepare, by this very thread */
	pthread_mutex_unlock(&softrdma_evqs.lock);
}

/* A descriptor that reaches nothing: /dev/null, or -1 when it cannot be opened. */
int
softrdma__fd_dead_open(void)
{
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

/* Forked child: make *@fd stop referring to the object it shares with the parent. */
void
softrdma__fd_disown(int *fd, int dead)
{
	if (*fd < 0)
		return;
	if (dead >= 0 && dup3(dead, *fd, O_CLOEXEC) == *fd)
		return;
	close(*fd);
	*fd = -1;
}

/*
 * Queue @item and make the fd readable once more. The count is added after
 * the lock is released: the write wakes the popper, which takes the lock
 * at once, and woken under it, it would find it held and sleep on it again
 * (two futex calls and a context switch more per event). An item withdrawn
 * between the two finds no count to take back (softrdma__evq_forget()):
 * the count then stays, and a popper that takes it finds the queue empty
 * and waits again, as after a withdrawal on a kernel without RWF_NOWAIT.
 */
void
softrdma__evq_push(struct softrdma_evq *q, struct softrdma_list *item)
{
	uint64_t one = 1;

	pthread_mutex_lock(&q->lock);
	softrdma__list_add_tail(&q->items, item);
	pthread_mutex_unlock(&q->lock);
	if (write(q->fd, &one, sizeof(one)) != sizeof(one)) {
		/* The counter cannot overflow with realistic queue sizes. */
	}
}

/*
 * An item left @q (q->lock held) other than through softrdma__evq_pop: take
 * back its count without blocking, whatever the user set on the fd, so the
 * fd is not readable for an item that is gone. A popper that took that
 * count first finds the queue empty and waits again. (A kernel older than
 * 5.12 refuses RWF_NOWAIT on an eventfd: the count then stays.)
 */
void
softrdma__evq_forget(struct softrdma_evq *q)
{
	uint64_t cnt;
	struct iovec iov = {&cnt, sizeof(cnt)};

	if (preadv2(q->fd, &iov, 1, -1, RWF_NOWAIT) < 0) {
		/* EAGAIN: a popper holds it already */
	}
}

/*
 * Wait for and dequeue one item. Honours O_NONBLOCK set by the user on the
 * fd (returns EAGAIN) and is a cancellation point through read().
 */
int
softrdma__evq_pop(struct softrdma_evq *q, struct softrdma_list **item,
		  void (*taken)(struct softrdma_list *item))
{
	uint64_t cnt;
	ssize_t n;

	for (;;) {
		n = read(q->fd, &cnt, sizeof(cnt));
		if (n == sizeof(cnt))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? errno : EIO;
	}
	pthread_mutex_lock(&q->lock);
	if (softrdma__list_empty(&q->items)) {
		/* the item was withdrawn (its owner went away): wait again */
		pthread_mutex_unlock(&q->lock);
		return softrdma__evq_pop(q, item, taken);
	}
	*item = q->items.next;
	softrdma__list_del(*item);
	if (taken)
		taken(*item);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/*
 * Copy from memory that may have been unmapped since registration; the
 * kernel reports EFAULT instead of the process taking a SIGSEGV.
 */
int
softrdma__safe_read(void *dst, const void *src, size_t len)
{
	struct iovec l = {dst, len}, r = {(void *)src, len};
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EFAULT;
}

/* Copy into memory that may have been unmapped or write-protected. */
int
softrdma__safe_write(void *dst, const void *src, size_t len)
{
	struct iovec l = {(void *)src, len}, r = {dst, len};
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EFAULT;
}

/* memcpy between two scatter lists of this process's own memory. */
size_t
softrdma__iov_copy(const struct iovec *dst, int nd, const struct iovec *src, int ns)
{
	size_t doff = 0, soff = 0, done = 0;
	int d = 0, s = 0;

	while (d < nd && s < ns) {
		size_t n = dst[d].iov_len - doff;

		if (n > src[s].iov_len - soff)
			n = src[s].iov_len - soff;
		memcpy((char *)dst[d].iov_base + doff, (const char *)src[s].iov_base + soff, n);
		done += n;
		doff += n;
		soff += n;
		if (doff == dst[d].iov_len) {
			d++;
			doff = 0;
		}
		if (soff == src[s].iov_len) {
			s++;
			soff = 0;
		}
	}
	return done;
}

/*
 * Check through /proc/self/maps that [addr, addr+len) is fully mapped and
 * readable (and writable when @need_write); registration does not pin.
 */
int
softrdma__range_mapped(const void *addr, size_t len, int need_write)
{
	uintptr_t cur = (uintptr_t)addr, end = (uintptr_t)addr + len;
	unsigned long lo, hi;
	char perm[8], line[512];
	FILE *f;
	int ok = 0;

	if (!len)
		return 1;
	if (end < cur)
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3)
			continue;
		if (hi <= cur)
			continue;
		if (lo > cur)
			break;
		if (perm[0] != 'r' || (need_write && perm[1] != 'w'))
			break;
		cur = hi;
		if (cur >= end) {
			ok = 1;
			break;
		}
	}
	fclose(f);
	return ok;
}

/* Monotonic time in nanoseconds. */
uint64_t
softrdma__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Put @fd in non-blocking mode. */
int
softrdma__set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return errno;
	return 0;
}

/* Block every signal in the calling (internal) thread. */
void
softrdma__block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/*
 * Value of environment variable @name, or @def when it is unset or not a
 * whole number of at least @min.
 */
long
softrdma__env_long(const char *name, long def, long min)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtol(v, &end, 10);
	return *end || errno || n < min ? def : n;
}

/*
 * Limits of the connections a listener accepted but whose peer has not
 * named itself yet (a CM request, a data hello): @max from
 * SOFTRDMA_PENDING_MAX (0: derived from the descriptor limit at each
 * accept), @timeout_ns from SOFTRDMA_PENDING_TIMEOUT_MS.
 */
void
softrdma__pending_limits(long *max, uint64_t *timeout_ns)
{
	*max = softrdma__env_long("SOFTRDMA_PENDING_MAX", 0, 1);
	*timeout_ns = (uint64_t)softrdma__env_long("SOFTRDMA_PENDING_TIMEOUT_MS",
						   SOFTRDMA_PENDING_TIMEOUT_MS, 1) *
		      1000000ull;
}

/*
 * How many pending connections a thread keeps: @max when set, otherwise an
 * eighth of the descriptor limit (it may have been lowered since start),
 * within [SOFTRDMA_PENDING_MIN, SOFTRDMA_PENDING_CEIL]. Both threads
 * together then hold at most a quarter of the descriptors in idle sockets,
 * leaving the rest to the application and the connections being made.
 */
long
softrdma__pending_cap(long max)
{
	struct rlimit rl;
	long cap = SOFTRDMA_PENDING_CEIL;

	if (max > 0)
		return max;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 8 < SOFTRDMA_PENDING_CEIL)
		cap = (long)(rl.rlim_cur / 8);
	return cap < SOFTRDMA_PENDING_MIN ? SOFTRDMA_PENDING_MIN : cap;
}

/* Whether an accept4() error @err means descriptors or memory ran out. */
int
softrdma__accept_starved(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

/*
 * One line to stderr, prefixed "softrdma: ", unless SOFTRDMA_LOG=0. Only
 * for what a background thread cannot return to a caller; callers say
 * each condition once, not once per occurrence.
 */
void
softrdma__log(const char *fmt, ...)
{
	const char *v = getenv("SOFTRDMA_LOG");
	char line[256];
	va_list ap;

	if (v && !strcmp(v, "0"))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "softrdma: %s\n", line);
}
