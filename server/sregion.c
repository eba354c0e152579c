// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * sregion.c -- the regions a server exports and their table (see sregion.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>
#include <urcu/urcu-memb.h>

#include "filelock.h"
#include "sregion.h"

/* what opening a region file did, to undo it */
struct file_undo {
	bool created;
	bool extended;
	off_t old_size;
};

/* io_fail -- log a failed system call on a region's file; RPMAF_E_IO */
static int
io_fail(const struct rpmaf__wlog *log, const struct rpmaf_cfg_region *rc, const char *call, int err)
{
	rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: %s(%s): %s", rc->name, call, rc->path,
		    strerror(err));
	return RPMAF_E_IO;
}

/*
 * file_close -- cut back or remove what file_open() made, and close, which
 * releases the lock once the file is unmapped: the removal comes first, so
 * that no other server locks a file about to be removed
 */
static void
file_close(const struct rpmaf_cfg_region *rc, int fd, const struct file_undo *u)
{
	if (u->extended && !u->created)
		(void)ftruncate(fd, u->old_size);
	if (u->created)
		(void)unlink(rc->path);
	close(fd);
}

/*
 * file_lock -- lock the region's file (filelock.h) before anything changes
 * it: one held by another server is RPMAF_E_BUSY, logged with its holder
 */
static int
file_lock(const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, int fd)
{
	int err = -rpmaf__filelock_take(fd);
	pid_t pid;

	if (!err)
		return 0;
	if (err != EWOULDBLOCK)
		return io_fail(log, rc, "flock", err);
	pid = rpmaf__filelock_holder(fd);
	if (pid == getpid())
		rpmaf__wlog(log, RPMAF_LOG_ERROR,
			    "region %s: %s is in use: another server of this process (pid %d) "
			    "exports it",
			    rc->name, rc->path, (int)pid);
	else if (pid)
		rpmaf__wlog(log, RPMAF_LOG_ERROR,
			    "region %s: %s is in use: locked by pid %d (a server exporting it?)",
			    rc->name, rc->path, (int)pid);
	else
		rpmaf__wlog(log, RPMAF_LOG_ERROR,
			    "region %s: %s is in use: locked by another process (pid unknown)",
			    rc->name, rc->path);
	return RPMAF_E_BUSY;
}

/*
 * file_same -- the path still names the file locked: one removed or
 * replaced between our open() and our lock (by a server that gave it up)
 * is not the region's file
 */
static int
file_same(const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, int fd)
{
	struct stat by_fd, by_name;

	if (fstat(fd, &by_fd))
		return io_fail(log, rc, "fstat", errno);
	if (stat(rc->path, &by_name))
		return io_fail(log, rc, "stat", errno);
	if (by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino)
		return 0;
	rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: %s was replaced while being opened", rc->name,
		    rc->path);
	return RPMAF_E_BUSY;
}

/* file_extend -- extend the (locked) file to the region's size if it is shorter and may be */
static int
file_extend(const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, int fd,
	    struct file_undo *u)
{
	struct stat st;

	if (fstat(fd, &st))
		return io_fail(log, rc, "fstat", errno);
	u->old_size = st.st_size;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size >= rc->size)
		return 0;
	if (!rc->create || ftruncate(fd, (off_t)rc->size)) {
		int err = rc->create ? errno : EFBIG;

		rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: %s is %lld bytes, not %llu", rc->name,
			    rc->path, (long long)st.st_size, (unsigned long long)rc->size);
		return io_fail(log, rc, "ftruncate", err);
	}
	u->extended = true;
	return 0;
}

/*
 * file_allocate -- give every byte of the region its blocks now: a client's
 * write into a hole of a file whose file system is full has nowhere to go
 * (the mapping's store faults), so a full file system is told at start, as
 * a clear error naming the file, not found by a client mid-run. A file
 * system that cannot allocate ahead (EOPNOTSUPP) is used as it is.
 */
static int
file_allocate(const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, int fd)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return io_fail(log, rc, "fstat", errno);
	if (!S_ISREG(st.st_mode))
		return 0;
	err = posix_fallocate(fd, 0, (off_t)rc->size);
	if (err == 0 || err == EOPNOTSUPP || err == EINVAL)
		return 0;
	if (err == ENOSPC || err == EDQUOT)
		rpmaf__wlog(log, RPMAF_LOG_ERROR,
			    "region %s: %s: no space left for its %llu bytes on the file system "
			    "(a write into an unallocated page would fail)",
			    rc->name, rc->path, (unsigned long long)rc->size);
	return io_fail(log, rc, "posix_fallocate", err);
}

