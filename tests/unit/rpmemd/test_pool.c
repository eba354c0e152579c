/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_pool.c -- the remote pool on disk, in a temporary directory: create,
 * open, set_attr, close and remove round trips for one part, several parts,
 * SINGLEHDR, NOHDRS and parts that are not whole pages; the attributes back
 * bit for bit; the bytes written through one open's mapping read back by the
 * next and found at their offsets in the part files; each refusal (EEXIST,
 * ENOENT, EBUSY, EFBIG, a truncated part, a damaged or disagreeing header,
 * attributes that do not fit the set) with nothing left behind; allocation
 * failures leaving no files, mappings or descriptors; two threads on one
 * pool.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fail_alloc.h"
#include "pool.h"

#define MIB	 ((size_t)1 << 20)
#define PART	 (2 * MIB)
#define HDR	 ((size_t)POOL_HDR_SIZE)
#define ERR_SIZE POOL_ERR_MAX

static char Dir[PATH_MAX - 64]; /* the test's temporary directory */
static struct beneath_dir Bdir; /* Dir, the pools' directory (pool.h FILES) */

/* path_in -- Dir/name into buf */
static char *
path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", Dir, name);
	return buf;
}

/* part_of -- the path of part i of set name (parts are named beside their set) */
static char *
part_of(char *buf, const char *name, unsigned i)
{
	char file[NAME_MAX];

	snprintf(file, sizeof(file), "%s.part%u", name, i);
	return path_in(buf, file);
}

/* set_write -- Dir/name.set: OPTION option (unless NULL), n parts of size bytes; its path */
static char *
set_write(char *buf, const char *name, const char *option, unsigned n, size_t size)
{
	char file[NAME_MAX];
	FILE *f;

	snprintf(file, sizeof(file), "%s.set", name);
	f = fopen(path_in(buf, file), "w");
	assert_non_null(f);
	fprintf(f, "PMEMPOOLSET\n");
	if (option)
		fprintf(f, "OPTION %s\n", option);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%zu %s.part%u\n", size, name, i);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* exists -- a file of that path exists */
static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* dir_count -- the entries of Dir */
static unsigned
dir_count(void)
{
	DIR *d = opendir(Dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* fd_count -- the descriptors this process has open */
static unsigned
fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* maps_count -- the mappings of this process of a file in Dir */
static unsigned
maps_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 256];
	unsigned n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, Dir) != NULL;
	fclose(f);
	return n;
}

/* attr_fill -- attributes with every byte set from seed; SINGLEHDR bit as single says */
static void
attr_fill(struct pool_hdr_attr *attr, unsigned seed, int single)
{
	unsigned char *p = (unsigned char *)attr;

	for (size_t i = 0; i < sizeof(*attr); i++)
		p[i] = (unsigned char)(seed * 37 + i * 11 + 1);
	attr->id.incompat_features &= ~POOL_FEAT_SINGLEHDR;
	if (single)
		attr->id.incompat_features |= POOL_FEAT_SINGLEHDR;
}

/* expect_err -- ret is want and the message names what (or prints it) */
static void
expect_err(int ret, int want, const char *err, const char *what)
{
	size_t n = strlen(Dir);

	/* files are named relative to the pools' directory, which no message names */
	if (strncmp(what, Dir, n) == 0 && what[n] == '/')
		what += n + 1;
	if (strstr(err, Dir))
		fail_msg("message '%s' names the directory %s", err, Dir);
	if (ret != want || strstr(err, what) == NULL)
		fail_msg("got %d (want %d), message '%s' (want it to name '%s')", ret, want, err,
			 what);
}

/* ok -- ret is 0, or the message is shown */
static void
ok(int ret, const char *err)
{
	if (ret)
		fail_msg("unexpected error %d: %s", ret, err);
}

/* pattern -- the byte written at pool offset off by fill() */
static unsigned char
pattern(size_t off, unsigned seed)
{
	return (unsigned char)((off * 131) / 7 + off / HDR + seed);
}

/* fill -- len bytes of the pool at off set to pattern(), made durable by the pool's persist */
static void
fill(struct pool *pool, size_t off, size_t len, unsigned seed)
{
	unsigned char *base = pool_get_addr(pool);

	assert_true(off + len <= pool_get_size(pool));
	for (size_t i = 0; i < len; i++)
		base[off + i] = pattern(off + i, seed);
	pool_get_persist_fn(pool)(base + off, len);
}

