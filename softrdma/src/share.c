// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */
/*
 * Shareable memory regions (share.h): on the target, finding the file
 * behind a registered range and keeping a descriptor of it; on the
 * initiator, mapping a peer's MR from that descriptor, once per MR and
 * connection, and flushing writes to persistent memory.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "share.h"
#include "shm.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* What /proc/self/maps says about the mapping under a registered range. */
struct softrdma_backing {
	unsigned long lo, hi; /* the first mapping covering the range */
	uint64_t dev, ino, foff;
	char path[256];
};

/* Parse one line of /proc/self/maps; 0 when it has the six usual fields. */
static int
softrdma_maps_line(const char *line, unsigned long *lo, unsigned long *hi, char perm[8],
		   uint64_t *off, uint64_t *dev, uint64_t *ino, char *path, size_t plen)
{
	unsigned long long o, i;
	unsigned int ma, mi;
	int n = 0;

	if (sscanf(line, "%lx-%lx %7s %llx %x:%x %llu %n", lo, hi, perm, &o, &ma, &mi, &i, &n) < 7)
		return -1;
	*off = o;
	*dev = makedev(ma, mi);
	*ino = i;
	snprintf(path, plen, "%s", line + n);
	path[strcspn(path, "\n")] = 0;
	return 0;
}

/*
 * Whether [addr, addr+len) is covered by shared mappings of one file at
 * consecutive offsets (writable ones when @write); fills @b.
 */
static int
softrdma_backing_find(uintptr_t addr, size_t len, int write, struct softrdma_backing *b)
{
	uintptr_t cur = addr, end = addr + len;
	unsigned long lo, hi;
	uint64_t off, dev, ino;
	char perm[8], line[512], path[256];
	int found = 0, ok = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (!ok && fgets(line, sizeof(line), f)) {
		if (softrdma_maps_line(line, &lo, &hi, perm, &off, &dev, &ino, path, sizeof(path)))
			continue;
		if (hi <= cur)
			continue;
		if (lo > cur || perm[3] != 's' || !ino || (write && perm[1] != 'w'))
			break;
		if (!found) {
			b->lo = lo;
			b->hi = hi;
			b->dev = dev;
			b->ino = ino;
			b->foff = off + (cur - lo);
			snprintf(b->path, sizeof(b->path), "%s", path);
			found = 1;
		} else if (dev != b->dev || ino != b->ino ||
			   off + (cur - lo) != b->foff + (cur - addr)) {
			break;
		}
		cur = hi;
		ok = cur >= end;
	}
	fclose(f);
	return ok;
}

/* Whether @fd is the file @b names (and, when @write, open for writing). */
static int
softrdma_fd_is(int fd, const struct softrdma_backing *b, int write)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) || st.st_dev != b->dev || st.st_ino != b->ino)
		return 0;
	return !write || (fl & O_ACCMODE) == O_RDWR;
}

/* Open @path and keep it only when it is the file @b names; -1 otherwise. */
static int
softrdma_open_checked(const char *path, const struct softrdma_backing *b, int write)
{
	int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd >= 0 && !softrdma_fd_is(fd, b, write)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * A descriptor of one of this process's open files that is the file @b
 * names: its own open file description (through /proc/self/fd), so the
 * application may close its descriptor; -1 when there is none. Each entry
 * is looked at by its /proc path, never by its number, because another
 * thread may close that number meanwhile (and a new file take it).
 */
static int
softrdma_fd_scan(const struct softrdma_backing *b, int write)
{
	char path[64];
	struct dirent *d;
	int fd = -1, n;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir)
		return -1;
	while (fd < 0 && (d = readdir(dir))) {
		struct stat st;

		n = atoi(d->d_name);
		if (d->d_name[0] < '0' || d->d_name[0] > '9' || n == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", n);
		if (stat(path, &st) || st.st_dev != b->dev || st.st_ino != b->ino)
			continue;
		fd = softrdma_open_checked(path, b, write);
	}
	closedir(dir);
	return fd;
}

/*
 * A descriptor of the file behind @b: through /proc/self/map_files (needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), by its path when it still has
 * one, or from a descriptor the process holds (a memfd, a file opened and
 * mapped). -1 when none of these reaches it.
 */
static int
softrdma_backing_open(const struct softrdma_backing *b, int write)
{
	const char *del = " (deleted)";
	size_t pl = strlen(b->path), dl = strlen(del);
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", b->lo, b->hi);
	fd = softrdma_open_checked(path, b, write);
	if (fd < 0 && b->path[0] == '/' && !(pl >= dl && !strcmp(b->path + pl - dl, del)))
		fd = softrdma_open_checked(b->path, b, write);
	if (fd < 0)
		fd = softrdma_fd_scan(b, write);
	return fd;
}

/* Whether character device @dev is a device-DAX instance (/sys/dev/char/M:m/subsystem). */
static int
softrdma_devdax(dev_t dev)
{
	char path[96], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	return n >= 4 && !strcmp(link + n - 4, "/dax");
}

/*
 * Whether @fd may be mapped by peers for [foff, foff+len), and how: a
 * regular file (or memfd) long enough, DAX when its inode says so, or a
 * device-DAX device. Returns 0 with *@flags, or -1.
 */
static int
softrdma_share_kind(int fd, uint64_t foff, size_t len, uint32_t *flags)
{
	struct statx stx;

	*flags = 0;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &stx))
		return -1;
	if (S_ISCHR(stx.stx_mode)) {
		if (!softrdma_devdax(makedev(stx.stx_rdev_major, stx.stx_rdev_minor)))
			return -1;
		*flags = SOFTRDMA_SHARE_DAX;
		return 0;
	}
	if (!S_ISREG(stx.stx_mode) || stx.stx_size < foff + len)
		return -1;
	if (stx.stx_attributes & STATX_ATTR_DAX)
		*flags = SOFTRDMA_SHARE_DAX | SOFTRDMA_SHARE_FSDAX;
	return 0;
}

