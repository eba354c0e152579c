// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_librpmem.c -- librpmem.so.1 against rpmemd over softrdma. The test
 * starts build/tools/rpmemd itself (RPMEMD_PATH, or the environment's
 * RPMEMD) with a configuration it writes into a directory of its own under
 * /tmp (TMPDIR), one daemon per group on ports 17670 to 17678 (17699 is
 * the port where nobody listens), and kills, restarts and stops it.
 * librpmem reads the client configuration named by LIBRPMEM_CONFIG (short
 * timeouts and heartbeats, the daemon's key).
 *
 * Groups and cases:
 *   basic   create/open/close/remove and the attributes (1); the errors (4),
 *           those of the configuration and the key too
 *   data    persist, flush, drain and read rules, checked in the part files
 *           (2); NOHDRS, SINGLEHDR and two-part sets (3); 64 lanes from 8
 *           threads, and 8 pools made and used at once (5)
 *   crash   the daemon killed with SIGKILL mid-persist (6)
 *   gone    a client that dies without rpmem_close() (7)
 *   proto   malformed requests through the framework directly (8)
 *   escape  set files and parts outside the daemon's directory, reached by
 *           an absolute path, "..", a symbolic link to a set file or to a
 *           directory; set files others may write or own; no path of the
 *           daemon's in a client's message (9)
 *
 * Nothing is left behind: every daemon and child gets PR_SET_PDEATHSIG
 * SIGKILL, and a guard process removes the directory once this process is
 * gone, however it ends. Run as "test_librpmem --client exit|wait TARGET
 * SET" the program is the client of case 7, which creates a pool and dies
 * without closing it.
 */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>
#include <librpmem.h>

#include "rpmaf.h"
#include "rpmem_proto.h"

#include <cmocka.h>

#ifndef RPMEMD_PATH
#define RPMEMD_PATH "build/tools/rpmemd"
#endif

#define ADDR	      "127.0.0.1"
#define PORT_BASIC    17670
#define PORT_DATA     17671
#define PORT_CRASH    17672
#define PORT_GONE     17673
#define PORT_PROTO    17674
#define PORT_DATA_APM 17675
#define PORT_ESCAPE   17676
#define PORT_APM_FILE 17677		   /* a daemon that asks for APM on ordinary files */
#define PORT_AUTO_DW  17678		   /* a daemon with persistence auto and direct_write */
#define GPSPM	      "persistence: gpspm" /* the daemon persists each range (msync here) */
#define PORT_NONE     17699		   /* where no daemon listens */
#define MIB	      ((size_t)1 << 20)
#define HDR	      ((size_t)4096) /* the pool's metadata: no persist below it */
#define POOL	      (8 * MIB)	     /* the local pool and the one-part sets */
#define MAX_LANES     64	     /* the daemons' rpmem.max_lanes */
#define WAIT_MS	      10000	     /* the bound of every wait for a process or a log line */
#define DEAD_MS	      10000	     /* how long a persist may take to see the daemon gone */
#define AT_ONCE_MS    500	     /* "at once": a call on a broken pool */
#define SUITE_S	      100	     /* the whole program, whatever happens */
#define THREADS	      8		     /* case 5 */
#define THREAD_OPS    256	     /* operations of each thread in case 5 */
#define SLOTS	      64	     /* blocks the persist loop of case 6 cycles through */
#define BLOCK	      4096	     /* bytes of one */
#define LOOP_OFF      (2 * MIB)	     /* where they are */
#define BEFORE_OFF    (1 * MIB)	     /* the range persisted before the loop */
#define BEFORE_LEN    (256 * 1024)
#define GONE_LEN      (64 * 1024) /* what the client of case 7 persists */
#define GONE_SEED     99
#define GONE_ATTR     9
#define INCOMPAT      0x6u /* CKSUM_2K | SDS, as libpmemobj's headers have */
#define SINGLEHDR     0x1u /* the incompat bit of a SINGLEHDR set */
#define PROTO_MSG_N   5	   /* request kinds */
#define KEY	      "0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdeffedcba9876543210"

/* a running rpmemd */
struct daemon {
	pid_t pid;
	unsigned port;
	unsigned starts;
	char dir[PATH_MAX]; /* its rpmem.poolset_dir */
	char cfg[PATH_MAX];
	char log[PATH_MAX]; /* its standard error, of the last start */
};

/* a pool set file written by the test: NAME.set with parts NAME.p0, NAME.p1, ... */
struct layout {
	const char *name;
	const char *option; /* NULL, "SINGLEHDR" or "NOHDRS" */
	unsigned nparts;
	size_t part[4];
};

static struct daemon D;
static char Dir[PATH_MAX / 2]; /* everything the test makes */
static char Target[64];
static char Self[PATH_MAX];
static const char *Rpmemd = RPMEMD_PATH;
static int Guard_fd = -1;
static pid_t Guard_pid;
static __thread char Sentinel[256]; /* the message rpmem_errormsg() holds before a call */

/* ------------------------------------------------------------------ little helpers */

/* now_ms -- the monotonic clock in milliseconds */
static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* sleep_ms -- sleep ms milliseconds */
static void
sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* pathf -- printf into a PATH_MAX buffer; the program stops when it does not fit */
__attribute__((format(printf, 2, 3))) static char *
pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		fprintf(stderr, "a path is too long: %s\n", buf);
		abort();
	}
	return buf;
}