/* check_mem -- len bytes of the pool at off hold pattern() */
static void
check_mem(struct pool *pool, size_t off, size_t len, unsigned seed)
{
	const unsigned char *base = pool_get_addr(pool);

	for (size_t i = 0; i < len; i++) {
		if (base[off + i] != pattern(off + i, seed))
			fail_msg("pool byte %zu is 0x%02x, 0x%02x expected", off + i, base[off + i],
				 pattern(off + i, seed));
	}
}

/*
 * locate -- where pool offset off lies in a set of parts of PART bytes: the
 * part and its file offset, when part k > 0 starts its bytes at file
 * offset h (4096 when each part has a header, 0 otherwise)
 */
static void
locate(size_t off, size_t h, unsigned *part, size_t *file_off)
{
	if (off < PART) {
		*part = 0;
		*file_off = off;
		return;
	}
	off -= PART;
	*part = 1 + (unsigned)(off / (PART - h));
	*file_off = off % (PART - h) + h;
}

/* check_files -- len bytes at pool offset off hold pattern() in the n part files of set name */
static void
check_files(const char *name, unsigned n, size_t h, size_t off, size_t len, unsigned seed)
{
	char path[PATH_MAX];
	int fds[4];

	for (unsigned i = 0; i < n; i++) {
		fds[i] = open(part_of(path, name, i), O_RDONLY);
		assert_true(fds[i] >= 0);
	}
	for (size_t i = 0; i < len; i++) {
		unsigned part;
		size_t file_off;
		unsigned char c = 0;

		locate(off + i, h, &part, &file_off);
		assert_true(part < n);
		assert_int_equal(pread(fds[part], &c, 1, (off_t)file_off), 1);
		if (c != pattern(off + i, seed))
			fail_msg("pool byte %zu: part %u byte %zu is 0x%02x, 0x%02x expected",
				 off + i, part, file_off, c, pattern(off + i, seed));
	}
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
}

/* hdr_of -- the header of a part file, decoded and verified */
static void
hdr_of(const char *path, struct pool_hdr *hdr)
{
	unsigned char buf[POOL_HDR_SIZE];
	char err[ERR_SIZE];
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
	ok(pool_hdr_decode(path, buf, sizeof(buf), hdr, err, sizeof(err)), err);
}

/* hdr_put -- hdr encoded over the header of a part file */
static void
hdr_put(const char *path, const struct pool_hdr *hdr)
{
	unsigned char buf[POOL_HDR_SIZE];
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	pool_hdr_encode(hdr, buf);
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
}

/* check_hdrs -- the n headers of set name's parts are valid, agree, and carry attr */
static void
check_hdrs(const char *name, unsigned n, const struct pool_hdr_attr *attr, struct pool_hdr *hdrs)
{
	char path[PATH_MAX], err[ERR_SIZE];
	struct pool_hdr_attr back;

	for (unsigned i = 0; i < n; i++)
		hdr_of(part_of(path, name, i), &hdrs[i]);
	ok(pool_hdr_check_set(hdrs, n, err, sizeof(err)), err);
	pool_hdr_get_attr(&hdrs[0], &back);
	assert_memory_equal(&back, attr, sizeof(back));
}

/* create_ok -- pool_create(&Bdir, ) that must succeed */
static struct pool *
create_ok(const char *set, const struct pool_hdr_attr *attr, size_t size)
{
	struct pool *pool = NULL;
	char err[ERR_SIZE];

	ok(pool_create(&Bdir, set, attr, size, &pool, err, sizeof(err)), err);
	assert_string_equal(err, "");
	assert_non_null(pool);
	return pool;
}

/* open_ok -- pool_open(&Bdir, ) that must succeed */
static struct pool *
open_ok(const char *set, size_t size)
{
	struct pool *pool = NULL;
	char err[ERR_SIZE];

	ok(pool_open(&Bdir, set, size, &pool, err, sizeof(err)), err);
	assert_non_null(pool);
	return pool;
}

/* close_ok -- pool_close() that must succeed and clear the pointer */
static void
close_ok(struct pool **pool)
{
	char err[ERR_SIZE];

	ok(pool_close(pool, err, sizeof(err)), err);
	assert_null(*pool);
}

