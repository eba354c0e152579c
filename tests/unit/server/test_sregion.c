// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_sregion.c -- a region's persistence method against the store
 * granularity libpmem2 reports for its mapping (server/sregion.h, THE
 * RULE): no machine here has persistent memory, so the granularity of a
 * real mapping of a file in a temporary directory is replaced by the
 * test's (--wrap=pmem2_map_get_store_granularity) and librpma's
 * registration is a stand-in that keeps the usage asked for (--wrap of
 * rpma_mr_*): what the rule decides, the log says and the statistics name,
 * for BYTE, CACHE_LINE and PAGE, for apm, auto and gpspm, and for memory
 * that promises no persistence. The last test uses no stand-in
 * granularity: libpmem2 itself, told PMEM2_FORCE_GRANULARITY or not.
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sregion.h"

#define MOCK_REAL (-1) /* Mock_gran: libpmem2's own answer */
#define LOG_MAX	  4096
#define SIZE	  (64u << 10)

static int Mock_gran = MOCK_REAL;
static int Reg_usage;		 /* the usage of the last rpma_mr_reg() */
static int Regs;		 /* registrations not yet deregistered */
static char Log[LOG_MAX];	 /* the lines logged since the last log_clear() */
static char Dir[64];		 /* the test's directory */
static char Path[128];		 /* the region file in it */
static int Dummy_mr, Dummy_peer; /* what the stand-ins point to */

/* ----------------------------------------------------------- stand-ins */

enum pmem2_granularity __real_pmem2_map_get_store_granularity(struct pmem2_map *map);

/* __wrap_pmem2_map_get_store_granularity -- the test's granularity, or libpmem2's */
enum pmem2_granularity
__wrap_pmem2_map_get_store_granularity(struct pmem2_map *map)
{
	if (Mock_gran == MOCK_REAL)
		return __real_pmem2_map_get_store_granularity(map);
	return (enum pmem2_granularity)Mock_gran;
}

/* __wrap_rpma_mr_reg -- a registration that keeps its usage */
int
__wrap_rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		   struct rpma_mr_local **mr_ptr)
{
	assert_non_null(peer);
	assert_non_null(ptr);
	assert_true(size > 0);
	Reg_usage = usage;
	Regs++;
	*mr_ptr = (struct rpma_mr_local *)&Dummy_mr;
	return 0;
}

/* __wrap_rpma_mr_dereg -- its undoing */
int
__wrap_rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	assert_ptr_equal(*mr_ptr, &Dummy_mr);
	Regs--;
	*mr_ptr = NULL;
	return 0;
}

/* __wrap_rpma_mr_get_descriptor_size -- librpma's size of a descriptor */
int
__wrap_rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *size)
{
	(void)mr;
	*size = 21;
	return 0;
}

/* __wrap_rpma_mr_get_descriptor -- bytes of no meaning */
int
__wrap_rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	(void)mr;
	memset(desc, 0x5a, 21);
	return 0;
}

/* __wrap_rpma_err_2str -- never called when nothing fails */
const char *
__wrap_rpma_err_2str(int ret)
{
	(void)ret;
	return "stand-in";
}

/* ----------------------------------------------------------- helpers */

/* on_log -- each line the code under test logs, appended to Log */
static void
on_log(enum rpmaf_log_level level, const char *msg, void *arg)
{
	static const char *const names[] = {"error", "warning", "notice", "info", "debug"};
	size_t n = strlen(Log);

	(void)arg;
	snprintf(Log + n, sizeof(Log) - n, "%s: %s\n", names[level], msg);
}

static const struct rpmaf__wlog Wlog = {.level = RPMAF_LOG_DEBUG};