/* file_write -- a file of text with mode; 0 or -1 */
static int
file_write(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/* file_text -- the whole of a file, NUL-terminated (free it); NULL when it cannot be read */
static char *
file_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		char *b = realloc(buf, len + 65536 + 1);

		if (!b) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = b;
		n = fread(buf + len, 1, 65536, f);
		len += n;
		if (n < 65536)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* exists -- the path names a file */
static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* rm_one -- nftw(): remove one file or (empty by now) directory */
static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

/* rm_tree -- remove path and everything under it */
static void
rm_tree(const char *path)
{
	(void)nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* pat -- the byte of pattern seed at pool offset x */
static uint8_t
pat(unsigned seed, size_t x)
{
	uint64_t v = ((uint64_t)x + 1) * 0x9e3779b97f4a7c15ull ^ (seed + 1) * 0xbf58476d1ce4e5b9ull;

	v ^= v >> 29;
	v *= 0x94d049bb133111ebull;
	return (uint8_t)(v >> 32);
}

/* fill -- len bytes of pattern seed at pool offset x of the pool memory mem */
static void
fill(char *mem, size_t x, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		mem[x + i] = (char)pat(seed, x + i);
}

/* mem_new -- page-aligned local pool memory of size bytes, zeroed */
static char *
mem_new(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	return m;
}

/* mem_free -- what mem_new() gave */
static void
mem_free(char *mem, size_t size)
{
	(void)munmap(mem, size);
}

/* attr_make -- attributes of pattern seed, every byte non-zero but incompat_features */
static void
attr_make(struct rpmem_pool_attr *a, unsigned seed, uint32_t incompat)
{
	uint8_t *b = (uint8_t *)a;

	for (size_t i = 0; i < sizeof(*a); i++)
		b[i] = pat(seed + 1000, i) | 1u;
	a->incompat_features = incompat;
}

/* ------------------------------------------------------------------ error checks */

/* err_arm -- a known message in the thread's rpmem_errormsg() buffer, errno 0 */
static void
err_arm(void)
{
	const char *m = rpmem_check_version(RPMEM_MAJOR_VERSION + 1, 0);

	snprintf(Sentinel, sizeof(Sentinel), "%s", m ? m : "");
	errno = 0;
}

/* err_ok -- the call on line failed (failed) with errno want and set a message of its own */
static bool
err_ok(bool failed, int got, int want, const char *call, int line)
{
	const char *msg = rpmem_errormsg();
	bool fresh = msg[0] && strcmp(msg, Sentinel) != 0;

	if (failed && got == want && got > 0 && fresh)
		return true;
	print_error("line %d: %s: %s with errno %d (%s), expected %d (%s); message \"%s\"%s\n",
		    line, call, failed ? "failed" : "SUCCEEDED", got, strerror(got), want,
		    strerror(want), msg, fresh ? "" : " (not set by the call)");
	return false;
}

/* err_check -- err_ok(), or the test fails */
static void
err_check(bool failed, int got, int want, const char *call, int line)
{
	if (!err_ok(failed, got, want, call, line))
		fail();
}

/* ok_check -- the call on line succeeded (ok); otherwise say why */
static void
ok_check(bool ok, int err, const char *call, int line)
{
	if (ok)
		return;
	print_error("line %d: %s failed: errno %d (%s): %s\n", line, call, err, strerror(err),
		    rpmem_errormsg());
	fail();
}

/* must_pool -- a pool the call on line must give */
static RPMEMpool *
must_pool(RPMEMpool *p, const char *call, int line)
{
	ok_check(p != NULL, errno, call, line);
	return p;
}

/* FAILS -- call returns -1 with errno err and a message */
#define FAILS(call, err)                                                                           \
	do {                                                                                       \
		err_arm();                                                                         \
		int r_ = (call);                                                                   \
		int e_ = errno;                                                                    \
		err_check(r_ == -1, e_, (err), #call, __LINE__);                                   \
	} while (0)

/* FAILS_NULL -- call returns NULL with errno err and a message */
#define FAILS_NULL(call, err)                                                                      \
	do {                                                                                       \
		err_arm();                                                                         \
		RPMEMpool *p_ = (call);                                                            \
		int e_ = errno;                                                                    \
		if (p_)                                                                            \
			(void)rpmem_close(p_);                                                     \
		err_check(p_ == NULL, e_, (err), #call, __LINE__);                                 \
	} while (0)

/* OK -- call returns 0 */
#define OK(call)                                                                                   \
	do {                                                                                       \
		err_arm();                                                                         \
		int r_ = (call);                                                                   \
		ok_check(r_ == 0, errno, #call, __LINE__);                                         \
	} while (0)

/* MUST -- call returns a pool */
#define MUST(call) must_pool((err_arm(), (call)), #call, __LINE__)

/* ------------------------------------------------------------------ pool set files */

/* set_path -- the pool set file of l */
static char *
set_path(const struct layout *l, char *buf)
{
	return pathf(buf, "%s/%s.set", D.dir, l->name);
}

/* part_path -- part k of l */
static char *
part_path(const struct layout *l, unsigned k, char *buf)
{
	return pathf(buf, "%s/%s.p%u", D.dir, l->name, k);
}

/* layout_write -- the pool set file of l, in the daemon's poolset_dir */
static void
layout_write(const struct layout *l)
{
	char text[1024], path[PATH_MAX];
	int n = snprintf(text, sizeof(text), "PMEMPOOLSET\n");

	if (l->option)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "OPTION %s\n", l->option);
	for (unsigned k = 0; k < l->nparts; k++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%zuK %s.p%u\n",
			      l->part[k] / 1024, l->name, k);
	assert_int_equal(file_write(set_path(l, path), text, 0644), 0);
}

/* part_bytes -- the bytes part k of l adds to the pool (pool.h, LAYOUT) */
static size_t
part_bytes(const struct layout *l, unsigned k)
{
	return (l->part[k] & ~(HDR - 1)) - (k > 0 && !l->option ? HDR : 0);
}

/* layout_size -- the bytes of the pool of l */
static size_t
layout_size(const struct layout *l)
{
	size_t size = 0;

	for (unsigned k = 0; k < l->nparts; k++)
		size += part_bytes(l, k);
	return size;
}

/* layout_locate -- pool offset x is at offset *off of part *k, *room bytes before its end */
static int
layout_locate(const struct layout *l, size_t x, unsigned *k, size_t *off, size_t *room)
{
	size_t start = 0;

	for (unsigned i = 0; i < l->nparts; i++) {
		size_t s = part_bytes(l, i);

		if (x < start + s) {
			*k = i;
			*off = x - start + (i > 0 && !l->option ? HDR : 0);
			*room = start + s - x;
			return 0;
		}
		start += s;
	}
	return -1;
}

/* file_check -- the len bytes at pool offset x are those of expect in the part files; 0 or -1 */
static int
file_check(const struct layout *l, size_t x, const void *expect, size_t len)
{
	const uint8_t *e = expect;
	char path[PATH_MAX];
	uint8_t *buf = malloc(MIB);
	int ret = -1;

	assert_non_null(buf);
	while (len) {
		unsigned k;
		size_t off, room, n;
		int fd;

		if (layout_locate(l, x, &k, &off, &room)) {
			print_error("pool offset %zu: beyond the set %s\n", x, l->name);
			goto out;
		}
		n = len < room ? len : room;
		n = n < MIB ? n : MIB;
		fd = open(part_path(l, k, path), O_RDONLY | O_CLOEXEC);
		if (fd < 0 || pread(fd, buf, n, (off_t)off) != (ssize_t)n) {
			print_error("%s: cannot read %zu bytes at %zu: %s\n", path, n, off,
				    strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		for (size_t i = 0; i < n; i++) {
			if (buf[i] != e[i]) {
				print_error("pool offset %zu (%s offset %zu): 0x%02x in the file, "
					    "0x%02x expected\n",
					    x + i, path, off + i, buf[i], e[i]);
				goto out;
			}
		}
		x += n;
		e += n;
		len -= n;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

/* file_read -- len bytes of file path at off into buf; 0 or -1 */
static int
file_read(const char *path, size_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, (off_t)off);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* parts_exist -- how many part files of l exist */
static unsigned
parts_exist(const struct layout *l)
{
	char path[PATH_MAX];
	unsigned n = 0;

	for (unsigned k = 0; k < l->nparts; k++)
		n += exists(part_path(l, k, path));
	return n;
}

/* ------------------------------------------------------------------ the daemon */

/* log_has -- the daemon's log (of its last start) has needle */
static bool
log_has(const char *needle)
{
	char *text = file_text(D.log);
	bool found = text && strstr(text, needle);

	free(text);
	return found;
}

/* log_wait -- until the daemon's log has needle, WAIT_MS at most */
static bool
log_wait(const char *needle)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (!log_has(needle)) {
		if (now_ms() > end)
			return false;
		sleep_ms(10);
	}
	return true;
}

/* log_dump -- the daemon's log on standard error (after a failure) */
static void
log_dump(void)
{
	char *text = file_text(D.log);

	fprintf(stderr, "---- %s\n%s---- end\n", D.log, text ? text : "(unreadable)\n");
	free(text);
}

/* reap -- wait for pid to end, ms at most; its status into *st; 0 or -1 (still running) */
static int
reap(pid_t pid, int *st, unsigned ms)
{
	uint64_t end = now_ms() + ms;
	pid_t r;

	while ((r = waitpid(pid, st, WNOHANG)) == 0 && now_ms() < end)
		sleep_ms(5);
	return r == pid ? 0 : -1;
}

/* spawn -- fork and exec argv with stdout and stderr to out; it dies with this process */
static pid_t
spawn(char *const argv[], int out)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* the child of a multi-threaded process: async-signal-safe calls only */
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent || null < 0 ||
	    dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/* daemon_start -- rpmemd with D's configuration, until its log says "listening on"; 0 or -1 */
static int
daemon_start(void)
{
	char *argv[] = {(char *)Rpmemd, "-c", D.cfg, NULL};
	uint64_t end = now_ms() + WAIT_MS;
	int st, fd;

	D.starts++;
	pathf(D.log, "%s/rpmemd-%u.%u.log", Dir, D.port, D.starts);
	if ((fd = open(D.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return -1;
	D.pid = spawn(argv, fd);
	close(fd);
	if (D.pid < 0)
		return -1;
	while (!log_has("listening on")) {
		if (waitpid(D.pid, &st, WNOHANG) == D.pid || now_ms() > end) {
			fprintf(stderr, "rpmemd on port %u did not start\n", D.port);
			log_dump();
			if (kill(D.pid, SIGKILL) == 0)
				(void)reap(D.pid, &st, WAIT_MS);
			D.pid = 0;
			return -1;
		}
		sleep_ms(10);
	}
	return 0;
}

/* daemon_kill9 -- SIGKILL the daemon and reap it; 0 or -1 */
static int
daemon_kill9(void)
{
	int st;

	if (D.pid <= 0 || kill(D.pid, SIGKILL) || reap(D.pid, &st, WAIT_MS))
		return -1;
	D.pid = 0;
	return 0;
}

/* daemon_stop -- SIGTERM, and it must exit 0 within WAIT_MS (SIGKILL after); 0 or -1 */
static int
daemon_stop(void)
{
	int st = 0;

	if (D.pid <= 0)
		return 0;
	(void)kill(D.pid, SIGTERM);
	if (reap(D.pid, &st, WAIT_MS)) {
		fprintf(stderr, "rpmemd on port %u did not stop on SIGTERM\n", D.port);
		(void)daemon_kill9();
		log_dump();
		return -1;
	}
	D.pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "rpmemd on port %u ended with status %#x\n", D.port, st);
		log_dump();
		return -1;
	}
	return 0;
}

/*
 * daemon_up -- a daemon of its own on port, its pool sets under
 * Dir/dPORT/pools, persisting as persistence says (its rpmem section's keys)
 */
static int
daemon_up(unsigned port, const char *persistence)
{
	char top[PATH_MAX], key[PATH_MAX], yaml[PATH_MAX * 3];

	memset(&D, 0, sizeof(D));
	D.port = port;
	pathf(top, "%s/d%u", Dir, port);
	pathf(D.dir, "%s/pools", top);
	pathf(D.cfg, "%s/rpmemd.yaml", top);
	pathf(key, "%s/key", Dir);
	snprintf(Target, sizeof(Target), ADDR ":%u", port);
	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 2}\n"
		 "listen: {address: " ADDR ", port: %u, max_connections: 64}\n"
		 "rpmem: {poolset_dir: %s, %s, max_lanes: %d}\n"
		 "timeouts: {connect_ms: 3000, operation_ms: 3000, heartbeat_interval_ms: 200,\n"
		 "           heartbeat_misses: 5}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: info}\n",
		 port, D.dir, persistence, MAX_LANES, key);
	if (mkdir(top, 0700) || mkdir(D.dir, 0700) || file_write(D.cfg, yaml, 0600))
		return -1;
	return daemon_start();
}

/* setup_basic -- the daemon of group basic, on its own port */
static int
setup_basic(void **state)
{
	(void)state;
	return daemon_up(PORT_BASIC, GPSPM);
}

/* setup_data -- the daemon of group data, on its own port */
static int
setup_data(void **state)
{
	(void)state;
	return daemon_up(PORT_DATA, GPSPM);
}

/*
 * setup_data_apm -- group data again, with a daemon that declares direct
 * write (APM): its pools are ordinary files, which it refuses for APM
 * (page granularity), unless libpmem2 is told they are persistent memory
 * (its testing switch, for the daemon only)
 */
static int
setup_data_apm(void **state)
{
	int ret;

	(void)state;
	if (setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1))
		return -1;
	ret = daemon_up(PORT_DATA_APM, "persistence: apm, direct_write: true");
	(void)unsetenv("PMEM2_FORCE_GRANULARITY");
	return ret;
}

/* setup_crash -- the daemon of group crash, on its own port */
static int
setup_crash(void **state)
{
	(void)state;
	return daemon_up(PORT_CRASH, GPSPM);
}

/* setup_gone -- the daemon of group gone, on its own port */
static int
setup_gone(void **state)
{
	(void)state;
	return daemon_up(PORT_GONE, GPSPM);
}

/* setup_proto -- the daemon of group proto, on its own port */
static int
setup_proto(void **state)
{
	(void)state;
	return daemon_up(PORT_PROTO, GPSPM);
}

/* teardown_group -- the group's daemon must stop well */
static int
teardown_group(void **state)
{
	(void)state;
	return daemon_stop();
}

/* ------------------------------------------------------------------ 1. round trip */

/* header_has -- the header of part 0 of l carries a's signature and major (pool_hdr.h) */
static void
header_has(const struct layout *l, const struct rpmem_pool_attr *a)
{
	char path[PATH_MAX];
	uint8_t h[12], major[4];

	for (unsigned i = 0; i < 4; i++)
		major[i] = (uint8_t)(a->major >> (8 * i));
	assert_int_equal(file_read(part_path(l, 0, path), 0, h, sizeof(h)), 0);
	assert_memory_equal(h, a->signature, RPMEM_POOL_HDR_SIG_LEN);
	assert_memory_equal(h + 8, major, 4);
}

/*
 * test_roundtrip -- create, close, open (the attributes come back bit for
 * bit), set_attr, close, open (the new ones), remove (the parts go, the set
 * file stays); the lanes granted; rpmem_check_version()
 */
static void
test_roundtrip(void **state)
{
	struct layout l = {"rt", NULL, 1, {POOL}};
	struct rpmem_pool_attr ca, na, oa, bad;
	char *mem = mem_new(POOL), path[PATH_MAX];
	unsigned nl = 1024;
	RPMEMpool *p;

	(void)state;
	assert_null(rpmem_check_version(RPMEM_MAJOR_VERSION, RPMEM_MINOR_VERSION));
	assert_null(rpmem_check_version(1, 0));
	assert_non_null(rpmem_check_version(1, RPMEM_MINOR_VERSION + 1));
	assert_non_null(rpmem_check_version(2, 0));
	layout_write(&l);
	attr_make(&ca, 1, INCOMPAT);
	attr_make(&na, 2, INCOMPAT);
	p = MUST(rpmem_create(Target, "rt.set", mem, POOL, &nl, &ca));
	assert_int_equal(nl, MAX_LANES);
	assert_int_equal(parts_exist(&l), 1);
	header_has(&l, &ca);
	OK(rpmem_close(p));

	memset(&oa, 0xa5, sizeof(oa));
	nl = 4;
	p = MUST(rpmem_open(Target, "rt.set", mem, POOL, &nl, &oa));
	assert_int_equal(nl, 4);
	assert_memory_equal(&oa, &ca, sizeof(ca));
	/* refused attributes leave the pool's as they were */
	bad = na;
	bad.incompat_features |= SINGLEHDR;
	FAILS(rpmem_set_attr(p, &bad), EINVAL);
	FAILS(rpmem_set_attr(p, NULL), EINVAL);
	header_has(&l, &ca);
	OK(rpmem_set_attr(p, &na));
	header_has(&l, &na);
	OK(rpmem_close(p));

	memset(&oa, 0xa5, sizeof(oa));
	p = MUST(rpmem_open(Target, "rt.set", mem, POOL, &nl, &oa));
	assert_memory_equal(&oa, &na, sizeof(na));
	OK(rpmem_close(p));
	/* open_attr may be NULL */
	p = MUST(rpmem_open(Target, "rt.set", mem, POOL, &nl, NULL));
	OK(rpmem_close(p));

	OK(rpmem_remove(Target, "rt.set", 0));
	assert_int_equal(parts_exist(&l), 0);
	assert_true(exists(set_path(&l, path)));
	unlink(path);
	mem_free(mem, POOL);
}

/* ------------------------------------------------------------------ 4. errors */

/*
 * test_bad_args -- what the library refuses before it asks the daemon:
 * targets, pool set names, memory, lanes, remove flags; nothing is made
 */
static void
test_bad_args(void **state)
{
	static const char *const targets[] = {
	    "",		  "127.0.0.1:0",  "127.0.0.1:99999", "@127.0.0.1", "127.0.0.1:17670:x",
	    "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:x",
	};
	static const char *const names[] = {
	    "/abs.set", "../x.set", "a//b.set", "", "./x.set", "a/../b.set", "dir/", "a/./b.set",
	};
	struct layout l = {"ba", NULL, 1, {POOL}};
	struct rpmem_pool_attr a, oa, keep;
	char *mem = mem_new(POOL), longname[300];
	unsigned nl = 4, zero = 0;

	(void)state;
	layout_write(&l);
	attr_make(&a, 3, INCOMPAT);
	memset(&oa, 0x5a, sizeof(oa));
	keep = oa;
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		FAILS_NULL(rpmem_create(targets[i], "ba.set", mem, POOL, &nl, &a), EINVAL);
		FAILS_NULL(rpmem_open(targets[i], "ba.set", mem, POOL, &nl, &oa), EINVAL);
		FAILS(rpmem_remove(targets[i], "ba.set", 0), EINVAL);
	}
	FAILS_NULL(rpmem_create(NULL, "ba.set", mem, POOL, &nl, &a), EINVAL);
	FAILS(rpmem_remove(NULL, "ba.set", 0), EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (size_t i = 0; i <= sizeof(names) / sizeof(names[0]); i++) {
		const char *n = i < sizeof(names) / sizeof(names[0]) ? names[i] : longname;

		FAILS_NULL(rpmem_create(Target, n, mem, POOL, &nl, &a), EINVAL);
		FAILS_NULL(rpmem_open(Target, n, mem, POOL, &nl, &oa), EINVAL);
		FAILS(rpmem_remove(Target, n, 0), EINVAL);
	}
	FAILS_NULL(rpmem_create(Target, NULL, mem, POOL, &nl, &a), EINVAL);
	FAILS(rpmem_remove(Target, NULL, 0), EINVAL);
	/* the memory: unaligned address, unaligned size, too small, none */
	FAILS_NULL(rpmem_create(Target, "ba.set", mem + 64, POOL - HDR, &nl, &a), EINVAL);
	FAILS_NULL(rpmem_open(Target, "ba.set", mem + 64, POOL - HDR, &nl, &oa), EINVAL);
	FAILS_NULL(rpmem_create(Target, "ba.set", mem, POOL - 100, &nl, &a), EINVAL);
	FAILS_NULL(rpmem_open(Target, "ba.set", mem, POOL - 100, &nl, &oa), EINVAL);
	FAILS_NULL(rpmem_create(Target, "ba.set", mem, 4096, &nl, &a), EINVAL);
	FAILS_NULL(rpmem_open(Target, "ba.set", mem, 4096, &nl, &oa), EINVAL);
	FAILS_NULL(rpmem_create(Target, "ba.set", mem, 0, &nl, &a), EINVAL);
	FAILS_NULL(rpmem_create(Target, "ba.set", NULL, POOL, &nl, &a), EINVAL);
	/* the lanes */
	FAILS_NULL(rpmem_create(Target, "ba.set", mem, POOL, &zero, &a), EINVAL);
	FAILS_NULL(rpmem_open(Target, "ba.set", mem, POOL, &zero, &oa), EINVAL);
	FAILS_NULL(rpmem_create(Target, "ba.set", mem, POOL, NULL, &a), EINVAL);
	assert_int_equal(zero, 0);
	/* remove's flags */
	FAILS(rpmem_remove(Target, "ba.set", 0x4), EINVAL);
	FAILS(rpmem_remove(Target, "ba.set", 0x8 | RPMEM_REMOVE_FORCE), EINVAL);
	FAILS(rpmem_remove(Target, "ba.set", -1), EINVAL);
	/* no handle */
	FAILS(rpmem_close(NULL), EINVAL);
	FAILS(rpmem_set_attr(NULL, &a), EINVAL);
	/* nothing was made, nothing was given back */
	assert_int_equal(nl, 4);
	assert_memory_equal(&oa, &keep, sizeof(oa));
	assert_int_equal(parts_exist(&l), 0);
	mem_free(mem, POOL);
}

/*
 * test_pool_errors -- ENOENT (no set file, a removed pool), EBUSY (open
 * twice, remove while open), EEXIST (create twice, the pool intact),
 * EFBIG (create and open), EINVAL (attributes for a set with headers
 * missing, a set file that is not one); a failed call changes nothing
 */
static void
test_pool_errors(void **state)
{
	struct layout l = {"pe", NULL, 1, {POOL}}, big = {"fb", NULL, 1, {POOL}};
	struct rpmem_pool_attr a, zero, oa, keep;
	char *mem = mem_new(POOL), *mem2 = mem_new(2 * POOL), path[PATH_MAX];
	unsigned nl = 4;
	RPMEMpool *p;

	(void)state;
	layout_write(&l);
	layout_write(&big);
	attr_make(&a, 4, INCOMPAT);
	memset(&zero, 0, sizeof(zero));
	memset(&oa, 0x5a, sizeof(oa));
	keep = oa;
	/* no set file */
	FAILS_NULL(rpmem_create(Target, "nosuch.set", mem, POOL, &nl, &a), ENOENT);
	FAILS_NULL(rpmem_open(Target, "nosuch.set", mem, POOL, &nl, &oa), ENOENT);
	FAILS(rpmem_remove(Target, "nosuch.set", 0), ENOENT);
	FAILS(rpmem_remove(Target, "nosuch.set", RPMEM_REMOVE_FORCE), ENOENT);
	/* a set with headers needs attributes */
	FAILS_NULL(rpmem_create(Target, "pe.set", mem, POOL, &nl, NULL), EINVAL);
	FAILS_NULL(rpmem_create(Target, "pe.set", mem, POOL, &nl, &zero), EINVAL);
	assert_int_equal(parts_exist(&l), 0);

	p = MUST(rpmem_create(Target, "pe.set", mem, POOL, &nl, &a));
	FAILS_NULL(rpmem_open(Target, "pe.set", mem2, POOL, &nl, &oa), EBUSY);
	FAILS(rpmem_remove(Target, "pe.set", 0), EBUSY);
	FAILS(rpmem_remove(Target, "pe.set", RPMEM_REMOVE_FORCE), EBUSY);
	OK(rpmem_close(p));

	FAILS_NULL(rpmem_create(Target, "pe.set", mem, POOL, &nl, &a), EEXIST);
	assert_int_equal(parts_exist(&l), 1);
	/* the EFBIGs: the set gives POOL bytes */
	FAILS_NULL(rpmem_open(Target, "pe.set", mem2, 2 * POOL, &nl, &oa), EFBIG);
	FAILS_NULL(rpmem_create(Target, "fb.set", mem2, 2 * POOL, &nl, &a), EFBIG);
	assert_int_equal(parts_exist(&big), 0);
	assert_int_equal(nl, 4);
	assert_memory_equal(&oa, &keep, sizeof(oa));
	/* the failed create left the pool as it was */
	p = MUST(rpmem_open(Target, "pe.set", mem, POOL, &nl, &oa));
	assert_memory_equal(&oa, &a, sizeof(a));
	OK(rpmem_close(p));
	/* a client may map less than the pool: its own pool_size bounds the ranges */
	p = MUST(rpmem_open(Target, "pe.set", mem, POOL / 2, &nl, NULL));
	fill(mem, POOL / 2 - 1, 1, 8);
	OK(rpmem_persist(p, POOL / 2 - 1, 1, 0, 0));
	assert_int_equal(file_check(&l, POOL / 2 - 1, mem + POOL / 2 - 1, 1), 0);
	FAILS(rpmem_persist(p, POOL / 2, 1, 0, 0), EINVAL);
	FAILS(rpmem_read(p, mem, POOL / 2, 1, 0), EINVAL);
	OK(rpmem_close(p));

	OK(rpmem_remove(Target, "pe.set", 0));
	FAILS_NULL(rpmem_open(Target, "pe.set", mem, POOL, &nl, &oa), ENOENT);
	FAILS(rpmem_remove(Target, "pe.set", 0), ENOENT);

	/* set files that are not remote pool sets */
	assert_int_equal(
	    file_write(pathf(path, "%s/bad.set", D.dir), "NOTAPOOLSET\n8M bad.p0\n", 0644), 0);
	FAILS_NULL(rpmem_create(Target, "bad.set", mem, POOL, &nl, &a), EINVAL);
	assert_int_equal(file_write(path, "PMEMPOOLSET\n8M bad.p0\nREPLICA\n8M bad.r0\n", 0644), 0);
	FAILS_NULL(rpmem_create(Target, "bad.set", mem, POOL, &nl, &a), EINVAL);
	assert_int_equal(file_write(path, "PMEMPOOLSET\n1M bad.p0\n", 0644), 0);
	FAILS_NULL(rpmem_create(Target, "bad.set", mem, POOL, &nl, &a), EINVAL);
	assert_false(exists(pathf(path, "%s/bad.p0", D.dir)));
	mem_free(mem, POOL);
	mem_free(mem2, 2 * POOL);
}

/*
 * test_remove_force -- a pool made inconsistent by the test (a part
 * truncated, then a part missing): remove without FORCE fails and removes
 * nothing; with FORCE it removes the rest; POOL_SET takes the set file too
 */
static void
test_remove_force(void **state)
{
	struct layout l = {"rf", NULL, 2, {2 * MIB, 2 * MIB}};
	size_t size = layout_size(&l);
	struct rpmem_pool_attr a;
	char *mem = mem_new(size), path[PATH_MAX];
	unsigned nl = 4;

	(void)state;
	layout_write(&l);
	attr_make(&a, 5, INCOMPAT);
	OK(rpmem_close(MUST(rpmem_create(Target, "rf.set", mem, size, &nl, &a))));
	assert_int_equal(parts_exist(&l), 2);
	assert_int_equal(truncate(part_path(&l, 1, path), MIB), 0);
	FAILS_NULL(rpmem_open(Target, "rf.set", mem, size, &nl, NULL), EUCLEAN);
	FAILS(rpmem_remove(Target, "rf.set", 0), EUCLEAN);
	assert_int_equal(parts_exist(&l), 2);
	OK(rpmem_remove(Target, "rf.set", RPMEM_REMOVE_FORCE));
	assert_int_equal(parts_exist(&l), 0);
	assert_true(exists(set_path(&l, path)));

	/* a part missing */
	OK(rpmem_close(MUST(rpmem_create(Target, "rf.set", mem, size, &nl, &a))));
	assert_int_equal(unlink(part_path(&l, 0, path)), 0);
	FAILS(rpmem_remove(Target, "rf.set", 0), ENOENT);
	assert_int_equal(parts_exist(&l), 1);
	OK(rpmem_remove(Target, "rf.set", RPMEM_REMOVE_FORCE | RPMEM_REMOVE_POOL_SET));
	assert_int_equal(parts_exist(&l), 0);
	assert_false(exists(set_path(&l, path)));
	mem_free(mem, size);
}

/* test_remove_pool_set -- RPMEM_REMOVE_POOL_SET removes the set file with the parts */
static void
test_remove_pool_set(void **state)
{
	struct layout l = {"ps", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL), path[PATH_MAX];
	unsigned nl = 4;

	(void)state;
	layout_write(&l);
	attr_make(&a, 6, INCOMPAT);
	OK(rpmem_close(MUST(rpmem_create(Target, "ps.set", mem, POOL, &nl, &a))));
	OK(rpmem_remove(Target, "ps.set", RPMEM_REMOVE_POOL_SET));
	assert_int_equal(parts_exist(&l), 0);
	assert_false(exists(set_path(&l, path)));
	FAILS(rpmem_remove(Target, "ps.set", 0), ENOENT);
	mem_free(mem, POOL);
}

/* client_yaml -- a librpmem configuration at path with key file key and targets */
static int
client_yaml(const char *path, const char *key, const char *targets)
{
	char yaml[PATH_MAX * 2];

	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 1}\n"
		 "targets: %s\n"
		 "timeouts: {connect_ms: 3000, operation_ms: 2000, heartbeat_interval_ms: 200,\n"
		 "           heartbeat_misses: 3}\n"
		 "reconnect: {initial_ms: 50, max_ms: 500}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: error}\n",
		 targets, key);
	return file_write(path, yaml, 0600);
}

/* the one target of librpmem's configuration (its address and port come from the target string) */
#define ONE_TARGET "[{name: rpmemd, address: " ADDR ", port: 7636, connections: 2}]"

/*
 * test_config_errors -- another key than the daemon's (EACCES), a
 * LIBRPMEM_CONFIG that is not a configuration, or names two targets
 * (EINVAL), no daemon at the target (a connection errno, in bounded time)
 */
static void
test_config_errors(void **state)
{
	static const char other_key[] =
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
	struct layout l = {"ce", NULL, 1, {POOL}};
	char good[PATH_MAX], path[PATH_MAX], key[PATH_MAX], none[64];
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL);
	unsigned nl = 4;
	uint64_t t0;
	RPMEMpool *p;
	int err;

	(void)state;
	layout_write(&l);
	attr_make(&a, 9, INCOMPAT);
	snprintf(good, sizeof(good), "%s", getenv("LIBRPMEM_CONFIG"));
	pathf(path, "%s/other.yaml", Dir);
	pathf(key, "%s/other.key", Dir);
	assert_int_equal(file_write(key, other_key, 0600), 0);
	assert_int_equal(client_yaml(path, key, ONE_TARGET), 0);
	assert_int_equal(setenv("LIBRPMEM_CONFIG", path, 1), 0);
	FAILS_NULL(rpmem_create(Target, "ce.set", mem, POOL, &nl, &a), EACCES);
	FAILS(rpmem_remove(Target, "ce.set", 0), EACCES);
	assert_int_equal(file_write(path, "workers: {cont: 1}\n", 0600), 0);
	FAILS_NULL(rpmem_create(Target, "ce.set", mem, POOL, &nl, &a), EINVAL);
	pathf(key, "%s/key", Dir);
	assert_int_equal(client_yaml(path, key,
				     "[{name: a, address: " ADDR ", port: 1},"
				     " {name: b, address: " ADDR ", port: 2}]"),
			 0);
	FAILS_NULL(rpmem_create(Target, "ce.set", mem, POOL, &nl, &a), EINVAL);
	assert_int_equal(setenv("LIBRPMEM_CONFIG", good, 1), 0);
	assert_int_equal(parts_exist(&l), 0);

	/* nobody listens on the last port of the range */
	snprintf(none, sizeof(none), ADDR ":%u", PORT_NONE);
	t0 = now_ms();
	err_arm();
	p = rpmem_create(none, "ce.set", mem, POOL, &nl, &a);
	err = errno;
	assert_null(p);
	if (err != ECONNREFUSED && err != EHOSTUNREACH && err != ETIMEDOUT && err != ECONNRESET &&
	    err != ECONNABORTED)
		fail_msg("no daemon: errno %d (%s): %s", err, strerror(err), rpmem_errormsg());
	err_check(true, err, err, "rpmem_create() without a daemon", __LINE__);
	assert_true(now_ms() - t0 <= WAIT_MS);

	/* and the right key still works */
	p = MUST(rpmem_create(Target, "ce.set", mem, POOL, &nl, &a));
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "ce.set", RPMEM_REMOVE_POOL_SET));
	assert_int_equal(nl, 4);
	mem_free(mem, POOL);
}