/*
 * file_open -- open (create, extend) the region's file as its configuration
 * says, locked (filelock.h) before it is extended; on failure nothing is
 * left: a file created is removed, one that was there is left as it was
 */
static int
file_open(const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, int *fd_ptr,
	  struct file_undo *u)
{
	int ret, fd = open(rc->path, O_RDWR | O_CLOEXEC);

	memset(u, 0, sizeof(*u));
	if (fd < 0 && errno == ENOENT && rc->create) {
		fd = open(rc->path, O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, 0600);
		u->created = fd >= 0;
	}
	if (fd < 0)
		return io_fail(log, rc, "open", errno);
	if ((ret = file_lock(rc, log, fd)) || (ret = file_same(rc, log, fd))) {
		/* the file at the path is another's now (it locked what we made): not ours to
		 * remove */
		u->created = false;
		goto err_close;
	}
	if ((ret = file_extend(rc, log, fd, u)) || (ret = file_allocate(rc, log, fd)))
		goto err_close;
	*fd_ptr = fd;
	return 0;

err_close:
	file_close(rc, fd, u);
	return ret;
}

/* forced_granularity -- libpmem2's testing switch PMEM2_FORCE_GRANULARITY, NULL when unset */
static const char *
forced_granularity(void)
{
	const char *v = getenv("PMEM2_FORCE_GRANULARITY");

	return v && *v ? v : NULL;
}

/* memory_fs -- fd is on a file system in memory (tmpfs, ramfs): an msync() saves nothing */
static bool
memory_fs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && (sfs.f_type == (typeof(sfs.f_type))TMPFS_MAGIC ||
					  sfs.f_type == (typeof(sfs.f_type))RAMFS_MAGIC);
}

/* map_file -- map the region's file with libpmem2 */
static int
map_file(struct rpmaf__sregion *r, const struct rpmaf__wlog *log)
{
	struct pmem2_config *cfg = NULL;
	struct pmem2_source *src = NULL;
	int ret = RPMAF_E_IO;

	if (pmem2_config_new(&cfg))
		goto err;
	if (pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
	    pmem2_config_set_length(cfg, r->size) || pmem2_source_from_fd(&src, r->fd))
		goto err_cfg;
	if (pmem2_map_new(&r->map, cfg, src))
		goto err_src;
	r->ptr = pmem2_map_get_address(r->map);
	r->persist_fn = pmem2_get_persist_fn(r->map);
	r->granularity = (int8_t)pmem2_map_get_store_granularity(r->map);
	/* libpmem2 reads it at every pmem2_map_new(): then it decided, not the hardware */
	if (forced_granularity())
		snprintf(r->forced, sizeof(r->forced), "%s", forced_granularity());
	r->memory_fs = memory_fs(r->fd);
	ret = 0;
err_src:
	(void)pmem2_source_delete(&src);
err_cfg:
	(void)pmem2_config_delete(&cfg);
err:
	if (ret)
		rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: libpmem2: %s", r->name,
			    pmem2_errormsg());
	return ret;
}

/* usage_of -- librpma's usage bits for what the configuration allows */
static int
usage_of(const struct rpmaf__sregion *r)
{
	int u = 0;

	if (r->usage & RPMAF_USAGE_READ)
		u |= RPMA_MR_USAGE_READ_SRC;
	if (r->usage & RPMAF_USAGE_WRITE)
		u |= RPMA_MR_USAGE_WRITE_DST;
	if (r->usage & RPMAF_USAGE_FLUSH) {
		u |= RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
		if (r->persist == RPMAF__PROTO_PERSIST_APM)
			u |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	}
	return u;
}

/* reg -- register the memory and take its descriptor */
static int
reg(struct rpmaf__sregion *r, struct rpma_peer *peer, const struct rpmaf__wlog *log)
{
	size_t dsize;
	int ret = rpma_mr_reg(peer, r->ptr, r->size, usage_of(r), &r->mr);

	if (!ret && !(ret = rpma_mr_get_descriptor_size(r->mr, &dsize)) && dsize > sizeof(r->desc))
		ret = RPMA_E_INVAL;
	if (!ret && !(ret = rpma_mr_get_descriptor(r->mr, r->desc))) {
		r->desc_len = (uint8_t)dsize;
		return 0;
	}
	rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: registering %llu bytes: %s", r->name,
		    (unsigned long long)r->size, rpma_err_2str(ret));
	if (r->mr)
		(void)rpma_mr_dereg(&r->mr);
	return RPMAF_E_RDMA;
}

