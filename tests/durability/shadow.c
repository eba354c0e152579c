// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * shadow.c -- an LD_PRELOAD interposer that keeps the "disk" of one file:
 * a shadow file that holds only what a durability call made durable, so
 * that a process killed with SIGKILL leaves in the shadow what a power cut
 * would have left on the device (tests/durability/test-power-loss.sh).
 *
 *   SHADOW_FILE   the file watched (a region file); required
 *   SHADOW_OUT    the shadow: created when missing, written at the offsets
 *                 of the file; required
 *   SHADOW_LOG    optional: one line per durability call that covered the
 *                 file ("msync OFFSET LENGTH", "fsync", "fdatasync")
 *
 * What counts as durable, as on Linux:
 * - msync(addr, len, MS_SYNC) of a shared mapping of the file: the pages
 *   of [addr, addr + len) (msync without MS_SYNC schedules a write-back
 *   and makes nothing durable when it returns: not counted);
 * - fsync(fd) or fdatasync(fd) of the file: all of it.
 * The bytes are taken BEFORE the real call runs (what was in memory when
 * the call began is durable once it returns; what a concurrent writer
 * changes while it runs may or may not be, and the shadow leaves it out)
 * and written into the shadow only AFTER it has returned successfully: the
 * shadow never holds what a call still running has not made durable yet,
 * so a reader of the shadow (rpma-load's RPMA_LOAD_DURABLE_FILE) catches a
 * program that answers before its msync returns. A failed call writes
 * nothing into the shadow.
 *
 * Not interposed: sync(), syncfs(), sync_file_range(), O_SYNC/O_DSYNC
 * writes and the kernel's own write-back: durability they give is missing
 * from the shadow, so a program relying on them fails the check (a false
 * failure, never a false pass). Calls made by libc internally, without
 * the PLT, are not seen either (libpmem2 calls msync through its PLT).
 *
 * CONCURRENCY: any thread; pwrite() at the file's own offsets, no lock.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHADOW_LINE 4352 /* a line of /proc/self/maps: a path of PATH_MAX and the fields */

static int (*Real_msync)(void *, size_t, int);
static int (*Real_fsync)(int);
static int (*Real_fdatasync)(int);
static pthread_once_t Once = PTHREAD_ONCE_INIT;
static int Out = -1; /* SHADOW_OUT */
static int Log = -1; /* SHADOW_LOG, or -1 */

/* the pieces one call takes (a mapping of the file each, mostly one), written once it succeeded */
#define SHADOW_PIECES 16

struct piece {
	char *bytes; /* a copy, malloc()ed */
	uint64_t off, len;
};

/* what one durability call of a thread has taken */
struct taken {
	struct piece p[SHADOW_PIECES];
	unsigned n;
};

/* init -- the real functions and the files of the environment (once) */
static void
init(void)
{
	const char *out = getenv("SHADOW_OUT"), *log = getenv("SHADOW_LOG");

	Real_msync = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "msync");
	Real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	Real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	if (out)
		Out = open(out, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (log)
		Log = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (!getenv("SHADOW_FILE") || Out < 0)
		fprintf(stderr, "shadow: SHADOW_FILE and a writable SHADOW_OUT are needed\n");
}

/*
 * watched -- the resolved path of SHADOW_FILE into path (PATH_MAX bytes), as
 * /proc/self/maps names it; NULL while the file does not exist
 */
static const char *
watched(char *path)
{
	const char *f = getenv("SHADOW_FILE");

	return f && realpath(f, path) ? path : NULL;
}

/* note -- one line of the call log */
static void
note(const char *what, uint64_t off, uint64_t len)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "%s %" PRIu64 " %" PRIu64 "\n", what, off, len);

	if (Log >= 0 && n > 0)
		(void)!write(Log, line, (size_t)n);
}