/* A file shareable MRs map, with the one descriptor they share. */
struct softrdma_share_file {
	struct softrdma_share_file *next;
	uint64_t dev, ino;
	int write; /* opened for writing */
	int fd;
	int refs; /* MRs holding it */
};

/* The files held (@lock guards the list, its count and every node's @refs). */
static struct {
	pthread_mutex_t lock;
	struct softrdma_share_file *files;
	long nfiles;
} softrdma_share_files = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* How many files may be held at a time: an eighth of the descriptor limit, 16 at least. */
static long
softrdma_share_cap(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	return rl.rlim_cur / 8 > 16 ? (long)(rl.rlim_cur / 8) : 16;
}

/* A held file that is @b's (writable when @write), with a new hold; NULL when none. */
static struct softrdma_share_file *
softrdma_share_find(const struct softrdma_backing *b, int write)
{
	struct softrdma_share_file *f;

	pthread_mutex_lock(&softrdma_share_files.lock);
	for (f = softrdma_share_files.files; f; f = f->next)
		if (f->dev == b->dev && f->ino == b->ino && (f->write || !write))
			break;
	if (f)
		f->refs++;
	pthread_mutex_unlock(&softrdma_share_files.lock);
	return f;
}

/* Open @b's file and hold it; NULL when it cannot be reached or too many are held. */
static struct softrdma_share_file *
softrdma_share_open(const struct softrdma_backing *b, int write)
{
	struct softrdma_share_file *f;
	long n;

	pthread_mutex_lock(&softrdma_share_files.lock);
	n = softrdma_share_files.nfiles;
	pthread_mutex_unlock(&softrdma_share_files.lock);
	if (n >= softrdma_share_cap())
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = softrdma_backing_open(b, write);
	if (f->fd < 0) {
		free(f);
		return NULL;
	}
	f->dev = b->dev;
	f->ino = b->ino;
	f->write = write;
	f->refs = 1;
	pthread_mutex_lock(&softrdma_share_files.lock);
	f->next = softrdma_share_files.files;
	softrdma_share_files.files = f;
	softrdma_share_files.nfiles++;
	pthread_mutex_unlock(&softrdma_share_files.lock);
	return f;
}

/* Registration: find the file behind [addr, addr+len) and hold a descriptor of it. */
void
softrdma__share_probe(const void *addr, size_t len, int access, struct softrdma_share *s)
{
	int write = !!(access & IBV_ACCESS_REMOTE_WRITE);
	struct softrdma_backing b;
	struct softrdma_share_file *f;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!len || !(access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)) ||
	    !softrdma__shm_enabled())
		return;
	if (!softrdma_backing_find((uintptr_t)addr, len, write, &b))
		return;
	f = softrdma_share_find(&b, write);
	if (!f)
		f = softrdma_share_open(&b, write);
	if (!f)
		return;
	s->file = f;
	s->fd = f->fd;
	s->foff = b.foff;
	s->dev = b.dev;
	s->ino = b.ino;
	if (softrdma_share_kind(f->fd, b.foff, len, &s->flags))
		softrdma__share_release(s);
}

/* Deregistration: drop the MR's hold; the last one closes the descriptor. */
void
softrdma__share_release(struct softrdma_share *s)
{
	struct softrdma_share_file *f = s->file, **pp;
	int last;

	s->fd = -1;
	s->file = NULL;
	if (!f)
		return;
	pthread_mutex_lock(&softrdma_share_files.lock);
	last = !--f->refs;
	for (pp = &softrdma_share_files.files; last && *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			softrdma_share_files.nfiles--;
			break;
		}
	}
	pthread_mutex_unlock(&softrdma_share_files.lock);
	if (!last)
		return;
	close(f->fd);
	free(f);
}