/* fill -- the fields the configuration gives */
static int
fill(struct rpmaf__sregion *r, const struct rpmaf_cfg_region *rc)
{
	size_t len = rc->name ? strlen(rc->name) : 0;

	if (!len || rpmaf__proto_name_check(rc->name, len, "region", NULL) || !rc->size ||
	    !(rc->usage & 7u) || (rc->backing == RPMAF_BACKING_FILE && !rc->path))
		return RPMAF_E_INVAL;
	memcpy(r->name, rc->name, len);
	r->name_len = (uint8_t)len;
	r->size = rc->size;
	r->usage = (uint8_t)(rc->usage & 7u);
	r->file = rc->backing == RPMAF_BACKING_FILE;
	r->fd = -1;
	r->granularity = RPMAF__SREGION_NO_GRANULARITY;
	/* a file's is chosen once libpmem2 has mapped it (persist_choose()) */
	r->persist = RPMAF__PROTO_PERSIST_GPSPM;
	return 0;
}

/* apm_durable -- a client's flush makes writes durable on r's mapping (sregion.h: THE RULE) */
static bool
apm_durable(const struct rpmaf__sregion *r)
{
	return r->granularity == PMEM2_GRANULARITY_BYTE ||
	       r->granularity == PMEM2_GRANULARITY_CACHE_LINE;
}

/* granularity_str -- libpmem2's granularity of r's mapping in words */
static const char *
granularity_str(const struct rpmaf__sregion *r)
{
	switch (r->granularity) {
	case PMEM2_GRANULARITY_BYTE:
		return "byte";
	case PMEM2_GRANULARITY_CACHE_LINE:
		return "cache-line";
	case PMEM2_GRANULARITY_PAGE:
		return "page";
	default:
		return "no";
	}
}

/*
 * persist_choose -- a file region's method, now that its mapping's
 * granularity is known (sregion.h: THE RULE): an apm that cannot be
 * durable is RPMAF_E_INVAL, logged with the region, the file and why
 */
static int
persist_choose(struct rpmaf__sregion *r, const struct rpmaf_cfg_region *rc,
	       const struct rpmaf__wlog *log)
{
	bool apm = rc->direct_write && rc->persistence != RPMAF_PERSIST_GPSPM;

	r->persist = apm && apm_durable(r) ? RPMAF__PROTO_PERSIST_APM : RPMAF__PROTO_PERSIST_GPSPM;
	r->fell_back = apm && r->persist != RPMAF__PROTO_PERSIST_APM;
	if (rc->persistence != RPMAF_PERSIST_APM || !r->fell_back)
		return 0;
	rpmaf__wlog(log, RPMAF_LOG_ERROR,
		    "region %s: persistence apm cannot be durable on %s: libpmem2 reports %s "
		    "granularity (not persistent memory mapped with DAX: a client's flush would "
		    "leave its writes in the page cache, lost at a power cut); persistence gpspm "
		    "or auto persists them with msync()",
		    r->name, rc->path, granularity_str(r));
	return RPMAF_E_INVAL;
}

/* anon_fail -- log a failed system call on a region's anonymous memory; RPMAF_E_NOMEM */
static int
anon_fail(const struct rpmaf__sregion *r, const struct rpmaf__wlog *log, const char *call)
{
	rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: %s(%llu bytes): %s", r->name, call,
		    (unsigned long long)r->size, strerror(errno));
	return RPMAF_E_NOMEM;
}

/*
 * anon_map -- map r->size bytes of the memfd r->fd, shared: another
 * mapping of it (a change's) sees the same pages
 */
static int
anon_map(struct rpmaf__sregion *r, const struct rpmaf__wlog *log)
{
	r->ptr = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->ptr != MAP_FAILED)
		return 0;
	r->ptr = NULL;
	return anon_fail(r, log, "mmap");
}

/* anon_extend -- make the memfd r->fd at least r->size bytes; u says what to undo */
static int
anon_extend(struct rpmaf__sregion *r, const struct rpmaf__wlog *log, struct file_undo *u)
{
	struct stat st;

	if (fstat(r->fd, &st))
		return anon_fail(r, log, "fstat");
	u->old_size = st.st_size;
	if ((uint64_t)st.st_size >= r->size)
		return 0;
	if (ftruncate(r->fd, (off_t)r->size))
		return anon_fail(r, log, "ftruncate");
	u->extended = true;
	return 0;
}

/*
 * anon_new -- anonymous memory, in a memfd rather than a private mapping,
 * so that a change can map it again while the old mapping is still in use
 */
static int
anon_new(struct rpmaf__sregion *r, const struct rpmaf__wlog *log)
{
	struct file_undo u = {0};
	int ret;

	if ((r->fd = memfd_create(r->name, MFD_CLOEXEC)) < 0)
		return anon_fail(r, log, "memfd_create");
	if (!(ret = anon_extend(r, log, &u)) && !(ret = anon_map(r, log)))
		return 0;
	close(r->fd);
	r->fd = -1;
	return ret;
}