/* region_cfg -- a file region of SIZE bytes at Path */
static struct rpmaf_cfg_region
region_cfg(enum rpmaf_persistence p, bool direct)
{
	return (struct rpmaf_cfg_region){.name = "r",
					 .size = SIZE,
					 .backing = RPMAF_BACKING_FILE,
					 .path = Path,
					 .create = true,
					 .usage = RPMAF_USAGE_READ | RPMAF_USAGE_WRITE |
						  RPMAF_USAGE_FLUSH,
					 .persistence = p,
					 .direct_write = direct};
}

/* make -- rpmaf__sregion_new() of rc at granularity gran, the log cleared first */
static int
make(const struct rpmaf_cfg_region *rc, int gran, struct rpmaf__sregion **r)
{
	Log[0] = '\0';
	Mock_gran = gran;
	*r = NULL;
	return rpmaf__sregion_new(rc, (struct rpma_peer *)&Dummy_peer, &Wlog, r);
}

/* done -- delete r as a stop does, and the file */
static void
done(struct rpmaf__sregion **r)
{
	assert_int_equal(rpmaf__sregion_delete(r, true, &Wlog), 0);
	assert_null(*r);
	assert_int_equal(Regs, 0);
	(void)unlink(Path);
}

/* check_dur -- what the statistics say of r */
static void
check_dur(const struct rpmaf__sregion *r, const char *persistence, const char *mechanism,
	  const char *granularity)
{
	struct rpmaf__sregion_dur d;

	rpmaf__sregion_durability(r, &d);
	assert_string_equal(d.persistence, persistence);
	assert_string_equal(d.mechanism, mechanism);
	assert_string_equal(d.granularity, granularity);
}

/* described -- the notice line of r, which must contain want */
static void
described(const struct rpmaf__sregion *r, const char *want)
{
	Log[0] = '\0';
	rpmaf__sregion_describe(r, &Wlog);
	if (!strstr(Log, want))
		fail_msg("the log\n%s\ndoes not say \"%s\"", Log, want);
	assert_non_null(strstr(Log, "notice: server: region r: "));
}

/* setup -- a directory of the test's own; the log captured */
static int
setup(void **state)
{
	(void)state;
	snprintf(Dir, sizeof(Dir), "/tmp/test_sregion.XXXXXX");
	if (!mkdtemp(Dir))
		return -1;
	snprintf(Path, sizeof(Path), "%s/r.pmem", Dir);
	rpmaf_log_set_callback(on_log, NULL);
	unsetenv("PMEM2_FORCE_GRANULARITY");
	return 0;
}

/* teardown -- the directory removed */
static int
teardown(void **state)
{
	(void)state;
	rpmaf_log_set_callback(NULL, NULL);
	(void)unlink(Path);
	return rmdir(Dir);
}

/* fresh -- each test starts without the region file and with no registration */
static int
fresh(void **state)
{
	(void)state;
	(void)unlink(Path);
	Regs = 0;
	Mock_gran = MOCK_REAL;
	return 0;
}

/* ----------------------------------------------------------- tests */

/*
 * PAGE (an ordinary file): apm is refused, naming the region, the file and
 * the granularity; the file it created is removed and its lock released
 */
static void
test_page_apm_refused(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_APM, true);
	struct rpmaf__sregion *r;
	char want[256];

	(void)state;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), RPMAF_E_INVAL);
	assert_null(r);
	snprintf(want, sizeof(want),
		 "error: region r: persistence apm cannot be durable on %s: libpmem2 reports "
		 "page granularity",
		 Path);
	if (!strstr(Log, want))
		fail_msg("the log\n%s\ndoes not say \"%s\"", Log, want);
	assert_int_equal(access(Path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(Regs, 0);
}

/* PAGE, a file that was there: refused, and the file is left as it was, unlocked */
static void
test_page_apm_refused_keeps_file(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_APM, true);
	struct rpmaf__sregion *r;
	char buf[5] = "";
	struct stat st;
	int fd = open(Path, O_RDWR | O_CREAT | O_EXCL, 0600);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "kept", 4, 100), 4);
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), RPMAF_E_INVAL);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 104); /* not extended to SIZE, or cut back */
	assert_int_equal(pread(fd, buf, 4, 100), 4);
	assert_string_equal(buf, "kept");
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0); /* nobody holds it */
	close(fd);
}