/* ------------------------------------------------------------------ 2. persist and read */

/* persist_check -- persist [x, x + len) of pattern seed with flags on lane; it is in the file */
static void
persist_check(const struct layout *l, RPMEMpool *p, char *mem, size_t x, size_t len, unsigned lane,
	      unsigned flags, unsigned seed)
{
	fill(mem, x, len, seed);
	OK(rpmem_persist(p, x, len, lane, flags));
	assert_int_equal(file_check(l, x, mem + x, len), 0);
}

/* bad_ranges -- offsets, lanes and flags every data call refuses on pool p of size bytes */
static void
bad_ranges(RPMEMpool *p, size_t size, unsigned nl, char *buf)
{
	FAILS(rpmem_persist(p, size - 10, 11, 0, 0), EINVAL);
	FAILS(rpmem_persist(p, size, 1, 0, 0), EINVAL);
	FAILS(rpmem_persist(p, SIZE_MAX, 2, 0, 0), EINVAL);
	FAILS(rpmem_persist(p, HDR, SIZE_MAX, 0, 0), EINVAL);
	FAILS(rpmem_persist(p, HDR, SIZE_MAX - HDR + 1, 0, 0), EINVAL);
	FAILS(rpmem_flush(p, size - 1, 2, 0, 0), EINVAL);
	FAILS(rpmem_deep_persist(p, size - 1, 2, 0), EINVAL);
	FAILS(rpmem_read(p, buf, size - 1, 2, 0), EINVAL);
	FAILS(rpmem_read(p, buf, SIZE_MAX, 2, 0), EINVAL);
	/* lanes */
	FAILS(rpmem_persist(p, HDR, 8, nl, 0), EINVAL);
	FAILS(rpmem_persist(p, HDR, 8, UINT_MAX, RPMEM_PERSIST_RELAXED), EINVAL);
	FAILS(rpmem_flush(p, HDR, 8, nl, 0), EINVAL);
	FAILS(rpmem_drain(p, nl, 0), EINVAL);
	FAILS(rpmem_deep_persist(p, HDR, 8, nl), EINVAL);
	FAILS(rpmem_read(p, buf, HDR, 8, nl), EINVAL);
	/* flags */
	FAILS(rpmem_persist(p, HDR, 8, 0, 2), EINVAL);
	FAILS(rpmem_persist(p, HDR, 8, 0, 0x80000000u | RPMEM_PERSIST_RELAXED), EINVAL);
	FAILS(rpmem_flush(p, HDR, 8, 0, 2), EINVAL);
	FAILS(rpmem_drain(p, 0, 1), EINVAL);
	FAILS(rpmem_drain(p, 0, 0x100), EINVAL);
	/* no pool, no buffer */
	FAILS(rpmem_persist(NULL, HDR, 8, 0, 0), EINVAL);
	FAILS(rpmem_deep_persist(NULL, HDR, 8, 0), EINVAL);
	FAILS(rpmem_flush(NULL, HDR, 8, 0, 0), EINVAL);
	FAILS(rpmem_drain(NULL, 0, 0), EINVAL);
	FAILS(rpmem_read(NULL, buf, HDR, 8, 0), EINVAL);
	FAILS(rpmem_read(p, NULL, HDR, 8, 0), EINVAL);
}