/* memory_new -- the region's memory: its file mapped, or anonymous pages */
static int
memory_new(struct rpmaf__sregion *r, const struct rpmaf_cfg_region *rc,
	   const struct rpmaf__wlog *log, struct file_undo *u)
{
	int ret;

	if (!r->file)
		return anon_new(r, log);
	if ((ret = file_open(rc, log, &r->fd, u)))
		return ret;
	if ((ret = map_file(r, log))) {
		file_close(rc, r->fd, u);
		r->fd = -1;
	}
	return ret;
}

/* memory_delete -- undo memory_new() (u NULL: keep the file as it is) */
static void
memory_delete(struct rpmaf__sregion *r, const struct rpmaf_cfg_region *rc,
	      const struct file_undo *u)
{
	if (r->caller_mem)
		return;
	if (!r->file) {
		(void)munmap(r->ptr, r->size);
		close(r->fd);
		r->fd = -1;
		return;
	}
	(void)pmem2_map_delete(&r->map);
	if (u)
		file_close(rc, r->fd, u);
	else
		close(r->fd);
	r->fd = -1;
}

/* file_mechanism -- how a file region's bytes are made durable, as the log says it */
static const char *
file_mechanism(const struct rpmaf__sregion *r)
{
	if (r->persist == RPMAF__PROTO_PERSIST_APM)
		return r->granularity == PMEM2_GRANULARITY_BYTE
			   ? "APM: the client's flush (a read after its writes) makes them durable "
			     "(byte granularity: persistent memory, CPU caches in the power-fail "
			     "domain)"
			   : "APM: the client's flush (a read after its writes) makes them durable "
			     "(cache-line granularity: persistent memory; direct_write: the RNIC's "
			     "writes bypass the CPU caches)";
	switch (r->granularity) {
	case PMEM2_GRANULARITY_BYTE:
		return "GPSPM: a persist is a fence (byte granularity: persistent memory, CPU "
		       "caches in the power-fail domain)";
	case PMEM2_GRANULARITY_CACHE_LINE:
		return "GPSPM: a persist is a CPU cache flush (cache-line granularity: persistent "
		       "memory)";
	default:
		return "GPSPM: a persist is an msync() to the file's device (page granularity: not "
		       "persistent memory)";
	}
}

/* mechanism -- how r's bytes are made durable, as the log says it */
static const char *
mechanism(const struct rpmaf__sregion *r)
{
	if (r->caller_mem && r->persist == RPMAF__PROTO_PERSIST_APM)
		return "APM: the client's flush; the application vouches for its memory";
	if (r->caller_mem)
		return r->persist_fn ? "GPSPM: a persist is the application's persist function"
				     : "GPSPM: a persist is a memory barrier (the application's "
				       "memory, durable only if the application makes it so)";
	if (!r->file)
		return "not persistent (anonymous memory): a persist is a memory barrier";
	return file_mechanism(r);
}

/* size_str -- bytes in binary units when exact ("64 MiB"), else in bytes */
static const char *
size_str(uint64_t bytes, char *buf, size_t size)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	unsigned i = 0;

	while (i < 4 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, size, "%llu %s", (unsigned long long)bytes, unit[i]);
	return buf;
}

/* see sregion.h */
void
rpmaf__sregion_describe(const struct rpmaf__sregion *r, const struct rpmaf__wlog *log)
{
	const char *forced = r->forced[0] ? r->forced : NULL;
	char size[32];

	rpmaf__wlog(
	    log, RPMAF_LOG_NOTICE, "server: region %s: %s, %s%s, %s%s%s%s", r->name,
	    r->path	    ? r->path
	    : r->caller_mem ? "the application's memory"
			    : "anonymous memory",
	    size_str(r->size, size, sizeof(size)),
	    r->created	  ? " (file created)"
	    : r->extended ? " (file extended)"
			  : "",
	    mechanism(r), r->fell_back ? "; persistence auto: APM would not be durable here" : "",
	    forced ? "; granularity forced by PMEM2_FORCE_GRANULARITY=" : "", forced ? forced : "");
	if (r->memory_fs)
		rpmaf__wlog(log, RPMAF_LOG_WARNING,
			    "server: region %s: %s is on a file system in memory (tmpfs or ramfs): "
			    "nothing written to it survives a power cut, persisted or not",
			    r->name, r->path);
	if (forced)
		rpmaf__wlog(log, RPMAF_LOG_WARNING,
			    "server: region %s: PMEM2_FORCE_GRANULARITY=%s: libpmem2 was told the "
			    "granularity of %s instead of detecting it (a testing switch): its "
			    "writes are as durable as the variable claims, no more",
			    r->name, forced, r->path);
}