/* remove_ok -- pool_remove(&Bdir, ) that must succeed */
static void
remove_ok(const char *set, int flags)
{
	char err[ERR_SIZE];

	ok(pool_remove(&Bdir, set, flags, err, sizeof(err)), err);
}

/* expect_attr -- the pool's attributes are attr, bit for bit */
static void
expect_attr(const struct pool *pool, const struct pool_hdr_attr *attr)
{
	struct pool_hdr_attr got;

	pool_get_attr(pool, &got);
	assert_memory_equal(&got, attr, sizeof(got));
}

/*
 * round_trip -- the pool of set name, n parts of which the first nhdrs have
 * a header: created, written across a part boundary and at both ends,
 * found in the part files, reopened and read, written whole with the
 * headers intact, removed
 */
static void
round_trip(const char *name, const char *option, unsigned n, unsigned nhdrs,
	   const struct pool_hdr_attr *attr)
{
	size_t h = nhdrs > 1 ? HDR : 0;	      /* each later part's header left out */
	size_t size = n * PART - (n - 1) * h; /* the first header counts */
	size_t data = nhdrs ? HDR : 0;	      /* where the client's bytes begin */
	size_t cross = n > 1 ? PART - 1500 : PART / 2;
	struct pool_hdr_attr zero = {0};
	const struct pool_hdr_attr *want = nhdrs ? attr : &zero;
	struct pool_hdr hdrs[4];
	unsigned fds = fd_count();
	char set[PATH_MAX], path[PATH_MAX];
	struct pool *pool;

	set_write(set, name, option, n, PART);
	pool = create_ok(set, attr, size);
	assert_int_equal(pool_get_size(pool), size);
	assert_int_equal((uintptr_t)pool_get_addr(pool) % HDR, 0);
	expect_attr(pool, want);
	fill(pool, data, 3000, 1);
	fill(pool, cross, 3000, 2);	  /* across the first boundary, if any */
	fill(pool, size - 2000, 2000, 3); /* the last bytes */
	close_ok(&pool);
	assert_int_equal(fd_count(), fds);
	assert_int_equal(maps_count(), 0);
	for (unsigned i = 0; i < n; i++) {
		struct stat st;

		assert_int_equal(stat(part_of(path, name, i), &st), 0);
		assert_int_equal(st.st_size, PART);
	}
	check_files(name, n, h, data, 3000, 1);
	check_files(name, n, h, cross, 3000, 2);
	check_files(name, n, h, size - 2000, 2000, 3);
	if (nhdrs)
		check_hdrs(name, nhdrs, attr, hdrs);

	pool = open_ok(set, size);
	assert_int_equal(pool_get_size(pool), size);
	expect_attr(pool, want);
	check_mem(pool, data, 3000, 1);
	check_mem(pool, cross, 3000, 2);
	check_mem(pool, size - 2000, 2000, 3);
	fill(pool, data, size - data, 4); /* every byte the client may write */
	close_ok(&pool);
	if (nhdrs)
		check_hdrs(name, nhdrs, attr, hdrs); /* none of them was in the way */
	check_files(name, n, h, cross, 3000, 4);
	check_files(name, n, h, size - 2000, 2000, 4);

	remove_ok(set, 0);
	for (unsigned i = 0; i < n; i++)
		assert_false(exists(part_of(path, name, i)));
	assert_true(exists(set));
	assert_int_equal(fd_count(), fds);
}

/* one part with a header: 2 MiB, the header included */
static void
test_one_part(void **state)
{
	struct pool_hdr_attr attr;

	(void)state;
	attr_fill(&attr, 1, 0);
	round_trip("one", NULL, 1, 1, &attr);
}

/* three parts, each with a header: the later headers are left out of the pool */
static void
test_parts(void **state)
{
	struct pool_hdr_attr attr;

	(void)state;
	attr_fill(&attr, 2, 0);
	round_trip("three", NULL, 3, 3, &attr);
}

/* SINGLEHDR: the later parts are the pool's whole */
static void
test_singlehdr(void **state)
{
	struct pool_hdr_attr attr;

	(void)state;
	attr_fill(&attr, 3, 1);
	round_trip("single", "SINGLEHDR", 3, 1, &attr);
}

/* NOHDRS: no header anywhere, no attributes (NULL or all zero) */
static void
test_nohdrs(void **state)
{
	struct pool_hdr_attr zero = {0};

	(void)state;
	round_trip("nohdrs", "NOHDRS", 2, 0, NULL);
	round_trip("nohdrs", "NOHDRS", 2, 0, &zero);
}