/* copy_mem -- len bytes of memory at p into the shadow at offset off */
static void
copy_mem(const char *p, uint64_t off, uint64_t len)
{
	while (len) {
		ssize_t n = pwrite(Out, p, len, (off_t)off);

		if (n <= 0)
			return;
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
}

/* take -- a copy of len bytes at p, for the shadow at offset off once the call succeeded */
static void
take(struct taken *t, const char *p, uint64_t off, uint64_t len)
{
	char *c;

	if (t->n == SHADOW_PIECES || !(c = malloc(len ? len : 1)))
		return; /* left out: a false failure of the check, never a false pass */
	memcpy(c, p, len);
	t->p[t->n++] = (struct piece){c, off, len};
}

/* commit -- the pieces into the shadow when ok (the call succeeded), logged as what; freed */
static void
commit(struct taken *t, bool ok, const char *what)
{
	for (unsigned i = 0; i < t->n; i++) {
		if (ok) {
			copy_mem(t->p[i].bytes, t->p[i].off, t->p[i].len);
			note(what, t->p[i].off, t->p[i].len);
		}
		free(t->p[i].bytes);
	}
	t->n = 0;
}

/*
 * map_line -- one line of /proc/self/maps: if it maps the watched file and
 * overlaps [a, b), take the overlap, at its file offset
 */
static void
map_line(struct taken *t, const char *line, uintptr_t a, uintptr_t b, const char *path)
{
	uintptr_t start, end, from, to;
	unsigned long long off;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %*s %*s %n", &start, &end, perms, &off,
		   &pos) < 4 ||
	    !pos || perms[3] != 's' || strcmp(line + pos, path) != 0)
		return;
	if (end <= a || start >= b)
		return;
	from = start > a ? start : a;
	to = end < b ? end : b;
	off += from - start;
	take(t, (const char *)from, off, to - from);
}

/* copy_range -- take the pages of [a, b) that map the watched file */
static void
copy_range(struct taken *t, uintptr_t a, uintptr_t b, const char *path)
{
	char buf[SHADOW_LINE * 2], *nl;
	size_t have = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0 || have) {
		char *s = buf;

		have += n > 0 ? (size_t)n : 0;
		buf[have] = '\0';
		while ((nl = strchr(s, '\n'))) {
			*nl = '\0';
			map_line(t, s, a, b, path);
			s = nl + 1;
		}
		if (n <= 0) /* the last line, without a newline */
			break;
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
	}
	close(fd);
}

/* copy_fd -- take the whole file fd (the watched one?) */
static void
copy_fd(struct taken *t, int fd)
{
	struct stat by_fd, by_name;
	char resolved[PATH_MAX], *c;
	uint64_t off = 0;
	ssize_t n;
	const char *path = watched(resolved);

	if (!path || fstat(fd, &by_fd) || stat(path, &by_name) || by_fd.st_dev != by_name.st_dev ||
	    by_fd.st_ino != by_name.st_ino || !(c = malloc((size_t)by_fd.st_size + 1)))
		return;
	while (off < (uint64_t)by_fd.st_size &&
	       (n = pread(fd, c + off, (size_t)by_fd.st_size - off, (off_t)off)) > 0)
		off += (uint64_t)n;
	t->p[0] = (struct piece){c, 0, off};
	t->n = 1;
}

/* msync -- the pages it makes durable go into the shadow first (MS_SYNC only) */
int
msync(void *addr, size_t len, int flags)
{
	char resolved[PATH_MAX];
	const char *path;
	long page = sysconf(_SC_PAGESIZE);

	struct taken t = {.n = 0};
	int ret;

	pthread_once(&Once, init);
	if ((flags & MS_SYNC) && Out >= 0 && (path = watched(resolved)))
		copy_range(&t, (uintptr_t)addr,
			   (uintptr_t)addr + ((len + (size_t)page - 1) & ~((size_t)page - 1)),
			   path);
	ret = Real_msync(addr, len, flags);
	commit(&t, ret == 0, "msync");
	return ret;
}

/* fsync -- the whole file, taken first, into the shadow once it succeeded */
int
fsync(int fd)
{
	struct taken t = {.n = 0};
	int ret;

	pthread_once(&Once, init);
	if (Out >= 0)
		copy_fd(&t, fd);
	ret = Real_fsync(fd);
	commit(&t, ret == 0, "fsync");
	return ret;
}

/* fdatasync -- as fsync */
int
fdatasync(int fd)
{
	struct taken t = {.n = 0};
	int ret;

	pthread_once(&Once, init);
	if (Out >= 0)
		copy_fd(&t, fd);
	ret = Real_fdatasync(fd);
	commit(&t, ret == 0, "fdatasync");
	return ret;
}