/* see sregion.h */
void
rpmaf__sregion_durability(const struct rpmaf__sregion *r, struct rpmaf__sregion_dur *d)
{
	static const char *const gran[] = {"byte", "cache_line", "page"};
	static const char *const file_mech[] = {"fence", "cache_flush", "msync"};
	bool apm = r->persist == RPMAF__PROTO_PERSIST_APM;
	bool known = r->granularity >= 0 && r->granularity <= PMEM2_GRANULARITY_PAGE;

	d->persistence = apm ? "apm" : "gpspm";
	if (r->caller_mem) {
		d->mechanism = apm || r->persist_fn ? "application" : "none";
		d->granularity = "unknown";
	} else if (!r->file) {
		d->mechanism = "none";
		d->granularity = "none";
	} else {
		d->mechanism = apm ? "rdma_flush" : known ? file_mech[r->granularity] : "unknown";
		d->granularity = known ? gran[r->granularity] : "unknown";
	}
}

/* see sregion.h */
int
rpmaf__sregion_new(const struct rpmaf_cfg_region *rc, struct rpma_peer *peer,
		   const struct rpmaf__wlog *log, struct rpmaf__sregion **r_ptr)
{
	struct file_undo u;
	struct rpmaf__sregion *r;
	int ret;

	if (!rc || !peer || !r_ptr)
		return RPMAF_E_INVAL;
	if (!(r = calloc(1, sizeof(*r))))
		return RPMAF_E_NOMEM;
	if ((ret = fill(r, rc)) || (ret = memory_new(r, rc, log, &u)))
		goto err_free;
	if (r->file && (ret = persist_choose(r, rc, log)))
		goto err_memory;
	if ((ret = reg(r, peer, log)))
		goto err_memory;
	if (r->file && !(r->path = strdup(rc->path))) {
		ret = RPMAF_E_NOMEM;
		goto err_reg;
	}
	r->created = r->file && u.created;
	r->extended = r->file && u.extended;
	r->old_size = r->file ? (int64_t)u.old_size : 0;
	*r_ptr = r;
	return 0;

err_reg:
	(void)rpma_mr_dereg(&r->mr);
err_memory:
	memory_delete(r, rc, &u);
err_free:
	free(r);
	return ret;
}

/* see sregion.h */
int
rpmaf__sregion_new_mem(const struct rpmaf_mem_region *mr, struct rpma_peer *peer,
		       const struct rpmaf__wlog *log, struct rpmaf__sregion **r_ptr)
{
	size_t len = mr && mr->name ? strlen(mr->name) : 0;
	struct rpmaf__sregion *r;
	int ret;

	if (!len || !peer || !r_ptr || !mr->ptr || !mr->size || !(mr->usage & 7u) ||
	    rpmaf__proto_name_check(mr->name, len, "region", NULL))
		return RPMAF_E_INVAL;
	if (!(r = calloc(1, sizeof(*r))))
		return RPMAF_E_NOMEM;
	memcpy(r->name, mr->name, len);
	r->name_len = (uint8_t)len;
	r->size = mr->size;
	r->usage = (uint8_t)(mr->usage & 7u);
	r->fd = -1;
	r->caller_mem = true;
	r->ptr = mr->ptr;
	r->persist_fn = mr->persist;
	/* its durability is the caller's word: no mapping of ours to ask libpmem2 about */
	r->persist = mr->apm ? RPMAF__PROTO_PERSIST_APM : RPMAF__PROTO_PERSIST_GPSPM;
	r->granularity = RPMAF__SREGION_NO_GRANULARITY;
	if ((ret = reg(r, peer, log))) {
		free(r);
		return ret;
	}
	*r_ptr = r;
	return 0;
}

/* see sregion.h */
int
rpmaf__sregion_delete(struct rpmaf__sregion **r_ptr, bool undo, const struct rpmaf__wlog *log)
{
	struct rpmaf__sregion *r = *r_ptr;
	int ret = 0, rr;

	if (!r)
		return 0;
	if (r->persist_fn && !r->caller_mem)
		r->persist_fn(r->ptr, r->size);
	if ((rr = rpma_mr_dereg(&r->mr))) {
		rpmaf__wlog(log, RPMAF_LOG_ERROR, "region %s: rpma_mr_dereg(): %s", r->name,
			    rpma_err_2str(rr));
		ret = RPMAF_E_RDMA;
	}
	if (undo && r->file) {
		struct file_undo u = {r->created, r->extended, (off_t)r->old_size};
		struct rpmaf_cfg_region rc = {.path = r->path};

		(void)pmem2_map_delete(&r->map);
		file_close(&rc, r->fd, &u);
	} else {
		memory_delete(r, NULL, NULL);
	}
	free(r->path);
	free(r);
	*r_ptr = NULL;
	return ret;
}

