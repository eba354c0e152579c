/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool.c -- a remote pool on the target's disk: its part files created or
 * opened, locked, checked, given headers and mapped as one range (see
 * pool.h)
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "pool.h"

#define CREATE_MODE (S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)
#define PAGE_MASK   ((size_t)POOL_HDR_SIZE - 1) /* parts are mapped in whole 4 KiB pages */

/* one part file of an open pool */
struct pool_part {
	int dirfd;	       /* its directory (beneath_parent()), or a negative errno */
	const char *last;      /* its name in that directory: the end of its set path */
	int fd;		       /* -1 while not open */
	bool created;	       /* made by this pool_create() call: unlinked if it fails */
	struct pmem2_map *map; /* its bytes in the reservation; NULL while not mapped */
};

struct pool {
	char *set_path; /* the set file's, relative to the pool set directory */
	dev_t set_dev;	/* the set file read, for POOL_REMOVE_POOL_SET */
	ino_t set_ino;
	struct poolset *set;		  /* its parts' paths made relative to the directory too */
	struct pool_part *parts;	  /* set->nparts */
	unsigned nhdrs;			  /* the parts, from the first, that have a header */
	struct pool_hdr *hdrs;		  /* nhdrs headers as on disk; NULL when nhdrs is 0 */
	struct pmem2_vm_reservation *rsv; /* the pool's address range */
	size_t size;			  /* of the range: the bytes the client addresses */
	pmem2_persist_fn persist;	  /* good for every part (pool_get_persist_fn()) */
	enum pmem2_granularity
	    granularity;	   /* the coarsest of the parts' (pool_get_granularity()) */
	struct pool_hdr_attr attr; /* as created, read or last set */
};

static const struct pool_hdr_attr Zero_attr;

/* err_clear -- an empty message, so that a caller never reads an old one */
static void
err_clear(char *err, size_t err_len)
{
	if (err && err_len)
		err[0] = '\0';
}

/* pmem2_errno -- libpmem2's error code as a negative errno: its own codes have none */
static int
pmem2_errno(int ret)
{
	if (ret > PMEM2_E_UNKNOWN)
		return ret;
	switch (ret) {
	case PMEM2_E_NOSUPP:
	case PMEM2_E_GRANULARITY_NOT_SUPPORTED:
		return -ENOTSUP;
	case PMEM2_E_NO_ACCESS:
		return -EACCES;
	case PMEM2_E_IO_FAIL:
		return -EIO;
	default:
		return -EINVAL;
	}
}

/* attr_is_zero -- all-zero attributes: librpmem's way of asking for a pool without headers */
static bool
attr_is_zero(const struct pool_hdr_attr *attr)
{
	return memcmp(attr, &Zero_attr, sizeof(*attr)) == 0;
}

/* part_path -- the path of part i, for calls and messages */
static const char *
part_path(const struct pool *pool, unsigned i)
{
	return pool->set->parts[i].path;
}

/* part_skip -- the bytes at the start of part i left out of the pool: a later part's header */
static size_t
part_skip(const struct pool *pool, unsigned i)
{
	return i > 0 && i < pool->nhdrs ? POOL_HDR_SIZE : 0;
}

/* part_len -- the bytes part i adds to the pool, from its file offset part_skip() on */
static size_t
part_len(const struct pool *pool, unsigned i)
{
	return (pool->set->parts[i].size & ~PAGE_MASK) - part_skip(pool, i);
}

/*
 * refused -- the message of a lookup beneath the pool set directory that
 * failed with code (beneath.h): a symbolic link on the way or a path that
 * leaves the directory is refused with -EPERM, whatever else with code
 */
static int
refused(char *err, size_t err_len, int code, const char *path, const char *what)
{
	if (code == -ELOOP)
		return errmsg_fail(
		    err, err_len, -EPERM,
		    "%s: refused: a symbolic link on the way (none is followed beneath "
		    "rpmem.poolset_dir)",
		    path);
	if (code == -EXDEV)
		return errmsg_fail(err, err_len, -EPERM, "%s: refused: outside rpmem.poolset_dir",
				   path);
	return errmsg_fail(err, err_len, code, "%s: cannot %s: %s", path, what, strerror(-code));
}

/*
 * set_trust -- the set file open at fd is one the daemon may follow: a
 * regular file, owned by the daemon's user or by root, that no group or
 * other user may write (whoever writes it chooses the files the daemon
 * creates and removes)
 */