/* PAGE: auto with direct_write is GPSPM by msync, and the log says why not APM */
static void
test_page_auto_gpspm(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_AUTO, true);
	struct rpmaf__sregion *r;

	(void)state;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	assert_false(Reg_usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_true(Reg_usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	check_dur(r, "gpspm", "msync", "page");
	described(r, ", 64 KiB (file created), GPSPM: a persist is an msync() to the file's device "
		     "(page granularity: not persistent memory); persistence auto: APM would not "
		     "be durable here");
	done(&r);
	/* without direct_write auto never asked for APM: no word of it */
	rc.direct_write = false;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	Log[0] = '\0';
	rpmaf__sregion_describe(r, &Wlog);
	assert_null(strstr(Log, "persistence auto"));
	done(&r);
	/* gpspm, of course */
	rc = region_cfg(RPMAF_PERSIST_GPSPM, true);
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	done(&r);
}

/* CACHE_LINE (PMem, ADR): apm and auto with direct_write are APM; else GPSPM by cache flushes */
static void
test_cache_line(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_APM, true);
	struct rpmaf__sregion *r;

	(void)state;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_CACHE_LINE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_APM);
	assert_true(Reg_usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	check_dur(r, "apm", "rdma_flush", "cache_line");
	described(r, "APM: the client's flush (a read after its writes) makes them durable "
		     "(cache-line granularity: persistent memory; direct_write");
	done(&r);
	rc.persistence = RPMAF_PERSIST_AUTO;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_CACHE_LINE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_APM);
	assert_null(strstr(Log, "persistence auto"));
	done(&r);
	rc.direct_write = false;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_CACHE_LINE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	assert_false(Reg_usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	check_dur(r, "gpspm", "cache_flush", "cache_line");
	described(r, "GPSPM: a persist is a CPU cache flush (cache-line granularity");
	done(&r);
	rc = region_cfg(RPMAF_PERSIST_GPSPM, true);
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_CACHE_LINE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	done(&r);
}

/* BYTE (PMem, eADR): APM where asked; GPSPM is a fence */
static void
test_byte(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_APM, true);
	struct rpmaf__sregion *r;

	(void)state;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_BYTE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_APM);
	check_dur(r, "apm", "rdma_flush", "byte");
	described(r, "APM: the client's flush (a read after its writes) makes them durable (byte "
		     "granularity: persistent memory, CPU caches in the power-fail domain)");
	done(&r);
	rc.persistence = RPMAF_PERSIST_GPSPM;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_BYTE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	check_dur(r, "gpspm", "fence", "byte");
	described(r, "GPSPM: a persist is a fence (byte granularity");
	done(&r);
}

/* anonymous memory promises no persistence: never refused, said to be volatile */
static void
test_anonymous(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_AUTO, false);
	struct rpmaf__sregion *r;

	(void)state;
	rc.backing = RPMAF_BACKING_ANONYMOUS;
	rc.path = NULL;
	assert_int_equal(make(&rc, PMEM2_GRANULARITY_PAGE, &r), 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_GPSPM);
	check_dur(r, "gpspm", "none", "none");
	described(r, "region r: anonymous memory, 64 KiB, not persistent (anonymous memory): a "
		     "persist is a memory barrier");
	done(&r);
}