/* see sregion.h */
void
rpmaf__sregion_entry(const struct rpmaf__sregion *r, struct rpmaf__proto_region *e)
{
	e->size = r->size;
	e->generation = r->generation;
	e->persist = r->persist;
	e->usage = r->usage;
	e->name_len = r->name_len;
	e->name = r->name;
	e->desc_len = r->desc_len;
	e->desc = r->desc;
}

/* see sregion.h */
void
rpmaf__sregion_persist(const struct rpmaf__sregion *r, uint64_t offset, uint64_t length)
{
	if (r->persist_fn)
		r->persist_fn((char *)r->ptr + offset, length);
	else
		atomic_thread_fence(memory_order_seq_cst);
}

/*
 * same_memory -- r, filled from rc, describes the memory of old again: the
 * same backing, file and persistence method (another one is a removal and
 * an addition, which a change in place cannot be)
 */
static int
same_memory(const struct rpmaf__sregion *old, const struct rpmaf__sregion *r,
	    const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log)
{
	const char *what = NULL;

	if (r->file != old->file || (r->file && strcmp(rc->path, old->path) != 0))
		what = "its backing";
	else if (r->persist != old->persist)
		what = "its persistence method";
	else if (old->fd < 0 || old->caller_mem)
		what = "its memory (not the server's)";
	if (!what)
		return 0;
	rpmaf__wlog(log, RPMAF_LOG_ERROR,
		    "region %s: %s differs: not a change in place (remove it and add it again)",
		    r->name, what);
	return RPMAF_E_INVAL;
}

/*
 * memory_again -- old's memory for r: a second descriptor of its file or
 * memfd (sharing the file's lock), extended when r is larger, mapped again;
 * u says what to undo
 */