/* parts whose sizes are not whole pages: each maps its whole pages, the file keeps its size */
static void
test_odd_sizes(void **state)
{
	const size_t size = 2 * PART - HDR;
	struct pool_hdr_attr attr;
	char set[PATH_MAX], path[PATH_MAX];
	struct pool *pool;
	struct stat st;

	(void)state;
	attr_fill(&attr, 24, 0);
	set_write(set, "odd", NULL, 2, PART + 100);
	pool = create_ok(set, &attr, size);
	assert_int_equal(pool_get_size(pool), size);
	fill(pool, size - 5000, 5000, 5);
	close_ok(&pool);
	assert_int_equal(stat(part_of(path, "odd", 1), &st), 0);
	assert_int_equal(st.st_size, PART + 100);
	check_files("odd", 2, HDR, size - 5000, 5000, 5);
	pool = open_ok(set, size);
	check_mem(pool, size - 5000, 5000, 5);
	close_ok(&pool);
	remove_ok(set, POOL_REMOVE_POOL_SET);
}

/* a part file exists: -EEXIST, it is left as it was and nothing else is left */
static void
test_eexist(void **state)
{
	struct pool_hdr_attr attr;
	char set[PATH_MAX], path[PATH_MAX], err[ERR_SIZE], back[5] = "";
	struct pool *pool = NULL;
	unsigned fds = fd_count();
	int fd;

	(void)state;
	attr_fill(&attr, 4, 0);
	set_write(set, "exist", NULL, 3, PART);
	fd = open(part_of(path, "exist", 1), O_CREAT | O_WRONLY, 0600);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	expect_err(pool_create(&Bdir, set, &attr, 0, &pool, err, sizeof(err)), -EEXIST, err, path);
	assert_null(pool);
	assert_int_equal(dir_count(), 2); /* the set and the part that was there */
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, back, sizeof(back)), 4);
	close(fd);
	assert_string_equal(back, "keep");
	assert_int_equal(fd_count(), fds);
	assert_int_equal(maps_count(), 0);
}