/* a pool of the data tests: its set, its handle, its local memory, a buffer elsewhere */
struct dpool {
	const struct layout *l;
	RPMEMpool *p;
	char *mem;
	char *buf; /* MIB + 16 bytes */
	unsigned nl;
};

/* persist_ranges -- persist and deep_persist at 4096, unaligned, the last byte, large; length 0 */
static void
persist_ranges(const struct dpool *d)
{
	static const struct {
		size_t x, len;
		unsigned flags;
	} cases[] = {
	    {HDR, 4096, 0},
	    {HDR, 4096, RPMEM_PERSIST_RELAXED},
	    {3 * HDR + 13, 1000, 0},
	    {5 * HDR + 1, 3, RPMEM_PERSIST_RELAXED},
	    {POOL - 1, 1, 0},
	    {POOL - 1, 1, RPMEM_PERSIST_RELAXED},
	    {POOL - 100003, 100003, 0}, /* seed 7: reads() looks at it */
	    {64 * 1024 + 7, MIB + 9, RPMEM_PERSIST_RELAXED},
	    {6 * HDR - 3, 6, 0},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		persist_check(d->l, d->p, d->mem, cases[i].x, cases[i].len, i % d->nl,
			      cases[i].flags, i + 1);
	fill(d->mem, 2 * MIB + 5, 10000, 50);
	OK(rpmem_deep_persist(d->p, 2 * MIB + 5, 10000, 1));
	assert_int_equal(file_check(d->l, 2 * MIB + 5, d->mem + 2 * MIB + 5, 10000), 0);
	OK(rpmem_persist(d->p, HDR, 0, 0, 0));
	OK(rpmem_persist(d->p, POOL - 1, 0, 0, RPMEM_PERSIST_RELAXED));
	OK(rpmem_deep_persist(d->p, HDR, 0, 0));
	OK(rpmem_flush(d->p, HDR, 0, 0, 0));
	OK(rpmem_drain(d->p, 0, 0));
	OK(rpmem_read(d->p, d->buf, HDR, 0, 0));
}

/* meta_rules -- the first 4096 bytes: persist, flush and deep_persist refused, the header stays;
 * read */
static void
meta_rules(const struct dpool *d)
{
	uint8_t hdr[HDR], hdr2[HDR];
	char path[PATH_MAX];

	assert_int_equal(file_read(part_path(d->l, 0, path), 0, hdr, HDR), 0);
	memset(d->mem, 0xee, HDR);
	FAILS(rpmem_persist(d->p, 0, 64, 0, 0), EINVAL);
	FAILS(rpmem_persist(d->p, HDR - 1, 1, 0, 0), EINVAL);
	FAILS(rpmem_persist(d->p, HDR - 8, 16, 0, RPMEM_PERSIST_RELAXED), EINVAL);
	FAILS(rpmem_flush(d->p, 0, 64, 0, 0), EINVAL);
	FAILS(rpmem_flush(d->p, 100, 1, 0, RPMEM_FLUSH_RELAXED), EINVAL);
	FAILS(rpmem_deep_persist(d->p, 0, 64, 0), EINVAL);
	FAILS(rpmem_deep_persist(d->p, HDR - 1, 2, 0), EINVAL);
	OK(rpmem_drain(d->p, 0, 0));
	assert_int_equal(file_read(path, 0, hdr2, HDR), 0);
	assert_memory_equal(hdr, hdr2, HDR);
	memset(d->buf, 0, HDR);
	OK(rpmem_read(d->p, d->buf, 0, HDR, 2));
	assert_memory_equal(d->buf, hdr, HDR);
	OK(rpmem_read(d->p, d->buf, 100, 7, 2));
	assert_memory_equal(d->buf, hdr + 100, 7);
}

/* flush_drain -- more flushes than a lane keeps in flight, on two lanes, then one more */
static void
flush_drain(const struct dpool *d)
{
	for (unsigned i = 0; i < 20; i++) {
		size_t x = 4 * MIB + i * 8192;

		fill(d->mem, x, 8192, 60 + i);
		OK(rpmem_flush(d->p, x, 8192, 2 + i % 2, i % 3 ? RPMEM_FLUSH_RELAXED : 0));
	}
	OK(rpmem_drain(d->p, 2, 0));
	OK(rpmem_drain(d->p, 3, 0));
	assert_int_equal(file_check(d->l, 4 * MIB, d->mem + 4 * MIB, 20 * 8192), 0);
	fill(d->mem, 5 * MIB + 3, 77, 90);
	OK(rpmem_flush(d->p, 5 * MIB + 3, 77, 4, 0));
	OK(rpmem_drain(d->p, 4, 0));
	assert_int_equal(file_check(d->l, 5 * MIB + 3, d->mem + 5 * MIB + 3, 77), 0);
}

/* reads -- into memory outside the pool (aligned and not), and into the pool's own memory */
static void
reads(const struct dpool *d)
{
	char *mem = d->mem, *buf = d->buf;

	memset(buf, 0, MIB + 16);
	OK(rpmem_read(d->p, buf, 64 * 1024 + 7, MIB + 9, 5));
	assert_memory_equal(buf, mem + 64 * 1024 + 7, MIB + 9);
	OK(rpmem_read(d->p, buf + 3, 3 * HDR + 13, 1000, 6));
	assert_memory_equal(buf + 3, mem + 3 * HDR + 13, 1000);
	OK(rpmem_read(d->p, buf, POOL - 1, 1, 7));
	assert_int_equal(buf[0], mem[POOL - 1]);
	/* the pool's own memory, elsewhere than the range read (flush_drain()'s) */
	memset(mem + 6 * MIB, 0, 128 * 1024);
	OK(rpmem_read(d->p, mem + 6 * MIB, 4 * MIB, 20 * 8192, 0));
	assert_memory_equal(mem + 6 * MIB, mem + 4 * MIB, 20 * 8192);
	OK(rpmem_read(d->p, mem + 7 * MIB + 1, 3 * HDR + 13, 1000, 1));
	assert_memory_equal(mem + 7 * MIB + 1, mem + 3 * HDR + 13, 1000);
	OK(rpmem_read(d->p, mem + POOL - 64, POOL - 100003, 64, 1));
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal((uint8_t)mem[POOL - 64 + i], pat(7, POOL - 100003 + i));
}

/*
 * test_persist_rules -- persist (flags 0 and RELAXED), deep_persist, flush
 * and drain, each range checked in the part file; the metadata; out of
 * range, lanes and flags refused; reads
 */
static void
test_persist_rules(void **state)
{
	struct layout l = {"pr", NULL, 1, {POOL}};
	struct dpool d = {.l = &l, .mem = mem_new(POOL), .buf = malloc(MIB + 16), .nl = 8};
	struct rpmem_pool_attr a;

	(void)state;
	assert_non_null(d.buf);
	layout_write(&l);
	attr_make(&a, 7, INCOMPAT);
	d.p = MUST(rpmem_create(Target, "pr.set", d.mem, POOL, &d.nl, &a));
	assert_int_equal(d.nl, 8);
	persist_ranges(&d);
	meta_rules(&d);
	bad_ranges(d.p, POOL, d.nl, d.buf);
	flush_drain(&d);
	reads(&d);
	OK(rpmem_close(d.p));
	OK(rpmem_remove(Target, "pr.set", RPMEM_REMOVE_POOL_SET));
	free(d.buf);
	mem_free(d.mem, POOL);
}

/* ------------------------------------------------------------------ 3. set options */

/*
 * test_nohdrs -- OPTION NOHDRS: created with NULL attributes (none taken
 * otherwise), persist and flush from offset 0 into file offset 0,
 * deep_persist still not below 4096, zero attributes back from open
 */
static void
test_nohdrs(void **state)
{
	struct layout l = {"nh", "NOHDRS", 1, {4 * MIB}};
	size_t size = layout_size(&l);
	struct rpmem_pool_attr a, oa, zero;
	char *mem = mem_new(size), buf[64];
	unsigned nl = 4;
	RPMEMpool *p;

	(void)state;
	assert_int_equal(size, 4 * MIB);
	layout_write(&l);
	attr_make(&a, 8, INCOMPAT);
	memset(&zero, 0, sizeof(zero));
	FAILS_NULL(rpmem_create(Target, "nh.set", mem, size, &nl, &a), EINVAL);
	assert_int_equal(parts_exist(&l), 0);
	p = MUST(rpmem_create(Target, "nh.set", mem, size, &nl, NULL));
	persist_check(&l, p, mem, 0, 8192, 0, 0, 11);
	persist_check(&l, p, mem, 1, 10, 1, RPMEM_PERSIST_RELAXED, 12);
	fill(mem, 100, 50, 13);
	OK(rpmem_flush(p, 100, 50, 2, RPMEM_FLUSH_RELAXED));
	OK(rpmem_drain(p, 2, 0));
	assert_int_equal(file_check(&l, 100, mem + 100, 50), 0);
	persist_check(&l, p, mem, size - 4096, 4096, 3, 0, 14);
	FAILS(rpmem_deep_persist(p, 0, 64, 0), EINVAL);
	FAILS(rpmem_deep_persist(p, HDR - 1, 1, 0), EINVAL);
	fill(mem, HDR, 64, 15);
	OK(rpmem_deep_persist(p, HDR, 64, 0));
	assert_int_equal(file_check(&l, HDR, mem + HDR, 64), 0);
	FAILS(rpmem_set_attr(p, &a), EINVAL);
	OK(rpmem_set_attr(p, NULL));
	OK(rpmem_set_attr(p, &zero));
	OK(rpmem_read(p, buf, 0, sizeof(buf), 1));
	assert_memory_equal(buf, mem, sizeof(buf));
	OK(rpmem_close(p));

	memset(&oa, 0xa5, sizeof(oa));
	p = MUST(rpmem_open(Target, "nh.set", mem, size, &nl, &oa));
	assert_memory_equal(&oa, &zero, sizeof(zero));
	persist_check(&l, p, mem, 0, 4096, 0, 0, 16);
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "nh.set", RPMEM_REMOVE_POOL_SET));
	mem_free(mem, size);
}