static int
memory_again(struct rpmaf__sregion *r, const struct rpmaf__sregion *old,
	     const struct rpmaf_cfg_region *rc, const struct rpmaf__wlog *log, struct file_undo *u)
{
	int ret;

	memset(u, 0, sizeof(*u));
	if ((r->fd = fcntl(old->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return r->file ? io_fail(log, rc, "fcntl(F_DUPFD)", errno)
			       : anon_fail(r, log, "fcntl(F_DUPFD)");
	ret = r->file ? file_extend(rc, log, r->fd, u) : anon_extend(r, log, u);
	if (!ret && r->file)
		ret = file_allocate(rc, log, r->fd);
	if (!ret && !(ret = r->file ? map_file(r, log) : anon_map(r, log)))
		return 0;
	if (u->extended)
		(void)ftruncate(r->fd, u->old_size);
	close(r->fd);
	r->fd = -1;
	return ret;
}

/* memory_again_undo -- undo memory_again(): unmap, cut back what it extended, close */
static void
memory_again_undo(struct rpmaf__sregion *r, const struct file_undo *u)
{
	if (r->file)
		(void)pmem2_map_delete(&r->map);
	else
		(void)munmap(r->ptr, r->size);
	if (u->extended)
		(void)ftruncate(r->fd, u->old_size);
	close(r->fd);
	r->fd = -1;
}

/* see sregion.h */
int
rpmaf__sregion_change(const struct rpmaf__sregion *old, const struct rpmaf_cfg_region *rc,
		      struct rpma_peer *peer, const struct rpmaf__wlog *log,
		      struct rpmaf__sregion **r_ptr)
{
	struct file_undo u;
	struct rpmaf__sregion *r;
	int ret;

	if (!old || !rc || !peer || !r_ptr || old->caller_mem)
		return RPMAF_E_INVAL;
	if (!(r = calloc(1, sizeof(*r))))
		return RPMAF_E_NOMEM;
	if ((ret = fill(r, rc)))
		goto err_free;
	/* a file's method is known once it is mapped again: checked with the rest after */
	r->persist = old->persist;
	if ((ret = same_memory(old, r, rc, log)) || (ret = memory_again(r, old, rc, log, &u)))
		goto err_free;
	if (r->file && ((ret = persist_choose(r, rc, log)) || (ret = same_memory(old, r, rc, log))))
		goto err_memory;
	if ((ret = reg(r, peer, log)))
		goto err_memory;
	if (r->file && !(r->path = strdup(old->path))) {
		ret = RPMAF_E_NOMEM;
		goto err_reg;
	}
	/* what a failed start undoes is what was there before the first making */
	r->created = old->created;
	r->extended = old->extended || u.extended;
	r->old_size = old->old_size;
	r->since = old->since;
	*r_ptr = r;
	return 0;

err_reg:
	(void)rpma_mr_dereg(&r->mr);
err_memory:
	memory_again_undo(r, &u);
err_free:
	free(r);
	return ret;
}

/* see sregion.h */
void
rpmaf__sregion_trim(const struct rpmaf__sregion *r, uint64_t old_size, bool create,
		    const struct rpmaf__wlog *log)
{
	struct stat st;

	if (r->caller_mem || r->fd < 0 || r->size >= old_size || (r->file && !create))
		return;
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != old_size)
		return;
	if (ftruncate(r->fd, (off_t)r->size))
		rpmaf__wlog(log, RPMAF_LOG_WARNING,
			    "region %s: %s not cut back to %llu bytes: ftruncate(): %s", r->name,
			    r->path ? r->path : "its memory", (unsigned long long)r->size,
			    strerror(errno));
}

/*
 * ThreadSanitizer cannot see the ordering liburcu provides (the library is
 * not instrumented). In TSan builds the table states it:
 * - publication: a writer releases a snapshot before it publishes it, a
 *   reader acquires it once it has dereferenced it (the regions it names
 *   were made before, by the writer's thread or one it synchronized with);
 * - reclamation: every reader releases sregtab_gp_sync as it leaves its
 *   section, and a writer acquires it once its grace period is over,
 *   before it reuses or frees a snapshot and before its caller deletes a
 *   region taken out. Using either after the section, or freeing without
 *   a grace period, is then a reported race.
 */
#include "../regtab/tsan.h"

#ifdef RPMAF_TSAN
static char sregtab_gp_sync;
#endif

/* snap_new -- an unpublished snapshot with room for cap regions, empty */
static struct rpmaf__sregsnap *
snap_new(uint32_t cap)
{
	struct rpmaf__sregsnap *s = calloc(1, sizeof(*s) + (size_t)cap * sizeof(s->v[0]));

	if (s)
		s->cap = cap;
	return s;
}

/*
 * grace_period -- wait until every read-side section that may have seen
 * the snapshot just replaced has ended (the caller must be in none)
 */
static void
grace_period(void)
{
	urcu_memb_synchronize_rcu();
#ifdef RPMAF_TSAN
	tsan_acquire(&sregtab_gp_sync);
#endif
}

/*
 * publish -- make s the table's snapshot and keep the one it replaces, once
 * no reader can hold it, as the spare (lock held; s was built in fresh
 * memory or in the spare, which it then consumed)
 */
static void
publish(struct rpmaf__sregtab *t, struct rpmaf__sregsnap *s)
{
	struct rpmaf__sregsnap *old;

	tsan_release(s);
	old = rcu_xchg_pointer(&t->snap, s);
	grace_period();
	free(t->spare);
	t->spare = old;
}

/* see sregion.h */
int
rpmaf__sregtab_init(struct rpmaf__sregtab *t, uint64_t first_gen)
{
	memset(t, 0, sizeof(*t));
	t->last_gen = first_gen - 1;
	if (!(t->snap = snap_new(0)))
		return RPMAF_E_NOMEM;
	if (pthread_mutex_init(&t->lock, NULL)) {
		free(t->snap);
		t->snap = NULL;
		return RPMAF_E_SYS;
	}
	return 0;
}

/* see sregion.h */
void
rpmaf__sregtab_fini(struct rpmaf__sregtab *t)
{
	/* a section still ending (a lookup that found nothing) must be over */
	grace_period();
	(void)pthread_mutex_destroy(&t->lock);
	free(t->spare);
	free(t->snap);
	t->spare = t->snap = NULL;
}

/* see sregion.h */
const struct rpmaf__sregsnap *
rpmaf__sregtab_read_lock(struct rpmaf__sregtab *t)
{
	const struct rpmaf__sregsnap *s;

	urcu_memb_read_lock();
	s = rcu_dereference(t->snap);
	tsan_acquire(s);
	return s;
}

/* see sregion.h */
void
rpmaf__sregtab_read_unlock(void)
{
#ifdef RPMAF_TSAN
	tsan_release(&sregtab_gp_sync);
#endif
	urcu_memb_read_unlock();
}

/* see sregion.h */
const struct rpmaf__sregsnap *
rpmaf__sregtab_lock(struct rpmaf__sregtab *t)
{
	(void)pthread_mutex_lock(&t->lock);
	return t->snap;
}

/* see sregion.h */
void
rpmaf__sregtab_unlock(struct rpmaf__sregtab *t)
{
	(void)pthread_mutex_unlock(&t->lock);
}

/* see sregion.h */
struct rpmaf__sregion *
rpmaf__sregtab_find(const struct rpmaf__sregsnap *s, const char *name, size_t len)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->v[i]->name_len == len && memcmp(s->v[i]->name, name, len) == 0)
			return s->v[i];
	}
	return NULL;
}