/* a missing set file or part: -ENOENT; remove takes a missing part only with FORCE */
static void
test_enoent(void **state)
{
	struct pool_hdr_attr attr;
	char set[PATH_MAX], path[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;

	(void)state;
	attr_fill(&attr, 5, 0);
	path_in(path, "none.set");
	expect_err(pool_open(&Bdir, path, 0, &pool, err, sizeof(err)), -ENOENT, err, path);
	expect_err(pool_create(&Bdir, path, &attr, 0, &pool, err, sizeof(err)), -ENOENT, err, path);
	expect_err(pool_remove(&Bdir, path, POOL_REMOVE_FORCE, err, sizeof(err)), -ENOENT, err,
		   path);

	set_write(set, "gone", NULL, 2, PART);
	pool = create_ok(set, &attr, 0);
	close_ok(&pool);
	assert_int_equal(unlink(part_of(path, "gone", 1)), 0);
	expect_err(pool_open(&Bdir, set, 0, &pool, err, sizeof(err)), -ENOENT, err, path);
	assert_null(pool);
	expect_err(pool_remove(&Bdir, set, 0, err, sizeof(err)), -ENOENT, err, path);
	assert_true(exists(part_of(path, "gone", 0)));
	remove_ok(set, POOL_REMOVE_FORCE);
	assert_false(exists(path));
	assert_int_equal(dir_count(), 1);
}

/* an open pool is locked: a second open, a remove, a create get -EBUSY / -EEXIST */
static void
test_ebusy(void **state)
{
	struct pool_hdr_attr attr;
	char set[PATH_MAX], path[PATH_MAX], err[ERR_SIZE];
	struct pool *pool, *again = NULL;

	(void)state;
	attr_fill(&attr, 6, 0);
	set_write(set, "busy", NULL, 2, PART);
	pool = create_ok(set, &attr, 0);
	part_of(path, "busy", 0);
	expect_err(pool_open(&Bdir, set, 0, &again, err, sizeof(err)), -EBUSY, err, path);
	assert_null(again);
	expect_err(pool_remove(&Bdir, set, POOL_REMOVE_FORCE, err, sizeof(err)), -EBUSY, err, path);
	expect_err(pool_create(&Bdir, set, &attr, 0, &again, err, sizeof(err)), -EEXIST, err, path);
	assert_int_equal(dir_count(), 3);
	close_ok(&pool);

	pool = open_ok(set, 0);
	expect_err(pool_open(&Bdir, set, 0, &again, err, sizeof(err)), -EBUSY, err, path);
	close_ok(&pool);
	remove_ok(set, POOL_REMOVE_POOL_SET);
	assert_int_equal(dir_count(), 0);
}

/* a pool smaller than the client asks for: -EFBIG, before any file is made */
static void
test_efbig(void **state)
{
	const size_t size = 2 * PART - HDR;
	struct pool_hdr_attr attr;
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;

	(void)state;
	attr_fill(&attr, 7, 0);
	set_write(set, "big", NULL, 2, PART);
	expect_err(pool_create(&Bdir, set, &attr, size + 1, &pool, err, sizeof(err)), -EFBIG, err,
		   set);
	assert_null(pool);
	assert_int_equal(dir_count(), 1);
	pool = create_ok(set, &attr, size);
	close_ok(&pool);
	expect_err(pool_open(&Bdir, set, size + HDR, &pool, err, sizeof(err)), -EFBIG, err, set);
	assert_null(pool);
	pool = open_ok(set, size);
	close_ok(&pool);
	remove_ok(set, 0);
}

/* expect_unclean -- open and remove refuse the pool of set, naming what; FORCE removes it */
static void
expect_unclean(const char *set, const char *what)
{
	char err[ERR_SIZE];
	struct pool *pool = NULL;
	unsigned files = dir_count();

	expect_err(pool_open(&Bdir, set, 0, &pool, err, sizeof(err)), -EUCLEAN, err, what);
	assert_null(pool);
	expect_err(pool_remove(&Bdir, set, POOL_REMOVE_POOL_SET, err, sizeof(err)), -EUCLEAN, err,
		   what);
	assert_int_equal(dir_count(), files);
	remove_ok(set, POOL_REMOVE_FORCE | POOL_REMOVE_POOL_SET);
	assert_int_equal(dir_count(), 0);
	assert_int_equal(maps_count(), 0);
}

/* make_pool -- a closed pool of set name with n parts */
static void
make_pool(char *set, const char *name, const char *option, unsigned n, unsigned seed)
{
	struct pool_hdr_attr attr;
	struct pool *pool;

	attr_fill(&attr, seed, option != NULL);
	set_write(set, name, option, n, PART);
	pool = create_ok(set, &attr, 0);
	close_ok(&pool);
}

/* a part shorter than its set says: refused, removed only with FORCE */
static void
test_truncated(void **state)
{
	char set[PATH_MAX], path[PATH_MAX];

	(void)state;
	make_pool(set, "short", NULL, 2, 8);
	assert_int_equal(truncate(part_of(path, "short", 1), PART - HDR), 0);
	expect_unclean(set, path);
}

/* a damaged header: refused, removed only with FORCE */
static void
test_damaged_hdr(void **state)
{
	char set[PATH_MAX], path[PATH_MAX];
	int fd;

	(void)state;
	make_pool(set, "damaged", NULL, 3, 9);
	fd = open(part_of(path, "damaged", 2), O_WRONLY);
	assert_int_equal(pwrite(fd, "x", 1, 200), 1);
	close(fd);
	expect_unclean(set, path);

	make_pool(set, "zeroed", NULL, 2, 10);
	fd = open(part_of(path, "zeroed", 0), O_WRONLY);
	assert_int_equal(pwrite(fd, (char[POOL_HDR_SIZE]){0}, HDR, 0), (ssize_t)HDR);
	close(fd);
	expect_unclean(set, path);
}

/* valid headers that disagree with each other, or with the set's options: refused */
static void
test_inconsistent(void **state)
{
	char set[PATH_MAX], path[PATH_MAX];
	struct pool_hdr hdr;

	(void)state;
	make_pool(set, "other", NULL, 3, 11);
	hdr_of(part_of(path, "other", 1), &hdr);
	hdr.id.poolset_uuid[3] ^= 1;
	hdr_put(path, &hdr);
	expect_unclean(set, "part 1: its pool set UUID differs");

	make_pool(set, "links", NULL, 3, 12);
	hdr_of(part_of(path, "links", 2), &hdr);
	hdr.next_part_uuid[0] ^= 1;
	hdr_put(path, &hdr);
	expect_unclean(set, "part 2: its next part UUID");

	make_pool(set, "opt", NULL, 1,
		  13); /* its header lacks SINGLEHDR: the set now asks for it */
	set_write(set, "opt", "SINGLEHDR", 1, PART);
	expect_unclean(set, "lack SINGLEHDR");
}

/* set_attr: every header rewritten, the other parts' UUIDs and times kept, read back */
static void
test_set_attr(void **state)
{
	struct pool_hdr_attr attr, next, bad;
	struct pool_hdr before[3], after[3];
	unsigned char buf[POOL_HDR_SIZE];
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool;

	(void)state;
	attr_fill(&attr, 14, 0);
	attr_fill(&next, 15, 0);
	set_write(set, "attr", NULL, 3, PART);
	pool = create_ok(set, &attr, 0);
	check_hdrs("attr", 3, &attr, before);
	ok(pool_set_attr(pool, &next, err, sizeof(err)), err);
	expect_attr(pool, &next);
	check_hdrs("attr", 3, &next, after);
	for (unsigned i = 1; i < 3; i++) {
		assert_memory_equal(after[i].id.uuid, before[i].id.uuid, POOL_HDR_UUID_LEN);
		assert_int_equal(after[i].crtime, before[i].crtime);
	}
	assert_memory_equal(after[0].id.uuid, next.id.uuid, POOL_HDR_UUID_LEN);
	pool_hdr_encode(&after[0], buf); /* the client reads the new header at pool offset 0 */
	assert_memory_equal(pool_get_addr(pool), buf, sizeof(buf));

	expect_err(pool_set_attr(pool, NULL, err, sizeof(err)), -EINVAL, err, set);
	attr_fill(&bad, 16, 1);
	expect_err(pool_set_attr(pool, &bad, err, sizeof(err)), -EINVAL, err, "SINGLEHDR");
	expect_attr(pool, &next);
	close_ok(&pool);

	pool = open_ok(set, 0);
	expect_attr(pool, &next);
	close_ok(&pool);
	remove_ok(set, POOL_REMOVE_POOL_SET);
}

/* set_attr of a pool without headers: zero attributes only, nothing stored */
static void
test_set_attr_nohdrs(void **state)
{
	struct pool_hdr_attr zero = {0}, attr;
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool;

	(void)state;
	set_write(set, "noattr", "NOHDRS", 1, PART);
	pool = create_ok(set, NULL, 0);
	ok(pool_set_attr(pool, NULL, err, sizeof(err)), err);
	ok(pool_set_attr(pool, &zero, err, sizeof(err)), err);
	attr_fill(&attr, 17, 0);
	expect_err(pool_set_attr(pool, &attr, err, sizeof(err)), -EINVAL, err, "NOHDRS");
	expect_attr(pool, &zero);
	close_ok(&pool);
	remove_ok(set, POOL_REMOVE_POOL_SET);
}

/* attributes that do not fit the set: -EINVAL, no file made */
static void
test_attr_mismatch(void **state)
{
	struct pool_hdr_attr plain, single, zero = {0};
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;

	(void)state;
	attr_fill(&plain, 18, 0);
	attr_fill(&single, 19, 1);
	set_write(set, "mis", "NOHDRS", 2, PART);
	expect_err(pool_create(&Bdir, set, &plain, 0, &pool, err, sizeof(err)), -EINVAL, err,
		   "NOHDRS");
	set_write(set, "mis", NULL, 2, PART);
	expect_err(pool_create(&Bdir, set, NULL, 0, &pool, err, sizeof(err)), -EINVAL, err, set);
	expect_err(pool_create(&Bdir, set, &zero, 0, &pool, err, sizeof(err)), -EINVAL, err, set);
	expect_err(pool_create(&Bdir, set, &single, 0, &pool, err, sizeof(err)), -EINVAL, err,
		   "have SINGLEHDR");
	set_write(set, "mis", "SINGLEHDR", 2, PART);
	expect_err(pool_create(&Bdir, set, &plain, 0, &pool, err, sizeof(err)), -EINVAL, err,
		   "lack SINGLEHDR");
	assert_null(pool);
	assert_int_equal(dir_count(), 1);
}

/* REMOVE_POOL_SET takes the set file too; unknown flags and bad arguments are refused */
static void
test_remove_flags(void **state)
{
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;

	(void)state;
	make_pool(set, "flags", NULL, 2, 20);
	expect_err(pool_remove(&Bdir, set, 0x4, err, sizeof(err)), -EINVAL, err,
		   "invalid argument");
	expect_err(pool_remove(&Bdir, NULL, 0, err, sizeof(err)), -EINVAL, err, "invalid argument");
	assert_int_equal(dir_count(), 3);
	remove_ok(set, POOL_REMOVE_POOL_SET);
	assert_int_equal(dir_count(), 0);

	expect_err(pool_create(&Bdir, NULL, NULL, 0, &pool, err, sizeof(err)), -EINVAL, err,
		   "invalid");
	expect_err(pool_create(&Bdir, set, NULL, 0, NULL, err, sizeof(err)), -EINVAL, err,
		   "invalid");
	expect_err(pool_open(&Bdir, NULL, 0, &pool, err, sizeof(err)), -EINVAL, err, "invalid");
	expect_err(pool_open(&Bdir, set, 0, NULL, err, sizeof(err)), -EINVAL, err, "invalid");
	expect_err(pool_set_attr(NULL, NULL, err, sizeof(err)), -EINVAL, err, "invalid");
	assert_int_equal(pool_close(NULL, err, sizeof(err)), 0);
	assert_int_equal(pool_close(&pool, NULL, 0), 0);
	assert_int_equal(pool_open(&Bdir, set, 0, &pool, NULL, 0), -ENOENT); /* no message wanted */
}

/* an invalid set file, and a part that is not a regular file: -EINVAL */
static void
test_bad_set(void **state)
{
	char set[PATH_MAX], path[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;
	FILE *f;

	(void)state;
	f = fopen(path_in(set, "bad.set"), "w");
	fprintf(f, "PMEMPOOLSET\nREPLICA host x.set\n");
	fclose(f);
	expect_err(pool_create(&Bdir, set, NULL, 0, &pool, err, sizeof(err)), -EINVAL, err,
		   "REPLICA");
	expect_err(pool_remove(&Bdir, set, POOL_REMOVE_FORCE, err, sizeof(err)), -EINVAL, err,
		   ":2:1:");

	set_write(set, "fifo", "NOHDRS", 1, PART);
	assert_int_equal(mkfifo(part_of(path, "fifo", 0), 0600), 0);
	expect_err(pool_open(&Bdir, set, 0, &pool, err, sizeof(err)), -EINVAL, err, path);
	assert_null(pool);
	assert_int_equal(unlink(path), 0);
}

/* the counts of what a failed call must not leave behind */
struct leftovers {
	unsigned files, fds, maps;
};

/* leftovers_take -- the counts now */
static struct leftovers
leftovers_take(void)
{
	return (struct leftovers){dir_count(), fd_count(), maps_count()};
}

/* leftovers_same -- nothing more than before */
static void
leftovers_same(struct leftovers before)
{
	struct leftovers now = leftovers_take();

	assert_int_equal(now.files, before.files);
	assert_int_equal(now.fds, before.fds);
	assert_int_equal(now.maps, before.maps);
}

/* each allocation failing in turn: -ENOMEM and nothing left, until the call succeeds */
static void
test_nomem(void **state)
{
	struct pool_hdr_attr attr, next;
	char set[PATH_MAX], err[ERR_SIZE];
	struct pool *pool = NULL;
	struct leftovers before;
	long n;
	int ret;

	(void)state;
	attr_fill(&attr, 21, 0);
	attr_fill(&next, 22, 0);
	set_write(set, "nomem", NULL, 3, PART);
	for (n = 0, ret = -1; ret; n++) {
		before = leftovers_take();
		fail_alloc_after(n);
		ret = pool_create(&Bdir, set, &attr, 0, &pool, err, sizeof(err));
		fail_alloc_after(-1);
		if (ret) {
			expect_err(ret, -ENOMEM, err, "out of memory");
			leftovers_same(before);
		}
	}
	assert_true(n > 5);
	for (n = 0, ret = -1; ret; n++) {
		fail_alloc_after(n);
		ret = pool_set_attr(pool, &next, err, sizeof(err));
		fail_alloc_after(-1);
		if (ret)
			expect_err(ret, -ENOMEM, err, "out of memory");
		expect_attr(pool, ret ? &attr : &next);
	}
	assert_true(n > 2);
	close_ok(&pool);
	for (n = 0, ret = -1; ret; n++) {
		before = leftovers_take();
		fail_alloc_after(n);
		ret = pool_open(&Bdir, set, 0, &pool, err, sizeof(err));
		fail_alloc_after(-1);
		if (ret) {
			expect_err(ret, -ENOMEM, err, "out of memory");
			leftovers_same(before);
		}
	}
	expect_attr(pool, &next);
	close_ok(&pool);
	for (n = 0, ret = -1; ret; n++) {
		before = leftovers_take();
		fail_alloc_after(n);
		ret = pool_remove(&Bdir, set, POOL_REMOVE_POOL_SET, err, sizeof(err));
		fail_alloc_after(-1);
		if (ret) {
			expect_err(ret, -ENOMEM, err, "out of memory");
			leftovers_same(before);
		}
	}
	assert_int_equal(dir_count(), 0);
}

/* one thread's open of a pool */
struct opener {
	const char *set;
	pthread_barrier_t *barrier;
	struct pool *pool;
	int ret;
};

/* opener_main -- open the pool when both threads are ready, keep it until both tried */
static void *
opener_main(void *arg)
{
	struct opener *o = arg;

	pthread_barrier_wait(o->barrier);
	o->ret = pool_open(&Bdir, o->set, 0, &o->pool, NULL, 0);
	pthread_barrier_wait(o->barrier);
	return NULL;
}

/* two threads open one pool at once: one gets it, the other -EBUSY */
static void
test_threads(void **state)
{
	pthread_barrier_t barrier;
	struct opener o[2];
	pthread_t t[2];
	char set[PATH_MAX];

	(void)state;
	make_pool(set, "race", NULL, 2, 23);
	assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
	for (int i = 0; i < 2; i++) {
		o[i] = (struct opener){set, &barrier, NULL, 1};
		assert_int_equal(pthread_create(&t[i], NULL, opener_main, &o[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&barrier);
	assert_true((o[0].ret == 0 && o[1].ret == -EBUSY) || (o[1].ret == 0 && o[0].ret == -EBUSY));
	close_ok(o[0].ret == 0 ? &o[0].pool : &o[1].pool);
	remove_ok(set, POOL_REMOVE_POOL_SET);
}

/* dir_empty -- every file of Dir removed, so that a failed test leaves nothing to the next */
static int
dir_empty(void **state)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(Dir);

	(void)state;
	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(path_in(path, e->d_name));
	}
	if (d)
		closedir(d);
	return 0;
}

/* dir_make -- the test's temporary directory, under $TMPDIR or /tmp */
static int
dir_make(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(Dir, sizeof(Dir), "%s/rpmemd-pool-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(Dir))
		return -1;
	return beneath_dir_open(Dir, &Bdir, NULL, 0);
}

/* dir_remove -- the temporary directory, emptied and removed */
static int
dir_remove(void **state)
{
	dir_empty(state);
	beneath_dir_close(&Bdir);
	return rmdir(Dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_one_part, dir_empty),
	    cmocka_unit_test_teardown(test_parts, dir_empty),
	    cmocka_unit_test_teardown(test_singlehdr, dir_empty),
	    cmocka_unit_test_teardown(test_nohdrs, dir_empty),
	    cmocka_unit_test_teardown(test_odd_sizes, dir_empty),
	    cmocka_unit_test_teardown(test_eexist, dir_empty),
	    cmocka_unit_test_teardown(test_enoent, dir_empty),
	    cmocka_unit_test_teardown(test_ebusy, dir_empty),
	    cmocka_unit_test_teardown(test_efbig, dir_empty),
	    cmocka_unit_test_teardown(test_truncated, dir_empty),
	    cmocka_unit_test_teardown(test_damaged_hdr, dir_empty),
	    cmocka_unit_test_teardown(test_inconsistent, dir_empty),
	    cmocka_unit_test_teardown(test_set_attr, dir_empty),
	    cmocka_unit_test_teardown(test_set_attr_nohdrs, dir_empty),
	    cmocka_unit_test_teardown(test_attr_mismatch, dir_empty),
	    cmocka_unit_test_teardown(test_remove_flags, dir_empty),
	    cmocka_unit_test_teardown(test_bad_set, dir_empty),
	    cmocka_unit_test_teardown(test_nomem, dir_empty),
	    cmocka_unit_test_teardown(test_threads, dir_empty),
	};

	return cmocka_run_group_tests(tests, dir_make, dir_remove);
}