/* cross_check -- bytes [x, x + len) of pattern seed are in part k's file at off */
static void
cross_check(const struct layout *l, unsigned k, size_t off, size_t x, size_t len, unsigned seed)
{
	char path[PATH_MAX];
	uint8_t *b = malloc(len);

	assert_non_null(b);
	assert_int_equal(file_read(part_path(l, k, path), off, b, len), 0);
	for (size_t i = 0; i < len; i++) {
		if (b[i] != pat(seed, x + i)) {
			print_error("%s offset %zu: 0x%02x, expected 0x%02x (pool offset %zu)\n",
				    path, off + i, b[i], pat(seed, x + i), x + i);
			fail();
		}
	}
	free(b);
}

/*
 * two_parts -- a two-part set of 2 MiB parts: a persist across the parts'
 * boundary lands in both files at the offsets LAYOUT gives (h: the second
 * part's file offset of its first pool byte), the last byte too; the
 * pool is read back across the boundary and opens with its attributes
 */
static void
two_parts(const struct layout *l, uint32_t incompat, size_t h, unsigned seed)
{
	size_t size = layout_size(l), b0 = 2 * MIB; /* the boundary: part 0 is whole */
	struct rpmem_pool_attr a, oa;
	char *mem = mem_new(4 * MIB + HDR), *buf = malloc(3000), name[64];
	unsigned nl = 4;
	RPMEMpool *p;

	assert_non_null(buf);
	snprintf(name, sizeof(name), "%s.set", l->name);
	layout_write(l);
	attr_make(&a, seed, incompat);
	/* the set gives size bytes: not one page more */
	FAILS_NULL(rpmem_create(Target, name, mem, size + 4096, &nl, &a), EFBIG);
	p = MUST(rpmem_create(Target, name, mem, size, &nl, &a));
	fill(mem, b0 - 1000, 3000, seed);
	OK(rpmem_persist(p, b0 - 1000, 3000, 0, 0));
	cross_check(l, 0, b0 - 1000, b0 - 1000, 1000, seed);
	cross_check(l, 1, h, b0, 2000, seed);
	assert_int_equal(file_check(l, b0 - 1000, mem + b0 - 1000, 3000), 0);
	fill(mem, size - 1, 1, seed);
	OK(rpmem_persist(p, size - 1, 1, 1, RPMEM_PERSIST_RELAXED));
	cross_check(l, 1, 2 * MIB - 1, size - 1, 1, seed);
	fill(mem, b0 - 8, 16, seed + 1);
	OK(rpmem_flush(p, b0 - 8, 16, 2, 0));
	OK(rpmem_drain(p, 2, 0));
	cross_check(l, 1, h, b0, 8, seed + 1);
	OK(rpmem_close(p));

	p = MUST(rpmem_open(Target, name, mem, size, &nl, &oa));
	assert_memory_equal(&oa, &a, sizeof(a));
	OK(rpmem_read(p, buf, b0 - 1000, 3000, 0));
	assert_memory_equal(buf, mem + b0 - 1000, 3000);
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, name, RPMEM_REMOVE_POOL_SET));
	assert_int_equal(parts_exist(l), 0);
	free(buf);
	mem_free(mem, 4 * MIB + HDR);
}

/* test_singlehdr -- OPTION SINGLEHDR: the second part is data from its byte 0 */
static void
test_singlehdr(void **state)
{
	struct layout l = {"sh", "SINGLEHDR", 2, {2 * MIB, 2 * MIB}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(4 * MIB);
	unsigned nl = 4;

	(void)state;
	assert_int_equal(layout_size(&l), 4 * MIB);
	layout_write(&l);
	/* a SINGLEHDR set takes attributes with the SINGLEHDR bit only (pool.h) */
	attr_make(&a, 20, INCOMPAT);
	FAILS_NULL(rpmem_create(Target, "sh.set", mem, 4 * MIB, &nl, &a), EINVAL);
	assert_int_equal(parts_exist(&l), 0);
	mem_free(mem, 4 * MIB);
	two_parts(&l, INCOMPAT | SINGLEHDR, 0, 21);
}

/* second_header -- part 1 of a set without options keeps a header of its own: the signature */
static void
second_header(const struct layout *l)
{
	struct rpmem_pool_attr a;
	char *mem = mem_new(4 * MIB), path[PATH_MAX];
	uint8_t sig[RPMEM_POOL_HDR_SIG_LEN];
	unsigned nl = 4;
	RPMEMpool *p;

	layout_write(l);
	attr_make(&a, 23, INCOMPAT);
	p = MUST(rpmem_create(Target, "tp.set", mem, 4 * MIB - HDR, &nl, &a));
	/* across the boundary, over where the header would be if it were mapped */
	fill(mem, 2 * MIB - 8, HDR + 16, 24);
	OK(rpmem_persist(p, 2 * MIB - 8, HDR + 16, 0, 0));
	assert_int_equal(file_check(l, 2 * MIB - 8, mem + 2 * MIB - 8, HDR + 16), 0);
	assert_int_equal(file_read(part_path(l, 1, path), 0, sig, sizeof(sig)), 0);
	assert_memory_equal(sig, a.signature, sizeof(sig));
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "tp.set", RPMEM_REMOVE_POOL_SET));
	mem_free(mem, 4 * MIB);
}

/* test_two_parts -- no option: the second part's own header is skipped (file offset 4096 on) */
static void
test_two_parts(void **state)
{
	struct layout l = {"tp", NULL, 2, {2 * MIB, 2 * MIB}};

	(void)state;
	assert_int_equal(layout_size(&l), 4 * MIB - HDR);
	two_parts(&l, INCOMPAT, HDR, 22);
	second_header(&l);
}

/* ------------------------------------------------------------------ 5. lanes and threads */

/* one thread of test_lanes: its lanes, its share of the pool, its first failure */
struct lane_worker {
	pthread_t thread;
	RPMEMpool *p;
	char *mem;
	unsigned t;
	size_t start, chunk;
	char failed[512];
};

/* lane_fail -- the first failure of a worker */
static void
lane_fail(struct lane_worker *w, const char *what, unsigned i)
{
	int err = errno;

	if (!w->failed[0])
		snprintf(w->failed, sizeof(w->failed), "thread %u, op %u: %s: errno %d (%s): %s",
			 w->t, i, what, err, strerror(err), rpmem_errormsg());
}

/* lane_run -- THREAD_OPS operations on the worker's 8 lanes, each on a range of its own */
static void *
lane_run(void *arg)
{
	struct lane_worker *w = arg;
	size_t slot = w->chunk / THREAD_OPS;
	unsigned first = w->t * (MAX_LANES / THREADS);

	for (unsigned i = 0; i < THREAD_OPS; i++) {
		unsigned lane = first + i % (MAX_LANES / THREADS);
		size_t x = w->start + i * slot + (i * 37) % 64;
		size_t len = 1 + (i * 977u) % (slot - 64);

		fill(w->mem, x, len, 1000 + w->t);
		switch (i % 5) {
		case 0:
		case 1:
			if (rpmem_persist(w->p, x, len, lane, i % 5 ? RPMEM_PERSIST_RELAXED : 0))
				lane_fail(w, "persist", i);
			break;
		case 2:
			if (rpmem_deep_persist(w->p, x, len, lane))
				lane_fail(w, "deep_persist", i);
			break;
		default:
			if (rpmem_flush(w->p, x, len, lane, i % 2 ? RPMEM_FLUSH_RELAXED : 0))
				lane_fail(w, "flush", i);
		}
		if (i % 16 == 15 && rpmem_drain(w->p, lane, 0))
			lane_fail(w, "drain", i);
	}
	for (unsigned k = 0; k < MAX_LANES / THREADS; k++) {
		if (rpmem_drain(w->p, first + k, 0))
			lane_fail(w, "final drain", k);
	}
	return NULL;
}

/*
 * test_lanes -- 64 lanes, 8 threads with 8 lanes each persisting,
 * flushing and draining distinct ranges; then every byte of the pool is
 * checked through rpmem_read() and in the part file
 */
static void
test_lanes(void **state)
{
	struct layout l = {"ln", NULL, 1, {POOL}};
	struct lane_worker w[THREADS];
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL), *buf = malloc(POOL);
	size_t chunk = (POOL - HDR) / THREADS;
	unsigned nl = MAX_LANES, started = 0;
	struct timespec deadline;
	RPMEMpool *p;

	(void)state;
	assert_non_null(buf);
	layout_write(&l);
	attr_make(&a, 30, INCOMPAT);
	p = MUST(rpmem_create(Target, "ln.set", mem, POOL, &nl, &a));
	assert_int_equal(nl, MAX_LANES);
	memset(w, 0, sizeof(w));
	for (unsigned t = 0; t < THREADS; t++) {
		w[t] = (struct lane_worker){.p = p, .mem = mem, .t = t, .chunk = chunk};
		w[t].start = HDR + t * chunk;
		if (pthread_create(&w[t].thread, NULL, lane_run, &w[t]))
			break;
		started++;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += WAIT_MS / 1000 * 2;
	for (unsigned t = 0; t < started; t++)
		assert_int_equal(pthread_timedjoin_np(w[t].thread, NULL, &deadline), 0);
	assert_int_equal(started, THREADS);
	for (unsigned t = 0; t < THREADS; t++) {
		if (w[t].failed[0]) {
			print_error("%s\n", w[t].failed);
			fail();
		}
	}
	/* every byte: through the library, a chunk on a lane each, then in the file */
	memset(buf, 0x33, POOL);
	for (unsigned t = 0; t < THREADS; t++)
		OK(rpmem_read(p, buf + w[t].start, w[t].start, chunk, t * 8 + 7));
	OK(rpmem_read(p, buf + HDR + THREADS * chunk, HDR + THREADS * chunk,
		      POOL - HDR - THREADS * chunk, 63));
	assert_memory_equal(buf + HDR, mem + HDR, POOL - HDR);
	assert_int_equal(file_check(&l, HDR, mem + HDR, POOL - HDR), 0);
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "ln.set", RPMEM_REMOVE_POOL_SET));
	free(buf);
	mem_free(mem, POOL);
}

/*
 * test_lanes_env -- RPMEM_MAX_NLANES limits the lanes granted, as in PMDK's
 * librpmem; a value that is not a positive integer limits nothing
 */
static void
test_lanes_env(void **state)
{
	static const char *const ignored[] = {"0", "-3", "abc", "4x", ""};
	struct layout l = {"le", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL);
	unsigned nl = MAX_LANES;
	RPMEMpool *p;

	(void)state;
	layout_write(&l);
	attr_make(&a, 31, INCOMPAT);
	assert_int_equal(setenv("RPMEM_MAX_NLANES", "3", 1), 0);
	p = MUST(rpmem_create(Target, "le.set", mem, POOL, &nl, &a));
	assert_int_equal(nl, 3);
	fill(mem, HDR, 64, 5);
	OK(rpmem_persist(p, HDR, 64, 2, 0));
	errno = 0;
	assert_int_not_equal(rpmem_persist(p, HDR, 64, 3, 0), 0);
	assert_int_equal(errno, EINVAL);
	OK(rpmem_close(p));
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++) {
		assert_int_equal(setenv("RPMEM_MAX_NLANES", ignored[i], 1), 0);
		nl = MAX_LANES;
		p = MUST(rpmem_open(Target, "le.set", mem, POOL, &nl, NULL));
		assert_int_equal(nl, MAX_LANES);
		OK(rpmem_close(p));
	}
	assert_int_equal(unsetenv("RPMEM_MAX_NLANES"), 0);
	OK(rpmem_remove(Target, "le.set", RPMEM_REMOVE_POOL_SET));
	mem_free(mem, POOL);
}

/* one thread of test_parallel_pools: a pool of its own */
struct pool_worker {
	pthread_t thread;
	unsigned t;
	char name[32];
	char failed[512];
	bool msg_kept; /* its failures did not change the main thread's message */
};