/* insert_locked -- rpmaf__sregtab_insert() with the lock held */
static int
insert_locked(struct rpmaf__sregtab *t, struct rpmaf__sregion *r, uint64_t *gen_ptr)
{
	const struct rpmaf__sregsnap *old = t->snap;
	struct rpmaf__sregsnap *s;

	if (rpmaf__sregtab_find(old, r->name, r->name_len))
		return RPMAF_E_INVAL;
	if (old->n >= RPMAF__PROTO_REGIONS_MAX || !(s = snap_new(old->n + 1)))
		return RPMAF_E_NOMEM;
	memcpy(s->v, old->v, old->n * sizeof(s->v[0]));
	s->v[old->n] = r;
	s->n = old->n + 1;
	s->generation = r->generation = ++t->last_gen; /* not yet published */
	r->since = r->generation;
	publish(t, s);
	*gen_ptr = s->generation;
	return 0;
}

/* see sregion.h */
int
rpmaf__sregtab_insert(struct rpmaf__sregtab *t, struct rpmaf__sregion *r, uint64_t *gen_ptr)
{
	int ret;

	(void)pthread_mutex_lock(&t->lock);
	ret = insert_locked(t, r, gen_ptr);
	(void)pthread_mutex_unlock(&t->lock);
	return ret;
}

/*
 * take_locked -- take region i out: the snapshot without it is built in
 * the spare, which always has room for it (lock held)
 */
static struct rpmaf__sregion *
take_locked(struct rpmaf__sregtab *t, uint32_t i, uint64_t *gen_ptr)
{
	const struct rpmaf__sregsnap *old = t->snap;
	struct rpmaf__sregsnap *s = t->spare;
	struct rpmaf__sregion *r = old->v[i];

	t->spare = NULL;
	memcpy(s->v, old->v, i * sizeof(s->v[0]));
	memcpy(&s->v[i], &old->v[i + 1], (old->n - i - 1) * sizeof(s->v[0]));
	s->n = old->n - 1;
	s->generation = ++t->last_gen;
	publish(t, s);
	if (gen_ptr)
		*gen_ptr = s->generation;
	return r;
}

/* see sregion.h */
int
rpmaf__sregtab_remove(struct rpmaf__sregtab *t, const char *name, struct rpmaf__sregion **r_ptr,
		      uint64_t *gen_ptr)
{
	const struct rpmaf__sregsnap *s;
	int ret = RPMAF_E_NOENT;

	(void)pthread_mutex_lock(&t->lock);
	s = t->snap;
	for (uint32_t i = 0; i < s->n; i++) {
		if (strcmp(s->v[i]->name, name) == 0) {
			*r_ptr = take_locked(t, i, gen_ptr);
			ret = 0;
			break;
		}
	}
	(void)pthread_mutex_unlock(&t->lock);
	return ret;
}

/* see sregion.h */
int
rpmaf__sregtab_replace(struct rpmaf__sregtab *t, struct rpmaf__sregion *old,
		       struct rpmaf__sregion *r, uint64_t *gen_ptr)
{
	const struct rpmaf__sregsnap *cur;
	struct rpmaf__sregsnap *s;
	int ret = RPMAF_E_NOENT;

	(void)pthread_mutex_lock(&t->lock);
	cur = t->snap;
	for (uint32_t i = 0; i < cur->n; i++) {
		if (cur->v[i] != old)
			continue;
		if (!(s = snap_new(cur->n))) {
			ret = RPMAF_E_NOMEM;
			break;
		}
		memcpy(s->v, cur->v, cur->n * sizeof(s->v[0]));
		s->v[i] = r;
		s->n = cur->n;
		s->generation = r->generation = ++t->last_gen; /* not yet published */
		publish(t, s);
		*gen_ptr = s->generation;
		ret = 0;
		break;
	}
	(void)pthread_mutex_unlock(&t->lock);
	return ret;
}

/* see sregion.h */
int
rpmaf__sregtab_pop(struct rpmaf__sregtab *t, struct rpmaf__sregion **r_ptr)
{
	int ret = RPMAF_E_NOENT;

	(void)pthread_mutex_lock(&t->lock);
	if (t->snap->n) {
		*r_ptr = take_locked(t, t->snap->n - 1, NULL);
		ret = 0;
	}
	(void)pthread_mutex_unlock(&t->lock);
	return ret;
}