static int
set_trust(struct pool *pool, int fd, char *err, size_t err_len)
{
	const char *path = pool->set_path;
	uid_t euid = geteuid();
	struct stat st;

	if (fstat(fd, &st))
		return errmsg_fail(err, err_len, -errno, "%s: cannot stat: %s", path,
				   strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg_fail(err, err_len, -EINVAL, "%s: not a regular file", path);
	if (st.st_uid != euid && st.st_uid != 0)
		return errmsg_fail(
		    err, err_len, -EPERM,
		    "%s: refused: owned by uid %u, neither the daemon's (%u) nor root", path,
		    (unsigned)st.st_uid, (unsigned)euid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return errmsg_fail(err, err_len, -EPERM,
				   "%s: refused: mode %04o lets %s write it (chmod go-w)", path,
				   (unsigned)(st.st_mode & 07777),
				   (st.st_mode & S_IWOTH) ? "anyone" : "its group");
	pool->set_dev = st.st_dev;
	pool->set_ino = st.st_ino;
	return 0;
}

/*
 * set_read -- the set file's bytes, POOLSET_MAX_FILE + 1 at most
 * (poolset_parse() refuses more), opened beneath dir and trusted
 * (set_trust()); O_NONBLOCK, so that a FIFO planted there cannot hang the
 * daemon before it is refused
 */
static int
set_read(struct pool *pool, const struct beneath_dir *dir, char **text_ptr, size_t *len_ptr,
	 char *err, size_t err_len)
{
	const char *path = pool->set_path;
	const size_t cap = POOLSET_MAX_FILE + 1;
	char *text = malloc(cap);
	size_t len = 0;
	ssize_t n = 1;
	int ret = 0, fd;

	if (text == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", path);
	fd = beneath_open(dir, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		ret = refused(err, err_len, fd, path, "open");
		goto err_free_text;
	}
	ret = set_trust(pool, fd, err, err_len);
	while (ret == 0 && len < cap && n != 0) {
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno != EINTR) {
			ret = errmsg_fail(err, err_len, -errno, "%s: cannot read: %s", path,
					  strerror(errno));
			break;
		}
		len += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	if (ret)
		goto err_free_text;
	*text_ptr = text;
	*len_ptr = len;
	return 0;

err_free_text:
	free(text);
	return ret;
}

/* parts_alloc -- the pool's arrays of parts (none open) and of headers */
static int
parts_alloc(struct pool *pool, char *err, size_t err_len)
{
	pool->nhdrs = poolset_nhdrs(pool->set);
	pool->parts = calloc(pool->set->nparts, sizeof(*pool->parts));
	if (pool->parts == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", pool->set_path);
	for (unsigned i = 0; i < pool->set->nparts; i++) {
		pool->parts[i].fd = -1;
		pool->parts[i].dirfd = -ENOENT;
	}
	if (pool->nhdrs == 0)
		return 0;
	pool->hdrs = calloc(pool->nhdrs, sizeof(*pool->hdrs));
	if (pool->hdrs == NULL) {
		free(pool->parts);
		pool->parts = NULL;
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", pool->set_path);
	}
	return 0;
}

/* pool_size -- the bytes the client addresses: the manual's remote pool size and a header */
static size_t
pool_size(const struct pool *pool)
{
	size_t size = 0;

	(void)poolset_pool_size(pool->set, &size); /* a parsed set has a size */
	return size + (pool->nhdrs ? POOL_HDR_SIZE : 0);
}

/* set_name -- the set file's path made relative to dir into pool->set_path (beneath_rel()) */
static int
set_name(struct pool *pool, const struct beneath_dir *dir, const char *name, char *err,
	 size_t err_len)
{
	char rel[PATH_MAX];
	int ret = beneath_rel(dir, name, rel, sizeof(rel));

	if (ret == 0 && rel[0] == '\0')
		ret = -EISDIR;
	if (ret)
		return refused(err, err_len, ret, name, "resolve");
	/* not strdup(): the tests make malloc() fail, and strdup() calls libc's own */
	pool->set_path = malloc(strlen(rel) + 1);
	if (pool->set_path == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", rel);
	strcpy(pool->set_path, rel);
	return 0;
}

/*
 * part_resolve -- part i's path as the set file writes it made relative to
 * dir (a path outside is refused, naming the set file, its line and the
 * part as written), and its directory opened; a directory that is missing
 * is left for part_create() and part_open() to report (dirfd -ENOENT)
 */
static int
part_resolve(struct pool *pool, const struct beneath_dir *dir, unsigned i, char *err,
	     size_t err_len)
{
	struct poolset_part *sp = &pool->set->parts[i];
	struct pool_part *part = &pool->parts[i];
	char rel[PATH_MAX], *copy;
	int ret = beneath_rel(dir, sp->path, rel, sizeof(rel));

	if (ret == -EXDEV)
		return errmsg_fail(err, err_len, -EPERM,
				   "%s:%u: refused: part '%s' is outside rpmem.poolset_dir",
				   pool->set_path, sp->line, sp->path);
	if (ret == 0 && rel[0] == '\0')
		ret = -EISDIR;
	if (ret)
		return errmsg_fail(err, err_len, ret, "%s:%u: part '%s': %s", pool->set_path,
				   sp->line, sp->path, strerror(-ret));
	copy = malloc(strlen(rel) + 1);
	if (copy == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", pool->set_path);
	strcpy(copy, rel);
	free(sp->path);
	sp->path = copy;
	part->dirfd = beneath_parent(dir, sp->path, &part->last);
	if (part->dirfd >= 0 || part->dirfd == -ENOENT)
		return 0;
	return refused(err, err_len, part->dirfd, sp->path, "open the directory of");
}

/* parts_resolve -- every part resolved (part_resolve()); no two parts are one file */
static int
parts_resolve(struct pool *pool, const struct beneath_dir *dir, char *err, size_t err_len)
{
	const struct poolset *set = pool->set;

	for (unsigned i = 0; i < set->nparts; i++) {
		int ret = part_resolve(pool, dir, i, err, err_len);

		if (ret)
			return ret;
		for (unsigned k = 0; k < i; k++) {
			if (strcmp(set->parts[k].path, set->parts[i].path) == 0)
				return errmsg_fail(
				    err, err_len, -EINVAL, "%s:%u: the part is the file of line %u",
				    pool->set_path, set->parts[i].line, set->parts[k].line);
		}
	}
	return 0;
}

/* pool_free -- what pool_new() allocated and opened (the parts closed before) */
static void
pool_free(struct pool *pool)
{
	for (unsigned i = 0; pool->parts && i < pool->set->nparts; i++) {
		if (pool->parts[i].dirfd >= 0)
			close(pool->parts[i].dirfd);
	}
	free(pool->hdrs);
	free(pool->parts);
	poolset_delete(&pool->set);
	free(pool->set_path);
	free(pool);
}

/*
 * pool_new -- a pool of the set file name beneath dir, read (set_read()),
 * parsed and its parts resolved (parts_resolve()), nothing open but their
 * directories
 */
static int
pool_new(const struct beneath_dir *dir, const char *name, struct pool **pool_ptr, char *err,
	 size_t err_len)
{
	struct pool *pool = calloc(1, sizeof(*pool));
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (pool == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "out of memory");
	ret = set_name(pool, dir, name, err, err_len);
	ret = ret ? ret : set_read(pool, dir, &text, &len, err, err_len);
	if (ret)
		goto err_free_pool;
	ret = poolset_parse(text, len, pool->set_path, &pool->set, err, err_len);
	free(text);
	ret = ret ? ret : parts_alloc(pool, err, err_len);
	if (ret)
		goto err_free_pool;
	ret = parts_resolve(pool, dir, err, err_len);
	if (ret)
		goto err_free_pool;
	pool->size = pool_size(pool);
	*pool_ptr = pool;
	return 0;

err_free_pool:
	pool_free(pool);
	return ret;
}

/* size_check -- the pool holds the size the client asks for */
static int
size_check(const struct pool *pool, size_t size, char *err, size_t err_len)
{
	if (size <= pool->size)
		return 0;
	return errmsg_fail(err, err_len, -EFBIG, "%s: the pool is %zu bytes, %zu requested",
			   pool->set_path, pool->size, size);
}

/* attr_check -- the attributes fit the set: none for NOHDRS, else some, with its SINGLEHDR bit */
static int
attr_check(const struct pool *pool, const struct pool_hdr_attr *attr, char *err, size_t err_len)
{
	const char *set_path = pool->set_path;
	bool single_opt = pool->set->options & POOLSET_OPT_SINGLEHDR;
	bool single_bit = attr->id.incompat_features & POOL_FEAT_SINGLEHDR;

	if (pool->nhdrs == 0 && !attr_is_zero(attr))
		return errmsg_fail(err, err_len, -EINVAL,
				   "%s: OPTION NOHDRS: a pool without headers takes no attributes",
				   set_path);
	if (pool->nhdrs == 0)
		return 0;
	if (attr_is_zero(attr))
		return errmsg_fail(
		    err, err_len, -EINVAL,
		    "%s: no attributes for a pool with headers (only a NOHDRS set takes none)",
		    set_path);
	if (single_opt != single_bit)
		return errmsg_fail(
		    err, err_len, -EINVAL,
		    "%s: the attributes' incompat features 0x%x %s SINGLEHDR (0x%x), the set "
		    "%s OPTION SINGLEHDR",
		    set_path, attr->id.incompat_features, single_bit ? "have" : "lack",
		    POOL_FEAT_SINGLEHDR, single_opt ? "has" : "has no");
	return 0;
}

/* part_lock -- part i's open file description locked: no other pool, create or remove uses it */
static int
part_lock(const struct pool *pool, unsigned i, char *err, size_t err_len)
{
	if (flock(pool->parts[i].fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		return errmsg_fail(err, err_len, -EBUSY, "%s: in use: locked by another open pool",
				   part_path(pool, i));
	return errmsg_fail(err, err_len, -errno, "%s: cannot lock: %s", part_path(pool, i),
			   strerror(errno));
}

/* part_allocate -- part i's blocks allocated to its full size and the size made durable */
static int
part_allocate(const struct pool *pool, unsigned i, char *err, size_t err_len)
{
	const struct pool_part *part = &pool->parts[i];
	size_t size = pool->set->parts[i].size;
	int ret;

	do
		ret = posix_fallocate(part->fd, 0, (off_t)size);
	while (ret == EINTR);
	if (ret)
		return errmsg_fail(err, err_len, -ret, "%s: cannot allocate %zu bytes: %s",
				   part_path(pool, i), size, strerror(ret));
	if (fdatasync(part->fd))
		return errmsg_fail(err, err_len, -errno, "%s: cannot sync: %s", part_path(pool, i),
				   strerror(errno));
	return 0;
}

/*
 * part_create -- part i made anew (never over an existing file), locked and
 * allocated; what it did is undone by parts_close(pool, true)
 */
static int
part_create(struct pool *pool, unsigned i, char *err, size_t err_len)
{
	struct pool_part *part = &pool->parts[i];
	int ret;

	if (part->dirfd < 0)
		return errmsg_fail(err, err_len, part->dirfd,
				   "%s: cannot create: its directory: %s", part_path(pool, i),
				   strerror(-part->dirfd));
	/* O_EXCL: a symbolic link there is not followed either */
	part->fd =
	    openat(part->dirfd, part->last, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, CREATE_MODE);
	if (part->fd < 0)
		return errmsg_fail(err, err_len, -errno, "%s: cannot create: %s",
				   part_path(pool, i), strerror(errno));
	/*
	 * created only once locked: another pool that opened the new file in
	 * between holds it now, and a failure here must not unlink its file
	 */
	ret = part_lock(pool, i, err, err_len);
	if (ret)
		return ret;
	part->created = true;
	return part_allocate(pool, i, err, err_len);
}

/* parts_close -- every open part closed (and unlocked), in reverse; unlinked first if created */
static void
parts_close(struct pool *pool, bool unlink_created)
{
	for (unsigned i = pool->set->nparts; i > 0; i--) {
		struct pool_part *part = &pool->parts[i - 1];

		if (unlink_created && part->created)
			(void)unlinkat(part->dirfd, part->last, 0);
		part->created = false;
		if (part->fd >= 0)
			close(part->fd);
		part->fd = -1;
	}
}

/* parts_create -- every part made by part_create(); none left behind when one fails */
static int
parts_create(struct pool *pool, char *err, size_t err_len)
{
	for (unsigned i = 0; i < pool->set->nparts; i++) {
		int ret = part_create(pool, i, err, err_len);

		if (ret) {
			parts_close(pool, true);
			return ret;
		}
	}
	return 0;
}

/*
 * part_same_file -- part i's path still names the file locked: a remove
 * that unlinked it, or a create that replaced it, between our open() and
 * our lock leaves us holding a file that is not the pool's
 */
static int
part_same_file(const struct pool *pool, unsigned i, char *err, size_t err_len)
{
	const struct pool_part *part = &pool->parts[i];
	const char *path = part_path(pool, i);
	struct stat by_fd, by_name;

	if (fstat(part->fd, &by_fd))
		return errmsg_fail(err, err_len, -errno, "%s: cannot stat: %s", path,
				   strerror(errno));
	if (fstatat(part->dirfd, part->last, &by_name, AT_SYMLINK_NOFOLLOW))
		return errmsg_fail(err, err_len, -errno, "%s: cannot stat: %s%s", path,
				   strerror(errno),
				   errno == ENOENT ? " (removed while being opened)" : "");
	if (by_fd.st_dev != by_name.st_dev || by_fd.st_ino != by_name.st_ino)
		return errmsg_fail(err, err_len, -EBUSY, "%s: replaced while being opened", path);
	return 0;
}

/* part_open -- part i opened and locked; a missing one is passed over when missing_ok */
static int
part_open(struct pool *pool, unsigned i, bool missing_ok, char *err, size_t err_len)
{
	struct pool_part *part = &pool->parts[i];
	int ret;

	part->fd = part->dirfd < 0
		       ? part->dirfd
		       : openat(part->dirfd, part->last, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (part->fd < 0 && part->dirfd >= 0)
		part->fd = -errno;
	if (part->fd == -ENOENT && missing_ok) {
		part->fd = -1;
		return 0;
	}
	if (part->fd < 0) {
		ret = refused(err, err_len, part->fd, part_path(pool, i), "open");
		part->fd = -1;
		return ret;
	}
	ret = part_lock(pool, i, err, err_len);
	if (ret)
		return ret;
	ret = part_same_file(pool, i, err, err_len);
	if (ret == -ENOENT && missing_ok) {
		close(part->fd);
		part->fd = -1;
		return 0;
	}
	return ret;
}

/* parts_open -- every part opened by part_open(); none left open when one fails */
static int
parts_open(struct pool *pool, bool missing_ok, char *err, size_t err_len)
{
	for (unsigned i = 0; i < pool->set->nparts; i++) {
		int ret = part_open(pool, i, missing_ok, err, err_len);

		if (ret) {
			parts_close(pool, false);
			return ret;
		}
	}
	return 0;
}

/* part_check_size -- part i is a regular file of the size its set file gives */
static int
part_check_size(const struct pool *pool, unsigned i, char *err, size_t err_len)
{
	const struct poolset_part *sp = &pool->set->parts[i];
	struct stat st;

	if (fstat(pool->parts[i].fd, &st))
		return errmsg_fail(err, err_len, -errno, "%s: cannot stat: %s", sp->path,
				   strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg_fail(err, err_len, -EINVAL, "%s: not a regular file", sp->path);
	if ((uintmax_t)st.st_size != sp->size)
		return errmsg_fail(err, err_len, -EUCLEAN,
				   "%s: %jd bytes, the set file gives the part %zu (line %u)",
				   sp->path, (intmax_t)st.st_size, sp->size, sp->line);
	return 0;
}

/* hdr_read -- the header of part i, read and verified on its own, into pool->hdrs[i] */
static int
hdr_read(struct pool *pool, unsigned i, char *err, size_t err_len)
{
	unsigned char buf[POOL_HDR_SIZE];
	ssize_t n;

	do
		n = pread(pool->parts[i].fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errmsg_fail(err, err_len, -errno, "%s: cannot read the pool header: %s",
				   part_path(pool, i), strerror(errno));
	return pool_hdr_decode(part_path(pool, i), buf, (size_t)n, &pool->hdrs[i], err, err_len);
}

/* hdrs_check_set -- the headers agree with each other and with the set's SINGLEHDR option */
static int
hdrs_check_set(const struct pool *pool, char *err, size_t err_len)
{
	bool single_opt = pool->set->options & POOLSET_OPT_SINGLEHDR;
	bool single_bit = pool->hdrs[0].id.incompat_features & POOL_FEAT_SINGLEHDR;
	char why[POOL_HDR_ERR_MAX];
	int ret;

	ret = pool_hdr_check_set(pool->hdrs, pool->nhdrs, why, sizeof(why));
	if (ret)
		return errmsg_fail(err, err_len, ret, "%s: %s", pool->set_path, why);
	if (single_opt != single_bit)
		return errmsg_fail(
		    err, err_len, -EUCLEAN,
		    "%s: the header's incompat features 0x%x %s SINGLEHDR (0x%x), the set "
		    "%s OPTION SINGLEHDR",
		    part_path(pool, 0), pool->hdrs[0].id.incompat_features,
		    single_bit ? "have" : "lack", POOL_FEAT_SINGLEHDR,
		    single_opt ? "has" : "has no");
	return 0;
}

/* parts_check -- the open parts make the pool: sizes, headers, agreement; attributes from them */
static int
parts_check(struct pool *pool, char *err, size_t err_len)
{
	int ret;

	for (unsigned i = 0; i < pool->set->nparts; i++) {
		ret = part_check_size(pool, i, err, err_len);
		if (ret)
			return ret;
	}
	for (unsigned i = 0; i < pool->nhdrs; i++) {
		ret = hdr_read(pool, i, err, err_len);
		if (ret)
			return ret;
	}
	if (pool->nhdrs == 0) {
		pool->attr = Zero_attr;
		return 0;
	}
	ret = hdrs_check_set(pool, err, err_len);
	if (ret)
		return ret;
	pool_hdr_get_attr(&pool->hdrs[0], &pool->attr);
	return 0;
}

/* uuids_keep -- the UUIDs of the n parts with headers: the first from attr, the others from old */
static void
uuids_keep(const struct pool_hdr_attr *attr, const struct pool_hdr *old, unsigned n,
	   unsigned char (*uuids)[POOL_HDR_UUID_LEN])
{
	memcpy(uuids[0], attr->id.uuid, POOL_HDR_UUID_LEN);
	for (unsigned i = 1; i < n; i++)
		memcpy(uuids[i], old[i].id.uuid, POOL_HDR_UUID_LEN);
}

/*
 * hdrs_make -- the headers of the pool's parts, with attributes attr, into
 * out: new ones (random UUIDs for the later parts, created now) when old
 * is NULL, else old's UUIDs but the first, creation times and shutdown
 * states, as rpmem_set_attr() keeps them
 */
static int
hdrs_make(const struct pool *pool, const struct pool_hdr_attr *attr, const struct pool_hdr *old,
	  struct pool_hdr *out, char *err, size_t err_len)
{
	unsigned n = pool->nhdrs;
	unsigned char(*uuids)[POOL_HDR_UUID_LEN] = calloc(n, POOL_HDR_UUID_LEN);
	uint64_t now = (uint64_t)time(NULL);
	int ret = 0;

	if (uuids == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", pool->set_path);
	if (old)
		uuids_keep(attr, old, n, uuids);
	else
		ret = pool_hdr_uuids_new(attr, n, uuids);
	if (ret) {
		ret = errmsg_fail(err, err_len, ret, "%s: no random bytes for the parts' UUIDs: %s",
				  pool->set_path, strerror(-ret));
		goto out_free;
	}
	for (unsigned i = 0; i < n && ret == 0; i++) {
		ret = pool_hdr_build(attr, (const unsigned char(*)[POOL_HDR_UUID_LEN])uuids, n, i,
				     old ? old[i].crtime : now, &out[i]);
		if (old && ret == 0)
			memcpy(out[i].sds, old[i].sds, POOL_HDR_SDS_LEN);
	}
	if (ret)
		ret = errmsg_fail(err, err_len, ret, "%s: invalid attributes", pool->set_path);
out_free:
	free(uuids);
	return ret;
}

/* hdr_write -- hdrs[i] written at the start of part i and synced */
static int
hdr_write(const struct pool *pool, const struct pool_hdr *hdrs, unsigned i, char *err,
	  size_t err_len)
{
	unsigned char buf[POOL_HDR_SIZE];
	ssize_t n;

	pool_hdr_encode(&hdrs[i], buf);
	do
		n = pwrite(pool->parts[i].fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && n != (ssize_t)sizeof(buf))
		errno = EIO; /* a short write of a block within the file's size */
	if (n != (ssize_t)sizeof(buf))
		return errmsg_fail(err, err_len, -errno, "%s: cannot write the pool header: %s",
				   part_path(pool, i), strerror(errno));
	if (fdatasync(pool->parts[i].fd))
		return errmsg_fail(err, err_len, -errno, "%s: cannot sync the pool header: %s",
				   part_path(pool, i), strerror(errno));
	return 0;
}

/* hdrs_write -- every header of hdrs written and synced, in the parts' order */
static int
hdrs_write(const struct pool *pool, const struct pool_hdr *hdrs, char *err, size_t err_len)
{
	for (unsigned i = 0; i < pool->nhdrs; i++) {
		int ret = hdr_write(pool, hdrs, i, err, err_len);

		if (ret)
			return ret;
	}
	return 0;
}

/* part_map -- part i's pool bytes mapped at offset off of the pool's reservation */
static int
part_map(struct pool *pool, unsigned i, size_t off, char *err, size_t err_len)
{
	struct pmem2_config *cfg = NULL;
	struct pmem2_source *src = NULL;
	int ret = pmem2_config_new(&cfg);

	ret = ret ? ret : pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE);
	ret = ret ? ret : pmem2_config_set_offset(cfg, part_skip(pool, i));
	ret = ret ? ret : pmem2_config_set_length(cfg, part_len(pool, i));
	ret = ret ? ret : pmem2_config_set_vm_reservation(cfg, pool->rsv, off);
	ret = ret ? ret : pmem2_source_from_fd(&src, pool->parts[i].fd);
	ret = ret ? ret : pmem2_map_new(&pool->parts[i].map, cfg, src);
	(void)pmem2_source_delete(&src);
	(void)pmem2_config_delete(&cfg);
	if (ret)
		return errmsg_fail(err, err_len, pmem2_errno(ret), "%s: cannot map: %s",
				   part_path(pool, i), pmem2_errormsg());
	return 0;
}

/* pool_unmap -- every part unmapped, in reverse, then the reservation; the first error */
static int
pool_unmap(struct pool *pool, char *err, size_t err_len)
{
	int ret = 0;

	for (unsigned i = pool->set->nparts; i > 0; i--) {
		struct pool_part *part = &pool->parts[i - 1];
		int r = part->map ? pmem2_map_delete(&part->map) : 0;

		if (r && ret == 0)
			ret = errmsg_fail(err, err_len, pmem2_errno(r), "%s: cannot unmap: %s",
					  part_path(pool, i - 1), pmem2_errormsg());
	}
	if (pool->rsv) {
		int r = pmem2_vm_reservation_delete(&pool->rsv);

		if (r && ret == 0)
			ret = errmsg_fail(err, err_len, pmem2_errno(r),
					  "%s: cannot release the address range: %s",
					  pool->set_path, pmem2_errormsg());
	}
	return ret;
}

/* persist_choose -- the persist function of the part with the coarsest store granularity */
static void
persist_choose(struct pool *pool)
{
	struct pmem2_map *coarsest = pool->parts[0].map;

	for (unsigned i = 1; i < pool->set->nparts; i++) {
		struct pmem2_map *map = pool->parts[i].map;

		if (pmem2_map_get_store_granularity(map) >
		    pmem2_map_get_store_granularity(coarsest))
			coarsest = map;
	}
	pool->persist = pmem2_get_persist_fn(coarsest);
	pool->granularity = pmem2_map_get_store_granularity(coarsest);
}

/* pool_map -- one address range reserved for the pool, every part mapped into it (pool.h LAYOUT) */
static int
pool_map(struct pool *pool, char *err, size_t err_len)
{
	size_t off = 0;
	int ret;

	ret = pmem2_vm_reservation_new(&pool->rsv, NULL, pool->size);
	if (ret)
		return errmsg_fail(err, err_len, pmem2_errno(ret),
				   "%s: cannot reserve %zu bytes of address space: %s",
				   pool->set_path, pool->size, pmem2_errormsg());
	for (unsigned i = 0; i < pool->set->nparts; i++) {
		ret = part_map(pool, i, off, err, err_len);
		if (ret) {
			(void)pool_unmap(pool, NULL, 0);
			return ret;
		}
		off += part_len(pool, i);
	}
	persist_choose(pool);
	return 0;
}

/* see pool.h */
int
pool_create(const struct beneath_dir *dir, const char *set_path, const struct pool_hdr_attr *attr,
	    size_t size, struct pool **pool_ptr, char *err, size_t err_len)
{
	struct pool *pool = NULL;
	int ret;

	err_clear(err, err_len);
	if (dir == NULL || set_path == NULL || pool_ptr == NULL)
		return errmsg_fail(err, err_len, -EINVAL, "pool_create: invalid argument");
	attr = attr ? attr : &Zero_attr;
	ret = pool_new(dir, set_path, &pool, err, err_len);
	if (ret)
		return ret;
	ret = attr_check(pool, attr, err, err_len);
	ret = ret ? ret : size_check(pool, size, err, err_len);
	if (ret)
		goto err_free_pool;
	ret = parts_create(pool, err, err_len);
	if (ret)
		goto err_free_pool;
	if (pool->nhdrs)
		ret = hdrs_make(pool, attr, NULL, pool->hdrs, err, err_len);
	ret = ret ? ret : hdrs_write(pool, pool->hdrs, err, err_len);
	ret = ret ? ret : pool_map(pool, err, err_len);
	if (ret)
		goto err_remove_parts;
	pool->attr = *attr;
	*pool_ptr = pool;
	return 0;

err_remove_parts:
	parts_close(pool, true);
err_free_pool:
	pool_free(pool);
	return ret;
}

/* see pool.h */
int
pool_open(const struct beneath_dir *dir, const char *set_path, size_t size, struct pool **pool_ptr,
	  char *err, size_t err_len)
{
	struct pool *pool = NULL;
	int ret;

	err_clear(err, err_len);
	if (dir == NULL || set_path == NULL || pool_ptr == NULL)
		return errmsg_fail(err, err_len, -EINVAL, "pool_open: invalid argument");
	ret = pool_new(dir, set_path, &pool, err, err_len);
	if (ret)
		return ret;
	ret = size_check(pool, size, err, err_len);
	if (ret)
		goto err_free_pool;
	ret = parts_open(pool, false, err, err_len);
	if (ret)
		goto err_free_pool;
	ret = parts_check(pool, err, err_len);
	ret = ret ? ret : pool_map(pool, err, err_len);
	if (ret)
		goto err_close_parts;
	*pool_ptr = pool;
	return 0;

err_close_parts:
	parts_close(pool, false);
err_free_pool:
	pool_free(pool);
	return ret;
}

/* see pool.h */
int
pool_set_attr(struct pool *pool, const struct pool_hdr_attr *attr, char *err, size_t err_len)
{
	struct pool_hdr *next;
	int ret;

	err_clear(err, err_len);
	if (pool == NULL)
		return errmsg_fail(err, err_len, -EINVAL, "pool_set_attr: invalid argument");
	attr = attr ? attr : &Zero_attr;
	ret = attr_check(pool, attr, err, err_len);
	if (ret || pool->nhdrs == 0)
		return ret;
	next = calloc(pool->nhdrs, sizeof(*next));
	if (next == NULL)
		return errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", pool->set_path);
	ret = hdrs_make(pool, attr, pool->hdrs, next, err, err_len);
	ret = ret ? ret : hdrs_write(pool, next, err, err_len);
	if (ret) {
		free(next);
		return ret;
	}
	free(pool->hdrs);
	pool->hdrs = next;
	pool->attr = *attr;
	return 0;
}

/* see pool.h */
int
pool_close(struct pool **pool_ptr, char *err, size_t err_len)
{
	struct pool *pool = pool_ptr ? *pool_ptr : NULL;
	int ret;

	err_clear(err, err_len);
	if (pool == NULL)
		return 0;
	ret = pool_unmap(pool, err, err_len);
	parts_close(pool, false);
	pool_free(pool);
	*pool_ptr = NULL;
	return ret;
}

/*
 * parts_unlink -- every part open and locked (a missing one, passed over
 * by a forced remove, is not open) unlinked by its name in its directory,
 * even after a failure; the first error
 */
static int
parts_unlink(const struct pool *pool, bool force, char *err, size_t err_len)
{
	int ret = 0;

	for (unsigned i = 0; i < pool->set->nparts; i++) {
		const struct pool_part *part = &pool->parts[i];

		if (part->fd < 0 || unlinkat(part->dirfd, part->last, 0) == 0)
			continue;
		if ((force && errno == ENOENT) || ret)
			continue;
		ret = errmsg_fail(err, err_len, -errno, "%s: cannot unlink: %s", part_path(pool, i),
				  strerror(errno));
	}
	return ret;
}

/*
 * set_unlink -- the set file read by pool_new() unlinked by its name in its
 * directory; a file put there since is left alone (-EBUSY)
 */
static int
set_unlink(const struct pool *pool, const struct beneath_dir *dir, char *err, size_t err_len)
{
	const char *path = pool->set_path, *last;
	int at = beneath_parent(dir, path, &last), ret = 0;
	struct stat st;

	if (at < 0)
		return refused(err, err_len, at, path, "open the directory of");
	if (fstatat(at, last, &st, AT_SYMLINK_NOFOLLOW))
		ret =
		    errmsg_fail(err, err_len, -errno, "%s: cannot stat: %s", path, strerror(errno));
	else if (st.st_dev != pool->set_dev || st.st_ino != pool->set_ino)
		ret = errmsg_fail(err, err_len, -EBUSY, "%s: replaced while the pool was removed",
				  path);
	else if (unlinkat(at, last, 0))
		ret = errmsg_fail(err, err_len, -errno, "%s: cannot unlink: %s", path,
				  strerror(errno));
	close(at);
	return ret;
}

/* see pool.h */
int
pool_remove(const struct beneath_dir *dir, const char *set_path, int flags, char *err,
	    size_t err_len)
{
	const int known = POOL_REMOVE_FORCE | POOL_REMOVE_POOL_SET;
	bool force = flags & POOL_REMOVE_FORCE;
	struct pool *pool = NULL;
	int ret;

	err_clear(err, err_len);
	if (dir == NULL || set_path == NULL || (flags & ~known))
		return errmsg_fail(err, err_len, -EINVAL, "pool_remove: invalid argument");
	ret = pool_new(dir, set_path, &pool, err, err_len);
	if (ret)
		return ret;
	ret = parts_open(pool, force, err, err_len);
	if (ret)
		goto out_free_pool;
	ret = force ? 0 : parts_check(pool, err, err_len);
	ret = ret ? ret : parts_unlink(pool, force, err, err_len);
	parts_close(pool, false);
	if (ret == 0 && (flags & POOL_REMOVE_POOL_SET))
		ret = set_unlink(pool, dir, err, err_len);
out_free_pool:
	pool_free(pool);
	return ret;
}

/* see pool.h */
void *
pool_get_addr(const struct pool *pool)
{
	return pmem2_vm_reservation_get_address(pool->rsv);
}

/* see pool.h */
size_t
pool_get_size(const struct pool *pool)
{
	return pool->size;
}

/* see pool.h */
pmem2_persist_fn
pool_get_persist_fn(const struct pool *pool)
{
	return pool->persist;
}

/* see pool.h */
enum pmem2_granularity
pool_get_granularity(const struct pool *pool)
{
	return pool->granularity;
}

/* see pool.h */
void
pool_get_attr(const struct pool *pool, struct pool_hdr_attr *attr)
{
	*attr = pool->attr;
}