/* fork(), in the child: an empty list; inherited holds are orphans their MRs release. */
void
softrdma__share_fork_child(void)
{
	pthread_mutex_init(&softrdma_share_files.lock, NULL);
	softrdma_share_files.files = NULL;
	softrdma_share_files.nfiles = 0;
}

/* Unmap one cache entry and mark it empty. */
void
softrdma__xmap_drop(struct softrdma_xmap *x)
{
	if (x->state == 1)
		munmap(x->map, x->maplen);
	memset(x, 0, sizeof(*x));
}

/* Unmap every entry of a connection's map cache. */
void
softrdma__xmap_clear(struct softrdma_xmap *cache)
{
	int i;

	for (i = 0; cache && i < SOFTRDMA_XMAP_WAYS; i++)
		softrdma__xmap_drop(&cache[i]);
}

/* Fetch descriptor @num of the process behind @pidfd; -1 on failure. */
static int
softrdma_xmap_fetch(int pidfd, int num)
{
	int fd = syscall(SYS_pidfd_getfd, pidfd, num, 0);

	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Map the registered range of entry @e from @fd, after checking that @fd
 * is the file the entry names and holds the whole range (a descriptor
 * number reused since the entry was read names another file). MAP_FAILED
 * on any mismatch or failure.
 */
static void *
softrdma_xmap_map(int fd, const struct softrdma_seg_mr *e, size_t *maplen)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pgoff = e->foff & (uint64_t)(page - 1);
	int prot = PROT_READ | ((e->access & IBV_ACCESS_REMOTE_WRITE) ? PROT_WRITE : 0);
	struct stat st;
	void *m;

	if (fstat(fd, &st) || st.st_dev != e->dev || st.st_ino != e->ino)
		return MAP_FAILED;
	if (!S_ISCHR(st.st_mode) && (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < e->foff ||
				     (uint64_t)st.st_size - e->foff < e->length))
		return MAP_FAILED;
	if (e->length > SIZE_MAX - pgoff - page)
		return MAP_FAILED;
	*maplen = (e->length + pgoff + page - 1) & ~(uint64_t)(page - 1);
	if (e->flags & SOFTRDMA_SHARE_FSDAX)
		return mmap(NULL, *maplen, prot, MAP_SHARED_VALIDATE | MAP_SYNC, fd,
			    e->foff - pgoff);
	m = mmap(NULL, *maplen, prot, MAP_SHARED, fd, e->foff - pgoff);
	return m;
}

/* Requester: the peer's MR of entry @slot mapped here, or NULL (cross-memory attach). */
char *
softrdma__xmap_get(struct softrdma_xmap *cache, int pidfd, uint32_t slot,
		   const struct softrdma_seg_mr *e, uint32_t *flags)
{
	struct softrdma_xmap *x = &cache[slot % SOFTRDMA_XMAP_WAYS];
	long page;
	void *m;
	int fd;

	if (x->state && x->slot == slot && x->key == e->key && x->seq == e->seq) {
		*flags = x->flags;
		return x->state == 1 ? x->base : NULL;
	}
	softrdma__xmap_drop(x);
	x->slot = slot;
	x->key = e->key;
	x->seq = e->seq;
	x->state = 2;
	if (e->fd < 0)
		return NULL;
	fd = softrdma_xmap_fetch(pidfd, e->fd);
	if (fd < 0)
		return NULL;
	m = softrdma_xmap_map(fd, e, &x->maplen);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	page = sysconf(_SC_PAGESIZE);
	x->state = 1;
	x->map = m;
	x->flags = e->flags;
	x->iova = e->iova;
	x->length = e->length;
	x->base = (char *)m + (e->foff & (uint64_t)(page - 1));
	*flags = x->flags;
	return x->base;
}

/* The CPU's cache line write-back instruction: 2 clwb, 1 clflushopt, 0 clflush. */
static int
softrdma_flush_kind(void)
{
	static int kind = -1;
	unsigned int a, b, c, d;
	int k = __atomic_load_n(&kind, __ATOMIC_RELAXED);

	if (k >= 0)
		return k;
	k = 0;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		k = (b & (1u << 24)) ? 2 : (b & (1u << 23)) ? 1 : 0;
	__atomic_store_n(&kind, k, __ATOMIC_RELAXED);
	return k;
}

/* Write back [p, p+len) from the CPU caches, then fence (persistent memory). */
void
softrdma__share_flush(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + len;
	int kind = softrdma_flush_kind();

	for (; a < end; a += 64) {
		if (kind == 2)
			__asm__ volatile("clwb %0" : "+m"(*(volatile char *)a));
		else if (kind == 1)
			__asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)a));
		else
			__asm__ volatile("clflush %0" : "+m"(*(volatile char *)a));
	}
	__asm__ volatile("sfence" ::: "memory");
}