/* pool_run -- create, persist, read back, fail once (EINVAL), close, remove the worker's pool */
static void *
pool_run(void *arg)
{
	struct pool_worker *w = arg;
	struct rpmem_pool_attr a;
	unsigned nl = 2;
	char *mem = mmap(NULL, POOL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf = malloc(MIB);
	RPMEMpool *p = NULL;
	const char *what = "memory";

	if (mem == MAP_FAILED || !buf)
		goto out;
	attr_make(&a, 60 + w->t, INCOMPAT);
	what = "create";
	if (!(p = rpmem_create(Target, w->name, mem, POOL, &nl, &a)))
		goto out;
	fill(mem, HDR, MIB, 70 + w->t);
	what = "persist";
	if (rpmem_persist(p, HDR, MIB, 0, 0))
		goto out;
	what = "read";
	if (rpmem_read(p, buf, HDR, MIB, 1))
		goto out;
	what = "compare";
	errno = EIO;
	if (memcmp(buf, mem + HDR, MIB))
		goto out;
	what = "a persist at 0 that succeeded";
	if (rpmem_persist(p, 0, 8, 0, 0) == 0 || errno != EINVAL)
		goto out;
	what = "close";
	if (rpmem_close(p)) {
		p = NULL;
		goto out;
	}
	p = NULL;
	what = "remove";
	if (rpmem_remove(Target, w->name, RPMEM_REMOVE_POOL_SET))
		goto out;
	what = NULL;
out:
	if (what)
		snprintf(w->failed, sizeof(w->failed), "pool %s: %s: errno %d (%s): %s", w->name,
			 what, errno, strerror(errno), rpmem_errormsg());
	if (p)
		(void)rpmem_close(p);
	free(buf);
	if (mem != MAP_FAILED)
		munmap(mem, POOL);
	return NULL;
}

/*
 * test_parallel_pools -- THREADS pools created, used, closed and removed at
 * the same time from as many threads; the failures of the threads do not
 * touch the main thread's rpmem_errormsg()
 */
static void
test_parallel_pools(void **state)
{
	struct pool_worker w[THREADS];
	struct timespec deadline;
	unsigned started = 0;
	char keep[256];

	(void)state;
	memset(w, 0, sizeof(w));
	err_arm();
	snprintf(keep, sizeof(keep), "%s", rpmem_errormsg());
	for (unsigned t = 0; t < THREADS; t++) {
		char base[16];
		struct layout l = {base, NULL, 1, {POOL}};

		snprintf(base, sizeof(base), "pp%u", t);
		layout_write(&l);
		snprintf(w[t].name, sizeof(w[t].name), "%s.set", base);
		w[t].t = t;
	}
	for (unsigned t = 0; t < THREADS; t++) {
		if (pthread_create(&w[t].thread, NULL, pool_run, &w[t]))
			break;
		started++;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += WAIT_MS / 1000 * 2;
	for (unsigned t = 0; t < started; t++)
		assert_int_equal(pthread_timedjoin_np(w[t].thread, NULL, &deadline), 0);
	assert_int_equal(started, THREADS);
	for (unsigned t = 0; t < THREADS; t++) {
		if (w[t].failed[0]) {
			print_error("%s\n", w[t].failed);
			fail();
		}
	}
	assert_string_equal(rpmem_errormsg(), keep);
}

/* ------------------------------------------------------------------ 6. the daemon killed */

/* the persist loop of test_daemon_killed */
struct looper {
	pthread_t thread;
	RPMEMpool *p;
	char *mem;
	atomic_ulong done_ok; /* persists that succeeded */
	atomic_bool finished;
	atomic_bool stop;
	uint64_t k_failed; /* the stamp of the persist that failed */
	uint64_t t_failed; /* when it returned (now_ms()) */
	int ret, err;
	char msg[512];
	uint64_t acked[SLOTS]; /* the last stamp persisted in each block */
};

/* loop_run -- persist block k % SLOTS filled with stamp k, k = 1, 2, ..., until one fails */
static void *
loop_run(void *arg)
{
	struct looper *lp = arg;
	uint64_t end = now_ms() + 30000;

	for (uint64_t k = 1; !atomic_load(&lp->stop) && now_ms() < end; k++) {
		size_t x = LOOP_OFF + (k % SLOTS) * BLOCK;
		uint64_t *words = (uint64_t *)(void *)(lp->mem + x);

		for (size_t i = 0; i < BLOCK / sizeof(*words); i++)
			words[i] = k;
		lp->ret = rpmem_persist(lp->p, x, BLOCK, 0, k % 2 ? RPMEM_PERSIST_RELAXED : 0);
		if (lp->ret) {
			lp->err = errno;
			lp->t_failed = now_ms();
			lp->k_failed = k;
			snprintf(lp->msg, sizeof(lp->msg), "%s", rpmem_errormsg());
			break;
		}
		lp->acked[k % SLOTS] = k;
		atomic_fetch_add(&lp->done_ok, 1);
	}
	atomic_store(&lp->finished, true);
	return NULL;
}

/* connection_errno -- err is one of the errnos of a lost connection */
static bool
connection_errno(int err)
{
	return err == ECONNRESET || err == ECONNABORTED || err == ETIMEDOUT;
}

/* checks of test_daemon_killed that failed: the test goes on, and fails at its end */
static unsigned Deferred;

/* FAST_FAILS -- call fails with errno err at once (AT_ONCE_MS); a miss is counted in Deferred */
#define FAST_FAILS(call, err)                                                                      \
	do {                                                                                       \
		uint64_t t_ = now_ms();                                                            \
		err_arm();                                                                         \
		int r_ = (call);                                                                   \
		int e_ = errno;                                                                    \
		uint64_t ms_ = now_ms() - t_;                                                      \
		if (!err_ok(r_ == -1, e_, (err), #call, __LINE__))                                 \
			Deferred++;                                                                \
		if (ms_ > AT_ONCE_MS) {                                                            \
			print_error("line %d: %s took %llu ms\n", __LINE__, #call,                 \
				    (unsigned long long)ms_);                                      \
			Deferred++;                                                                \
		}                                                                                  \
	} while (0)

/* loop_verify -- after the restart: each block holds its last acknowledged stamp (or the failed
 * one) */
static void
loop_verify(RPMEMpool *p, const struct looper *lp)
{
	uint64_t *words = malloc(BLOCK);

	assert_non_null(words);
	for (unsigned s = 0; s < SLOTS; s++) {
		if (!lp->acked[s])
			continue;
		OK(rpmem_read(p, words, LOOP_OFF + s * BLOCK, BLOCK, 0));
		for (size_t i = 0; i < BLOCK / sizeof(*words); i++) {
			if (words[i] != lp->acked[s] && words[i] != lp->k_failed) {
				print_error(
				    "block %u word %zu: %llu, persisted %llu (failed %llu)\n", s, i,
				    (unsigned long long)words[i], (unsigned long long)lp->acked[s],
				    (unsigned long long)lp->k_failed);
				fail();
			}
		}
	}
	free(words);
}

/* loop_until_killed -- the loop going, the daemon killed: the failed persist, within DEAD_MS */
static void
loop_until_killed(struct looper *lp)
{
	uint64_t t0, end = now_ms() + WAIT_MS;

	assert_int_equal(pthread_create(&lp->thread, NULL, loop_run, lp), 0);
	while (atomic_load(&lp->done_ok) < 200 && !atomic_load(&lp->finished) && now_ms() < end)
		sleep_ms(1);
	if (atomic_load(&lp->finished) || atomic_load(&lp->done_ok) < 200) {
		atomic_store(&lp->stop, true);
		fail_msg("the loop did not get going: %lu persists, %s",
			 (unsigned long)atomic_load(&lp->done_ok), lp->msg);
	}
	t0 = now_ms();
	assert_int_equal(daemon_kill9(), 0);
	while (!atomic_load(&lp->finished) && now_ms() - t0 < DEAD_MS + 1000)
		sleep_ms(5);
	if (!atomic_load(&lp->finished)) {
		atomic_store(&lp->stop, true);
		fail_msg("no persist failed within %d ms of the kill (%lu persists)", DEAD_MS,
			 (unsigned long)atomic_load(&lp->done_ok));
	}
	assert_int_equal(pthread_join(lp->thread, NULL), 0);
	print_message("the persist failed %llu ms after the kill: errno %d (%s): %s\n",
		      (unsigned long long)(lp->t_failed - t0), lp->err, strerror(lp->err), lp->msg);
	assert_int_equal(lp->ret, -1);
	if (!connection_errno(lp->err))
		fail_msg("errno %d (%s) is not a connection error", lp->err, strerror(lp->err));
	assert_true(lp->msg[0] != '\0');
	assert_true(lp->t_failed - t0 <= DEAD_MS);
}

/* broken_pool -- every call on p fails with err at once, rpmem_close() too (in bounded time) */
static void
broken_pool(RPMEMpool *p, int err, const struct rpmem_pool_attr *a)
{
	char buf[8];
	uint64_t t0;
	int ret;

	Deferred = 0;
	FAST_FAILS(rpmem_persist(p, HDR, 8, 1, 0), err);
	FAST_FAILS(rpmem_persist(p, HDR, 8, 0, RPMEM_PERSIST_RELAXED), err);
	FAST_FAILS(rpmem_deep_persist(p, HDR, 8, 2), err);
	FAST_FAILS(rpmem_flush(p, HDR, 8, 3, 0), err);
	FAST_FAILS(rpmem_drain(p, 3, 0), err);
	FAST_FAILS(rpmem_drain(p, 1, 0), err);
	FAST_FAILS(rpmem_read(p, buf, HDR, 8, 1), err);
	FAST_FAILS(rpmem_set_attr(p, a), err);
	t0 = now_ms();
	err_arm();
	ret = rpmem_close(p);
	assert_true(now_ms() - t0 <= WAIT_MS);
	err_check(ret == -1, errno, err, "rpmem_close(p)", __LINE__);
}

/*
 * test_daemon_killed -- a thread persists in a loop; the daemon gets
 * SIGKILL: the persist fails with a connection errno within DEAD_MS; every
 * later call on the pool fails with that errno at once; rpmem_close()
 * returns. The daemon restarted, the pool opens again with what was
 * persisted before the kill. The checks of the broken pool that fail are
 * counted (Deferred) and fail the test at its end, so that the rest runs.
 */
static void
test_daemon_killed(void **state)
{
	struct layout l = {"ck", NULL, 1, {POOL}};
	struct rpmem_pool_attr a, oa;
	struct looper *lp = calloc(1, sizeof(*lp));
	char *mem = mem_new(POOL), *buf = malloc(BEFORE_LEN);
	unsigned nl = 4;

	(void)state;
	assert_non_null(lp);
	assert_non_null(buf);
	layout_write(&l);
	attr_make(&a, 40, INCOMPAT);
	lp->p = MUST(rpmem_create(Target, "ck.set", mem, POOL, &nl, &a));
	lp->mem = mem;
	fill(mem, BEFORE_OFF, BEFORE_LEN, 41);
	OK(rpmem_persist(lp->p, BEFORE_OFF, BEFORE_LEN, 1, 0));
	assert_int_equal(file_check(&l, BEFORE_OFF, mem + BEFORE_OFF, BEFORE_LEN), 0);
	loop_until_killed(lp);
	broken_pool(lp->p, lp->err, &a);

	/* restarted, the pool opens with the bytes persisted before the kill */
	assert_int_equal(daemon_start(), 0);
	RPMEMpool *p = MUST(rpmem_open(Target, "ck.set", mem, POOL, &nl, &oa));

	assert_memory_equal(&oa, &a, sizeof(a));
	OK(rpmem_read(p, buf, BEFORE_OFF, BEFORE_LEN, 0));
	assert_memory_equal(buf, mem + BEFORE_OFF, BEFORE_LEN);
	loop_verify(p, lp);
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "ck.set", RPMEM_REMOVE_POOL_SET));
	free(buf);
	free(lp);
	mem_free(mem, POOL);
	if (Deferred)
		fail_msg("%u of the checks of the broken pool failed (see above)", Deferred);
}

/* ------------------------------------------------------------------ 7. a client gone */

/*
 * client_main -- the client of case 7 ("--client exit|wait TARGET SET"):
 * create the pool, persist GONE_LEN bytes at HDR, say READY, then _exit()
 * at once (exit) or wait to be killed (wait, 30 s at most)
 */
static int
client_main(int argc, char *argv[])
{
	struct rpmem_pool_attr a;
	unsigned nl = 4;
	char *mem;
	RPMEMpool *p;

	if (argc != 5)
		return 2;
	mem = mmap(NULL, POOL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	attr_make(&a, GONE_ATTR, INCOMPAT);
	if (!(p = rpmem_create(argv[3], argv[4], mem, POOL, &nl, &a))) {
		fprintf(stderr, "client: create: %s\n", rpmem_errormsg());
		return 1;
	}
	fill(mem, HDR, GONE_LEN, GONE_SEED);
	if (rpmem_persist(p, HDR, GONE_LEN, 0, 0)) {
		fprintf(stderr, "client: persist: %s\n", rpmem_errormsg());
		return 1;
	}
	printf("READY\n");
	fflush(stdout);
	if (strcmp(argv[2], "exit") == 0)
		_exit(0);
	for (int i = 0; i < 300; i++)
		sleep_ms(100);
	_exit(3);
}

/* client_spawn -- this program as the client of set name, mode exit or wait; until READY */
static pid_t
client_spawn(const char *mode, const char *name)
{
	char *argv[] = {Self, "--client", (char *)mode, Target, (char *)name, NULL};
	char line[256] = "";
	struct pollfd pfd;
	int fds[2];
	size_t len = 0;
	uint64_t end = now_ms() + WAIT_MS;
	pid_t pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = spawn(argv, fds[1]);
	close(fds[1]);
	assert_true(pid > 0);
	pfd = (struct pollfd){.fd = fds[0], .events = POLLIN};
	while (!strstr(line, "READY\n") && now_ms() < end && len < sizeof(line) - 1) {
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if ((n = read(fds[0], line + len, sizeof(line) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
		line[len] = '\0';
	}
	close(fds[0]);
	if (!strstr(line, "READY\n")) {
		int st;

		(void)kill(pid, SIGKILL);
		(void)reap(pid, &st, WAIT_MS);
		print_error("the client did not get ready: \"%s\"\n", line);
		fail();
	}
	return pid;
}

/* client_gone -- after the client of l went: the daemon logs it, the pool opens with its data */
static void
client_gone(const struct layout *l)
{
	char name[64], needle[128];
	struct rpmem_pool_attr a, oa;
	char *mem = mem_new(POOL), *buf = malloc(GONE_LEN);
	unsigned nl = 4;
	uint64_t end;
	RPMEMpool *p;

	assert_non_null(buf);
	snprintf(name, sizeof(name), "%s.set", l->name);
	snprintf(needle, sizeof(needle), "gone: pool %s ", name);
	if (!log_wait(needle)) {
		log_dump();
		print_error("the daemon did not log \"%s\"\n", needle);
		fail();
	}
	end = now_ms() + WAIT_MS;
	err_arm();
	while (!(p = rpmem_open(Target, name, mem, POOL, &nl, &oa)) && errno == EBUSY &&
	       now_ms() < end)
		sleep_ms(20);
	ok_check(p != NULL, errno, "rpmem_open() after the client went", __LINE__);
	attr_make(&a, GONE_ATTR, INCOMPAT);
	assert_memory_equal(&oa, &a, sizeof(a));
	OK(rpmem_read(p, buf, HDR, GONE_LEN, 0));
	for (size_t i = 0; i < GONE_LEN; i++)
		assert_int_equal((uint8_t)buf[i], pat(GONE_SEED, HDR + i));
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, name, RPMEM_REMOVE_POOL_SET));
	free(buf);
	mem_free(mem, POOL);
}

/* test_client_exit -- the client _exit()s with its pool open */
static void
test_client_exit(void **state)
{
	struct layout l = {"ge", NULL, 1, {POOL}};
	pid_t pid;
	int st = -1;

	(void)state;
	layout_write(&l);
	pid = client_spawn("exit", "ge.set");
	assert_int_equal(reap(pid, &st, WAIT_MS), 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	client_gone(&l);
}

/* test_client_killed -- the client gets SIGKILL with its pool open */
static void
test_client_killed(void **state)
{
	struct layout l = {"gk", NULL, 1, {POOL}};
	pid_t pid;
	int st = -1;

	(void)state;
	layout_write(&l);
	pid = client_spawn("wait", "gk.set");
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(reap(pid, &st, WAIT_MS), 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	client_gone(&l);
}

/* ------------------------------------------------------------------ 8. malformed requests */

/* a framework client of the daemon: what librpmem's session has */
struct fw {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
};

/* fw_open -- connected to the daemon with its key; 0 or -1 */
static int
fw_open(struct fw *f)
{
	struct rpmaf_cfg_err err;
	struct ibv_context *dev;
	char yaml[PATH_MAX * 2];

	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 1}\n"
		 "targets: [{name: t0, address: " ADDR ", port: %u, connections: 1}]\n"
		 "timeouts: {connect_ms: 3000, operation_ms: 3000}\n"
		 "auth: {key_file: %s/key}\n"
		 "log: {level: error}\n",
		 D.port, Dir);
	if (rpmaf_cfg_load_buffer("proto client", yaml, strlen(yaml), NULL, &f->cfg, &err)) {
		print_error("client configuration: %s\n", err.msg);
		return -1;
	}
	if (rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev) ||
	    rpma_peer_new(dev, &f->peer) || rpmaf_workers_new(f->cfg, f->peer, &f->ws) ||
	    rpmaf_pool_new(f->cfg, f->peer, f->ws, &f->pool))
		return -1;
	return rpmaf_pool_wait_ready(f->pool, WAIT_MS) ? -1 : 0;
}

/* fw_close -- everything fw_open() made */
static void
fw_close(struct fw *f)
{
	(void)rpmaf_pool_delete(&f->pool);
	if (f->ws)
		(void)rpmaf_workers_delete(&f->ws);
	if (f->peer)
		(void)rpma_peer_delete(&f->peer);
	(void)rpmaf_cfg_delete(&f->cfg);
}

/* fw_call -- len bytes of req to handler; the call completes and its answer decodes into *ans */
static void
fw_call(struct fw *f, uint32_t handler, const void *req, size_t len, struct rpmem_proto_ans *ans)
{
	uint8_t reply[RPMEM_PROTO_ANS_MAX];
	char err[RPMEM_PROTO_ERR_MAX];
	struct rpmaf_op op;
	uint64_t end = now_ms() + WAIT_MS;
	int ret;

	while ((ret = rpmaf_pool_call(f->pool, &op, "t0", handler, req, len, reply, sizeof(reply),
				      NULL, NULL)) == RPMAF_E_AGAIN &&
	       now_ms() < end)
		sleep_ms(5);
	if (!ret)
		ret = rpmaf_op_wait(&op);
	if (ret) {
		print_error("the call to %#x failed: %s\n", handler, rpmaf_err_str(ret));
		fail();
	}
	if (rpmem_proto_ans_decode(reply, rpmaf_op_reply_len(&op), ans, err, sizeof(err))) {
		print_error("the answer of %#x does not decode: %s\n", handler, err);
		fail();
	}
}

/* refused -- len bytes of req sent to the handler of kind are answered EPROTO with a message */
static void
refused(struct fw *f, unsigned kind, const void *req, size_t len)
{
	struct rpmem_proto_ans ans;

	fw_call(f, RPMEM_PROTO_HANDLER(kind), req, len, &ans);
	assert_int_equal(ans.kind, kind);
	assert_int_equal(ans.status, EPROTO);
	assert_true(ans.msg_len > 0);
}

/*
 * test_malformed -- garbage, a request sent to another kind's handler,
 * one byte short, one byte long, a wrong magic: each answered EPROTO (the
 * call itself succeeds); a well-formed request is still served, the daemon
 * logs the malformed ones, and librpmem creates a pool after them
 */
static void
test_malformed(void **state)
{
	static const char garbage[] = "this is not a librpmem request, not at all";
	struct rpmem_proto_req q = {.kind = RPMEM_PROTO_OPEN, .pool_size = POOL, .nlanes = 4};
	struct rpmem_proto_req r = {.kind = RPMEM_PROTO_REMOVE};
	struct layout l = {"mf", NULL, 1, {POOL}};
	uint8_t buf[RPMEM_PROTO_REQ_MAX + 1];
	struct rpmem_proto_ans ans;
	struct rpmem_pool_attr a;
	struct fw f = {0};
	char *mem;
	unsigned nl = 4;
	size_t len;

	(void)state;
	if (fw_open(&f)) {
		fw_close(&f);
		fail_msg("no framework connection to the daemon");
	}
	for (unsigned k = 1; k <= PROTO_MSG_N; k++)
		refused(&f, k, garbage, sizeof(garbage) - 1);
	assert_int_equal(rpmem_proto_req_set_name(&q, "mf.set"), 0);
	assert_int_equal(rpmem_proto_req_encode(&q, buf, sizeof(buf), &len), 0);
	refused(&f, RPMEM_PROTO_CREATE, buf, len);
	refused(&f, RPMEM_PROTO_OPEN, buf, len - 1);
	buf[len] = 0;
	refused(&f, RPMEM_PROTO_OPEN, buf, len + 1);
	buf[0] ^= 0xff;
	refused(&f, RPMEM_PROTO_OPEN, buf, len);
	refused(&f, RPMEM_PROTO_OPEN, buf, 1);

	/* a well-formed request is served */
	assert_int_equal(rpmem_proto_req_set_name(&r, "nosuch.set"), 0);
	assert_int_equal(rpmem_proto_req_encode(&r, buf, sizeof(buf), &len), 0);
	fw_call(&f, RPMEM_PROTO_HANDLER(RPMEM_PROTO_REMOVE), buf, len, &ans);
	assert_int_equal(ans.kind, RPMEM_PROTO_REMOVE);
	assert_int_equal(ans.status, ENOENT);
	fw_close(&f);
	assert_true(log_has("malformed request"));

	mem = mem_new(POOL);
	layout_write(&l);
	attr_make(&a, 50, INCOMPAT);
	RPMEMpool *p = MUST(rpmem_create(Target, "mf.set", mem, POOL, &nl, &a));

	persist_check(&l, p, mem, HDR, 4096, 0, 0, 51);
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "mf.set", RPMEM_REMOVE_POOL_SET));
	mem_free(mem, POOL);
}

/* ------------------------------------------------------------------ 9. files outside */

/*
 * Every case puts a file the daemon must never touch outside its
 * poolset_dir (Dir/outside, or a pool's part inside that only a set file
 * reached through a symbolic link names), then asks the daemon to remove
 * it with RPMEM_REMOVE_FORCE, and to create or open pools over it: each
 * call fails with EPERM, the file is still there, the client's message
 * names no path of the daemon's, and the daemon's log says which set file
 * and part it refused and why.
 */

static char Outside[PATH_MAX]; /* Dir/outside */

/* victim -- a file of POOL bytes, outside or inside; its path into buf */
static char *
victim(char *buf, const char *dir, const char *name)
{
	pathf(buf, "%s/%s", dir, name);
	assert_int_equal(file_write(buf, "not a pool part: keep me\n", 0644), 0);
	assert_int_equal(truncate(buf, (off_t)POOL), 0);
	return buf;
}

/* set_text -- the pool set file D.dir/name holding one part line, mode 0644 */
static void
set_text(const char *name, const char *part)
{
	char path[PATH_MAX], text[PATH_MAX + 64];

	snprintf(text, sizeof(text), "PMEMPOOLSET\n%zuK %s\n", POOL / 1024, part);
	assert_int_equal(file_write(pathf(path, "%s/%s", D.dir, name), text, 0644), 0);
	assert_int_equal(chmod(path, 0644), 0);
}

/* no_daemon_path -- the client's last message names neither the test's nor the daemon's dirs */
static void
no_daemon_path(void)
{
	const char *msg = rpmem_errormsg();

	if (strstr(msg, Dir) || strstr(msg, D.dir)) {
		print_error("the client was sent a path of the daemon's: \"%s\"\n", msg);
		fail();
	}
}

/*
 * refused_all -- remove (FORCE, and FORCE | POOL_SET), open and create of
 * name all fail with EPERM, with no path of the daemon's in the message;
 * keep (a file) and the set file are still there
 */
static void
refused_all(const char *name, const char *keep)
{
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL), path[PATH_MAX];
	unsigned nl = 4;

	attr_make(&a, 21, INCOMPAT);
	FAILS(rpmem_remove(Target, name, RPMEM_REMOVE_FORCE), EPERM);
	no_daemon_path();
	FAILS(rpmem_remove(Target, name, RPMEM_REMOVE_FORCE | RPMEM_REMOVE_POOL_SET), EPERM);
	FAILS_NULL(rpmem_open(Target, name, mem, POOL, &nl, NULL), EPERM);
	no_daemon_path();
	assert_true(exists(keep));
	assert_true(exists(pathf(path, "%s/%s", D.dir, name)));
	mem_free(mem, POOL);
}