/* a file on tmpfs: GPSPM as anywhere at page granularity, with a warning that nothing is durable */
static void
test_memory_fs(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_GPSPM, false);
	struct rpmaf__sregion *r;
	char shm[64];

	(void)state;
	snprintf(shm, sizeof(shm), "/dev/shm/test_sregion.%d", (int)getpid());
	rc.path = shm;
	assert_int_equal(make(&rc, MOCK_REAL, &r), 0);
	check_dur(r, "gpspm", "msync", "page");
	described(r, "GPSPM: a persist is an msync()");
	assert_non_null(strstr(Log, "warning: server: region r: /dev/shm/test_sregion."));
	assert_non_null(strstr(Log, "is on a file system in memory (tmpfs or ramfs): nothing "
				    "written to it survives a power cut"));
	assert_int_equal(rpmaf__sregion_delete(&r, true, &Wlog), 0);
	assert_int_equal(access(shm, F_OK), -1);
	/* and not for a file on the disk of the test's directory, unless that is tmpfs too */
	rc.path = Path;
	assert_int_equal(make(&rc, MOCK_REAL, &r), 0);
	described(r, "GPSPM");
	assert_true(r->memory_fs == (strstr(Log, "file system in memory") != NULL));
	done(&r);
}

/* the application's memory is exported as the application says, APM included */
static void
test_caller_memory(void **state)
{
	static char mem[SIZE];
	struct rpmaf_mem_region mr = {.name = "r",
				      .ptr = mem,
				      .size = sizeof(mem),
				      .usage = RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH,
				      .apm = true};
	struct rpmaf__sregion *r = NULL;

	(void)state;
	Mock_gran = PMEM2_GRANULARITY_PAGE; /* never asked: no mapping of ours */
	assert_int_equal(rpmaf__sregion_new_mem(&mr, (struct rpma_peer *)&Dummy_peer, &Wlog, &r),
			 0);
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_APM);
	assert_true(Reg_usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	check_dur(r, "apm", "application", "unknown");
	described(r, "the application's memory, 64 KiB, APM: the client's flush; the application "
		     "vouches for its memory");
	done(&r);
	mr.apm = false;
	assert_int_equal(rpmaf__sregion_new_mem(&mr, (struct rpma_peer *)&Dummy_peer, &Wlog, &r),
			 0);
	check_dur(r, "gpspm", "none", "unknown");
	done(&r);
}

/*
 * libpmem2 itself: a file in /tmp is PAGE (apm refused); under
 * PMEM2_FORCE_GRANULARITY=CACHE_LINE it is CACHE_LINE (apm taken), said
 * in the description and in a warning
 */
static void
test_libpmem2(void **state)
{
	struct rpmaf_cfg_region rc = region_cfg(RPMAF_PERSIST_APM, true);
	struct rpmaf__sregion *r;

	(void)state;
	assert_int_equal(make(&rc, MOCK_REAL, &r), RPMAF_E_INVAL);
	assert_non_null(strstr(Log, "libpmem2 reports page granularity"));
	assert_int_equal(setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1), 0);
	assert_int_equal(make(&rc, MOCK_REAL, &r), 0);
	unsetenv("PMEM2_FORCE_GRANULARITY");
	assert_int_equal(r->persist, RPMAF__PROTO_PERSIST_APM);
	check_dur(r, "apm", "rdma_flush", "cache_line");
	Log[0] = '\0';
	rpmaf__sregion_describe(r, &Wlog);
	assert_non_null(strstr(Log, "; granularity forced by PMEM2_FORCE_GRANULARITY="));
	assert_non_null(strstr(Log, "warning: server: region r: PMEM2_FORCE_GRANULARITY="));
	done(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_page_apm_refused, fresh),
	    cmocka_unit_test_setup(test_page_apm_refused_keeps_file, fresh),
	    cmocka_unit_test_setup(test_page_auto_gpspm, fresh),
	    cmocka_unit_test_setup(test_cache_line, fresh),
	    cmocka_unit_test_setup(test_byte, fresh),
	    cmocka_unit_test_setup(test_anonymous, fresh),
	    cmocka_unit_test_setup(test_memory_fs, fresh),
	    cmocka_unit_test_setup(test_caller_memory, fresh),
	    cmocka_unit_test_setup(test_libpmem2, fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