/* refused_create -- create of name fails with EPERM and does not make the file at made */
static void
refused_create(const char *name, const char *made)
{
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL);
	unsigned nl = 4;

	attr_make(&a, 22, INCOMPAT);
	FAILS_NULL(rpmem_create(Target, name, mem, POOL, &nl, &a), EPERM);
	no_daemon_path();
	assert_false(exists(made));
	mem_free(mem, POOL);
}

/* logged -- the daemon's log has the refusal: the set file, the part, why */
static void
logged(const char *needle)
{
	if (!log_wait(needle)) {
		print_error("no \"%s\" in the daemon's log\n", needle);
		log_dump();
		fail();
	}
}

/* ------------------------------------------------------------------ durability */

/* setup_apm_file -- a daemon that asks for APM, its pools on ordinary files */
static int
setup_apm_file(void **state)
{
	(void)state;
	return daemon_up(PORT_APM_FILE, "persistence: apm, direct_write: true");
}

/* setup_auto_dw -- a daemon with persistence auto and direct_write, its pools on ordinary files */
static int
setup_auto_dw(void **state)
{
	(void)state;
	return daemon_up(PORT_AUTO_DW, "persistence: auto, direct_write: true");
}

/*
 * test_apm_refused -- an explicit apm cannot be durable on a pool that is
 * an ordinary file (a client's flush would leave its writes in the page
 * cache): the create is refused with the reason, the pool is not left
 * behind, and the pool set can be used no other way by this daemon
 */
static void
test_apm_refused(void **state)
{
	struct layout l = {"ar", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL);
	unsigned nl = 4;

	(void)state;
	layout_write(&l);
	attr_make(&a, 23, INCOMPAT);
	FAILS_NULL(rpmem_create(Target, "ar.set", mem, POOL, &nl, &a), EINVAL);
	logged("persistence apm cannot be durable for ar.set");
	mem_free(mem, POOL);
}

/*
 * test_auto_gpspm -- persistence auto with direct_write on an ordinary
 * file is GPSPM (the daemon's msync makes each persist durable), logged,
 * and the pool works
 */
static void
test_auto_gpspm(void **state)
{
	struct layout l = {"ag", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL);
	unsigned nl = 4;
	RPMEMpool *p;

	(void)state;
	layout_write(&l);
	attr_make(&a, 24, INCOMPAT);
	p = MUST(rpmem_create(Target, "ag.set", mem, POOL, &nl, &a));
	logged("pool ag.set: GPSPM (an msync for each persist) although direct_write is set");
	memset(mem + HDR, 0x5a, 4096);
	OK(rpmem_persist(p, HDR, 4096, 0, 0));
	OK(rpmem_close(p));
	OK(rpmem_remove(Target, "ag.set", RPMEM_REMOVE_POOL_SET));
	mem_free(mem, POOL);
}

/* setup_escape -- the daemon of group escape, and the directory outside its poolset_dir */
static int
setup_escape(void **state)
{
	(void)state;
	pathf(Outside, "%s/outside", Dir);
	if (mkdir(Outside, 0700))
		return -1;
	return daemon_up(PORT_ESCAPE, GPSPM);
}

/* test_escape_absolute -- a set file's part named by an absolute path outside the directory */
static void
test_escape_absolute(void **state)
{
	char keep[PATH_MAX], made[PATH_MAX], needle[PATH_MAX + 64];

	(void)state;
	set_text("abs.set", victim(keep, Outside, "abs.victim"));
	refused_all("abs.set", keep);
	snprintf(needle, sizeof(needle), "abs.set:2: refused: part '%s' is outside", keep);
	logged(needle);
	set_text("absnew.set", pathf(made, "%s/absnew.part", Outside));
	refused_create("absnew.set", made);
}

/* test_escape_dotdot -- a part reached through "..": refused outside, taken inside */
static void
test_escape_dotdot(void **state)
{
	struct rpmem_pool_attr a;
	char keep[PATH_MAX], made[PATH_MAX], *mem = mem_new(POOL);
	unsigned nl = 4;

	(void)state;
	/* D.dir is Dir/dPORT/pools: two ".." reach Dir */
	victim(keep, Outside, "dd.victim");
	set_text("dd.set", "../../outside/dd.victim");
	refused_all("dd.set", keep);
	logged("dd.set:2: refused: part '../../outside/dd.victim' is outside");
	assert_int_equal(mkdir(pathf(made, "%s/sub", D.dir), 0700), 0);
	set_text("ddnew.set", "sub/../../ddnew.part");
	refused_create("ddnew.set", pathf(made, "%s/../ddnew.part", D.dir));
	/* ".." that stays inside is a path like any other */
	set_text("sub/in.set", "../in.part");
	attr_make(&a, 23, INCOMPAT);
	OK(rpmem_close(MUST(rpmem_create(Target, "sub/in.set", mem, POOL, &nl, &a))));
	assert_true(exists(pathf(made, "%s/in.part", D.dir)));
	OK(rpmem_remove(Target, "sub/in.set", RPMEM_REMOVE_POOL_SET));
	assert_false(exists(made));
	mem_free(mem, POOL);
}

/*
 * test_escape_symlinked_set -- a set file that is a symbolic link to one
 * outside: the set outside names a part beside the link, inside the
 * directory (another pool's file), which it must not reach
 */
static void
test_escape_symlinked_set(void **state)
{
	char keep[PATH_MAX], real[PATH_MAX], link[PATH_MAX], made[PATH_MAX];
	char text[128];

	(void)state;
	victim(keep, D.dir, "ls.victim");
	snprintf(text, sizeof(text), "PMEMPOOLSET\n%zuK ls.victim\n", POOL / 1024);
	assert_int_equal(file_write(pathf(real, "%s/real.set", Outside), text, 0644), 0);
	assert_int_equal(symlink(real, pathf(link, "%s/ls.set", D.dir)), 0);
	refused_all("ls.set", keep);
	logged("ls.set: refused: a symbolic link on the way");
	assert_int_equal(unlink(keep), 0);
	refused_create("ls.set", keep);
	/* a link inside to a set file inside is not followed either */
	set_text("target.set", "ls.victim");
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("target.set", link), 0);
	refused_create("ls.set", pathf(made, "%s/ls.victim", D.dir));
}

/*
 * test_escape_symlinked_dir -- a directory inside that is a symbolic link
 * to one outside: neither a set file nor a part is reached through it
 */
static void
test_escape_symlinked_dir(void **state)
{
	char keep[PATH_MAX], keep2[PATH_MAX], path[PATH_MAX], text[128];

	(void)state;
	assert_int_equal(symlink(Outside, pathf(path, "%s/ldir", D.dir)), 0);
	/* the set file outside, named through the link; its part beside it */
	victim(keep, Outside, "ld.victim");
	snprintf(text, sizeof(text), "PMEMPOOLSET\n%zuK ld.victim\n", POOL / 1024);
	assert_int_equal(file_write(pathf(path, "%s/ld.set", Outside), text, 0644), 0);
	FAILS(rpmem_remove(Target, "ldir/ld.set", RPMEM_REMOVE_FORCE), EPERM);
	no_daemon_path();
	assert_true(exists(keep));
	logged("ldir/ld.set: refused: a symbolic link on the way");
	/* the set file inside, its part through the link */
	victim(keep2, Outside, "ld2.victim");
	set_text("ld2.set", "ldir/ld2.victim");
	refused_all("ld2.set", keep2);
	logged("ldir/ld2.victim: refused: a symbolic link on the way");
	set_text("ld3.set", "ldir/ld3.part");
	refused_create("ld3.set", pathf(path, "%s/ld3.part", Outside));
}

/*
 * test_untrusted_set -- a set file others may write, or another user owns,
 * is refused: nothing it names is created, opened or removed
 */
static void
test_untrusted_set(void **state)
{
	struct layout l = {"un", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL), set[PATH_MAX], part[PATH_MAX];
	unsigned nl = 4;

	(void)state;
	layout_write(&l);
	attr_make(&a, 24, INCOMPAT);
	OK(rpmem_close(MUST(rpmem_create(Target, "un.set", mem, POOL, &nl, &a))));
	assert_int_equal(chmod(set_path(&l, set), 0666), 0);
	refused_all("un.set", part_path(&l, 0, part));
	logged("un.set: refused: mode 0666 lets anyone write it");
	assert_int_equal(chmod(set, 0664), 0);
	FAILS(rpmem_remove(Target, "un.set", RPMEM_REMOVE_FORCE), EPERM);
	logged("un.set: refused: mode 0664 lets its group write it");
	assert_int_equal(chmod(set, 0644), 0);
	assert_int_equal(chown(set, 12345, 12345), 0);
	refused_all("un.set", part);
	logged("un.set: refused: owned by uid 12345");
	/* its owner's again: the pool is whole */
	assert_int_equal(chown(set, geteuid(), getegid()), 0);
	OK(rpmem_remove(Target, "un.set", 0));
	assert_false(exists(part));
	assert_int_equal(chmod(set, 0646), 0);
	refused_create("un.set", part);
	mem_free(mem, POOL);
}

/*
 * test_no_daemon_paths -- the errors a client meets every day (no set
 * file, a pool that exists, a damaged one) name the set as the client
 * named it, never the daemon's directory
 */
static void
test_no_daemon_paths(void **state)
{
	struct layout l = {"np", NULL, 1, {POOL}};
	struct rpmem_pool_attr a;
	char *mem = mem_new(POOL), path[PATH_MAX];
	unsigned nl = 4;

	(void)state;
	layout_write(&l);
	attr_make(&a, 25, INCOMPAT);
	FAILS_NULL(rpmem_open(Target, "nosuch.set", mem, POOL, &nl, NULL), ENOENT);
	no_daemon_path();
	FAILS(rpmem_remove(Target, "nosuch.set", 0), ENOENT);
	no_daemon_path();
	OK(rpmem_close(MUST(rpmem_create(Target, "np.set", mem, POOL, &nl, &a))));
	FAILS_NULL(rpmem_create(Target, "np.set", mem, POOL, &nl, &a), EEXIST);
	no_daemon_path();
	assert_int_equal(truncate(part_path(&l, 0, path), MIB * 4), 0);
	FAILS_NULL(rpmem_open(Target, "np.set", mem, POOL, &nl, NULL), EUCLEAN);
	no_daemon_path();
	OK(rpmem_remove(Target, "np.set", RPMEM_REMOVE_FORCE | RPMEM_REMOVE_POOL_SET));
	mem_free(mem, POOL);
}

/* ------------------------------------------------------------------ the program */

/* guard_start -- a process that removes Dir once this one is gone, however it ends */
static int
guard_start(void)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char c;
		ssize_t n;

		/* the signals of the test's process group (a time-out's) are not for the guard */
		(void)setsid();
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(fds[1]);
		while ((n = read(fds[0], &c, 1)) != 0 && (n > 0 || errno == EINTR))
			;
		/* the daemons die with the test (PR_SET_PDEATHSIG): let them go first */
		sleep_ms(300);
		rm_tree(Dir);
		_exit(0);
	}
	close(fds[0]);
	Guard_fd = fds[1];
	Guard_pid = pid;
	return 0;
}

/* setup_all -- the directory, its guard, the key, librpmem's configuration */
static int
setup_all(void)
{
	char path[PATH_MAX], key[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	const char *bin = getenv("RPMEMD");
	ssize_t n = readlink("/proc/self/exe", Self, sizeof(Self) - 1);

	if (n <= 0)
		return -1;
	Self[n] = '\0';
	if (bin)
		Rpmemd = bin;
	if (access(Rpmemd, X_OK)) {
		fprintf(stderr, "%s: %s (make rpmemd)\n", Rpmemd, strerror(errno));
		return -1;
	}
	snprintf(Dir, sizeof(Dir), "%s/test_librpmem.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(Dir))
		return -1;
	if (guard_start())
		return -1;
	pathf(key, "%s/key", Dir);
	pathf(path, "%s/librpmem.yaml", Dir);
	if (file_write(key, KEY "\n", 0600) || client_yaml(path, key, ONE_TARGET))
		return -1;
	return setenv("LIBRPMEM_CONFIG", path, 1);
}

/* cleanup_all -- the directory removed, the guard gone */
static void
cleanup_all(void)
{
	int st;

	if (Dir[0])
		rm_tree(Dir);
	if (Guard_fd >= 0) {
		close(Guard_fd);
		if (reap(Guard_pid, &st, WAIT_MS))
			(void)kill(Guard_pid, SIGKILL);
	}
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest basic[] = {
	    cmocka_unit_test(test_roundtrip),	    cmocka_unit_test(test_bad_args),
	    cmocka_unit_test(test_pool_errors),	    cmocka_unit_test(test_remove_force),
	    cmocka_unit_test(test_remove_pool_set), cmocka_unit_test(test_config_errors),
	};
	const struct CMUnitTest data[] = {
	    cmocka_unit_test(test_persist_rules),  cmocka_unit_test(test_nohdrs),
	    cmocka_unit_test(test_singlehdr),	   cmocka_unit_test(test_two_parts),
	    cmocka_unit_test(test_lanes),	   cmocka_unit_test(test_lanes_env),
	    cmocka_unit_test(test_parallel_pools),
	};
	const struct CMUnitTest crash[] = {cmocka_unit_test(test_daemon_killed)};
	const struct CMUnitTest apm_file[] = {cmocka_unit_test(test_apm_refused)};
	const struct CMUnitTest auto_dw[] = {cmocka_unit_test(test_auto_gpspm)};
	const struct CMUnitTest gone[] = {
	    cmocka_unit_test(test_client_exit),
	    cmocka_unit_test(test_client_killed),
	};
	const struct CMUnitTest proto[] = {cmocka_unit_test(test_malformed)};
	const struct CMUnitTest escape[] = {
	    cmocka_unit_test(test_escape_absolute),
	    cmocka_unit_test(test_escape_dotdot),
	    cmocka_unit_test(test_escape_symlinked_set),
	    cmocka_unit_test(test_escape_symlinked_dir),
	    cmocka_unit_test(test_untrusted_set),
	    cmocka_unit_test(test_no_daemon_paths),
	};
	int failed = 0;

	if (argc >= 2 && strcmp(argv[1], "--client") == 0)
		return client_main(argc, argv);
	alarm(SUITE_S);
	if (setup_all()) {
		fprintf(stderr, "test_librpmem: cannot set up: %s\n", strerror(errno));
		cleanup_all();
		return 1;
	}
	failed += cmocka_run_group_tests_name("librpmem basic", basic, setup_basic, teardown_group);
	failed += cmocka_run_group_tests_name("librpmem data", data, setup_data, teardown_group);
	failed +=
	    cmocka_run_group_tests_name("librpmem data, APM", data, setup_data_apm, teardown_group);
	failed += cmocka_run_group_tests_name("librpmem crash", crash, setup_crash, teardown_group);
	failed += cmocka_run_group_tests_name("librpmem gone", gone, setup_gone, teardown_group);
	failed += cmocka_run_group_tests_name("librpmem proto", proto, setup_proto, teardown_group);
	failed +=
	    cmocka_run_group_tests_name("librpmem escape", escape, setup_escape, teardown_group);
	failed += cmocka_run_group_tests_name("librpmem apm on a file", apm_file, setup_apm_file,
					      teardown_group);
	failed += cmocka_run_group_tests_name("librpmem auto on a file", auto_dw, setup_auto_dw,
					      teardown_group);
	cleanup_all();
	return failed ? 1 : 0;
}
