// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * pool_torture.c -- the pool's operations against a server that adds,
 * removes and replaces regions under them, for a bounded time.
 *
 * The server is this program run again ("server PORT DIR PLANT"). It
 * exports two fixed regions and, once told to start (SIGUSR1), an updater
 * thread keeps adding, removing and replacing (removing, then adding again
 * under the same name: a new registration) regions among NDYN names, until
 * told to stop (SIGUSR2); it then prints its counts (UPDATES). On SIGTERM
 * it prints its counters (SERVER), deletes everything and exits 0 (1 when
 * one of its own checks failed).
 *
 * The client is a pool of 2 workers and 4 connections. Application
 * threads, each with PER_THREAD operations in flight, and chains of
 * callbacks on the worker threads (a completion submits the next
 * operation, which the pool posts on that worker's own connection) issue
 * reads, writes, write+persist and flushes against random names, each in
 * its own struct rpmaf_op. What makes the run fail (a line "VIOLATION:"
 * or "FAIL:" says what):
 *
 * 1. Exactly once: each slot (one struct rpmaf_op) is marked busy before
 *    its submission and its callback clears the mark; a callback that
 *    finds it clear is a second completion. At the end, every actor's
 *    accepted submissions equal its callbacks run.
 *
 * 2. Statuses: 0; RPMAF_E_NOENT (removed or replaced before the operation
 *    was posted, or the server's STALE/NOT_FOUND answer to a PERSIST_REQ).
 *    Nothing else: rpmaf_server_region_remove() deregisters only once every
 *    client has confirmed the removal (doc/PROTOCOL.md, "Removals are
 *    confirmed"), so no operation meets a key that went away
 *    (RPMAF_E_REMOTE), no connection breaks on one (RPMAF_E_CONNLOST), and
 *    the pool never reconnects; a time-out, a shutdown or an argument
 *    refused fail the run as well. The figures still count each status.
 *
 * 3. No operation against a region after its removal was applied. The
 *    server learns the generation of each registration it makes the way
 *    any client does, from a pool of its own (the witness), and stamps the
 *    first half of the region with it: (generation, ~generation ^ magic ^
 *    name) pairs. Before each submission an actor asks its pool what it
 *    holds of the name (rpmaf_pool_region()) and keeps a floor: the newest
 *    generation it has seen, plus one once it has seen the name gone. Then:
 *    a. its view never goes back: a generation below the floor is the
 *       table offering a registration it had already dropped (or having
 *       dropped, for a while, one that was still there);
 *    b. a successful read of the stamps returns the stamp of one
 *       registration of that name, not older than the floor the reader
 *       had when it submitted. Sound: the server removes (and deregisters)
 *       a registration before it adds the next one of that name, so once
 *       the client has seen generation G, or seen G gone, only
 *       registrations newer than G can still serve an operation correctly
 *       resolved by the pool. Pairs still zero (the stamp is written just
 *       after the add) and pairs caught half-written are counted, not
 *       judged;
 *    c. every write carries its writer's floor in its records (in the
 *       slot's own part of the second half: no two slots write the same
 *       bytes). When a file-backed registration is removed, its file keeps
 *       whatever landed in it, up to the deregistration: the server reads
 *       it back and no record may carry a floor above the registration's
 *       generation (a write submitted after its writer saw the
 *       registration replaced or gone), nor another name's tag;
 *    d. a successful read of the records finds only this name's tags.
 *
 * 4. No hang: an alarm of the bounded time plus MARGIN_S seconds fails the
 *    run, and every operation must complete within the drain time.
 *
 * 5. The last line gives the figures: operations by status, submissions
 *    refused, lookups, changes seen, reads verified, updates applied,
 *    reconnects, and the server's counters.
 *
 * POOL_TORTURE_SECONDS sets the bounded time (10). POOL_TORTURE_PLANT=
 * stale-gen plants a bug: the server stamps and judges each registration
 * with the generation before its own, so the checks of 3b and 3c must fail.
 * POOL_TORTURE_KEEP=1 keeps the directory with the logs. Port:
 * 33000 + 2 x (pid % 250), or another of 33000-33499 when that one is taken.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "rpmaf.h"

#define NFIXED	   2
#define NDYN	   8
#define NNAMES	   (NFIXED + NDYN)
#define REGION	   (64u << 10)	/* bytes of every region */
#define STAMP_END  (REGION / 2) /* [0, STAMP_END): stamps; the rest: records */
#define REC	   64		/* bytes of one record */
#define SLOT_AREA  1024		/* bytes of records each slot owns in every region */
#define THREADS	   3		/* application threads */
#define PER_THREAD 4		/* operations each keeps in flight */
#define CHAINS	   6		/* chains of callbacks, one operation each */
#define NACTORS	   (THREADS + CHAINS)
#define NSLOTS	   (THREADS * PER_THREAD + CHAINS)
#define SLOT_MEM   8192 /* the slot's local memory: read destination, then write source */
#define SRC_OFF	   4096
#define OP_MS	   8000 /* timeouts.operation_ms */
#define MARGIN_S   60	/* the watchdog's margin over the bounded time */
#define WAIT_MS	   30000
#define TRIES	   4 /* names a chain tries before it parks */
#define PORTS	   8 /* ports the server tries, in 33000-33499 */
#define PORT_TAKEN 3 /* the server's exit status when its port is taken */
#define MAX_PRINTS 20

#define STAMP_MAGIC 0x7374616d70000000ull
#define REC_MAGIC   0x7265636f72640000ull

_Static_assert((NSLOTS * SLOT_AREA) <= REGION - STAMP_END, "the slots' records do not fit");

static const char *const Names[NNAMES] = {"fixed-anon", "fixed-file", "dyn-0", "dyn-1", "dyn-2",
					  "dyn-3",	"dyn-4",      "dyn-5", "dyn-6", "dyn-7"};

static atomic_ullong Violations;
static const char *Role = ""; /* " server" in the server process */

/* violation -- one check failed: count it and say what (the first MAX_PRINTS) */
static void
violation(const char *fmt, ...)
{
	unsigned long long n = atomic_fetch_add(&Violations, 1);
	char msg[512];
	va_list ap;

	if (n >= MAX_PRINTS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pool_torture%s: VIOLATION: %s\n", Role, msg);
}

/* rnd -- the next number of a caller's generator */
static unsigned
rnd(unsigned *seed)
{
	return (unsigned)rand_r(seed);
}

/* stamp_tag -- the second word of a stamp pair of name at generation gen */
static uint64_t
stamp_tag(unsigned name, uint64_t gen)
{
	return ~gen ^ STAMP_MAGIC ^ name;
}

/* rec_tag -- the first word of a record of name: every byte non-zero, the last one its own */
static uint64_t
rec_tag(unsigned name)
{
	return REC_MAGIC | (0x80u + name) | 0x5500u;
}

/* rec_tag_ok -- w is name's tag, or a mix of its bytes and zeros (a record half-written) */
static bool
rec_tag_ok(uint64_t w, unsigned name)
{
	uint64_t want = rec_tag(name);

	for (unsigned b = 0; b < 64; b += 8) {
		uint64_t byte = (w >> b) & 0xff;

		if (byte && byte != ((want >> b) & 0xff))
			return false;
	}
	return true;
}

/* cfg_load -- a configuration from YAML text; says why not */
static int
cfg_load(const char *who, const char *yaml, struct rpmaf_cfg **cfg_ptr)
{
	struct rpmaf_cfg_err err;
	int ret = rpmaf_cfg_load_buffer(who, yaml, strlen(yaml), NULL, cfg_ptr, &err);

	if (ret)
		fprintf(stderr, "pool_torture: %s: %s\n", who, err.msg);
	return ret;
}

/* peer_new -- a peer on the device of 127.0.0.1, local (the server's) or reaching it */
static struct rpma_peer *
peer_new(enum rpma_util_ibv_context_type type)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	if (rpma_utils_get_ibv_context(T_ADDR, type, &ctx) || rpma_peer_new(ctx, &peer))
		return NULL;
	return peer;
}

/* log_level -- the logs' level: notice says why each connection was lost */
static const char *
log_level(void)
{
	return getenv("POOL_TORTURE_DEBUG") ? "debug" : "notice";
}

/* ================================================================ the server process */

static atomic_int Go, Halt, Term; /* SIGUSR1: start updating; SIGUSR2: stop; SIGTERM: end */

/* on_signal -- the client's orders */
static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		atomic_store(&Go, 1);
	else if (sig == SIGUSR2)
		atomic_store(&Halt, 1);
	else
		atomic_store(&Term, 1);
}

/* what the updater keeps of every name */
struct updater {
	struct rpmaf_server *srv;
	struct rpmaf_pool *witness; /* the server's own pool: where it learns generations */
	const char *dir;
	bool stale_gen; /* the planted bug: stamp and judge with the generation before */
	bool live[NNAMES];
	uint64_t gen[NNAMES]; /* of the live registration, or of the last one */
	char path[NNAMES][PATH_MAX];
	unsigned serial; /* files made so far: each registration has its own */
	unsigned seed;
	unsigned long adds, removes, replaces, postmortems, torn;
	pthread_t thread;
};

/* server_yaml -- the server's configuration: two fixed regions, one of them a file */
static void
server_yaml(char *buf, size_t size, const char *port, const char *dir)
{
	snprintf(buf, size,
		 "workers: {count: 2, polling: event, batch: 16}\n"
		 "queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
		 "listen: {address: %s, port: %s, max_connections: 16}\n"
		 "regions:\n"
		 "  - {name: %s, size: %u}\n"
		 "  - {name: %s, size: %u, backing: {file: %s/fixed-file, create: true}}\n"
		 "timeouts: {operation_ms: %d, heartbeat_interval_ms: 1000, heartbeat_misses: 10}\n"
		 "log: {level: %s, file: %s/server.log}\n",
		 T_ADDR, port, Names[0], REGION, Names[1], REGION, dir, OP_MS, log_level(), dir);
}

/* witness_yaml -- the server's own pool: one connection to itself */
static void
witness_yaml(char *buf, size_t size, const char *port, const char *dir)
{
	snprintf(buf, size,
		 "workers: {count: 1, polling: event}\n"
		 "queues: {sq: 16, messages: {size: 4K, credits: 8}}\n"
		 "targets: [{name: self, address: %s, port: %s, connections: 1}]\n"
		 "timeouts: {heartbeat_interval_ms: 1000, heartbeat_misses: 10}\n"
		 "reconnect: {initial_ms: 20, max_ms: 200}\n"
		 "log: {level: %s, file: %s/witness.log}\n",
		 T_ADDR, port, log_level(), dir);
}

/*
 * witness_gen -- the generation of the registration of name just made: the
 * first one newer than the last the updater knew, once the witness has it
 */
static int
witness_gen(struct updater *u, unsigned name)
{
	struct rpmaf_pool_region info;
	long long limit = t_now_ms() + WAIT_MS;

	while (t_now_ms() < limit) {
		if (rpmaf_pool_region(u->witness, Names[name], &info) == 0 &&
		    info.generation > u->gen[name]) {
			u->gen[name] = info.generation;
			return 0;
		}
		usleep(200);
	}
	fprintf(stderr, "pool_torture server: FAIL: %s never reached the witness\n", Names[name]);
	return -1;
}

/* judged_gen -- the generation the checks take for the registration of name */
static uint64_t
judged_gen(const struct updater *u, unsigned name)
{
	return u->gen[name] - (u->stale_gen ? 1 : 0);
}

/* stamp -- write the generation of name's registration into its first half */
static int
stamp(struct updater *u, unsigned name)
{
	uint64_t gen;
	size_t size;
	void *ptr;

	if (witness_gen(u, name) || rpmaf_server_region_ptr(u->srv, Names[name], &ptr, &size))
		return -1;
	gen = judged_gen(u, name);
	for (uint64_t *p = ptr; (char *)p < (char *)ptr + STAMP_END; p += 2) {
		p[0] = gen;
		p[1] = stamp_tag(name, gen);
	}
	return 0;
}

/* dyn_region -- the configuration of the next registration of name (by its index) */
static void
dyn_region(struct updater *u, unsigned name, struct rpmaf_cfg_region *rc)
{
	unsigned kind = (name - NFIXED) % 4; /* 0, 1: anonymous; 2: file GPSPM; 3: file APM */

	memset(rc, 0, sizeof(*rc));
	rc->name = (char *)Names[name];
	rc->size = REGION;
	rc->usage = RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH;
	rc->backing = kind < 2 ? RPMAF_BACKING_ANONYMOUS : RPMAF_BACKING_FILE;
	rc->persistence = kind == 3 ? RPMAF_PERSIST_APM : RPMAF_PERSIST_AUTO;
	rc->direct_write = kind == 3;
	u->path[name][0] = '\0';
	if (kind < 2)
		return;
	snprintf(u->path[name], sizeof(u->path[name]), "%s/%s.%u", u->dir, Names[name],
		 u->serial++);
	rc->path = u->path[name];
	rc->create = true;
}

/* upd_add -- export a new registration of name and stamp it */
static int
upd_add(struct updater *u, unsigned name)
{
	struct rpmaf_cfg_region rc;
	int ret;

	dyn_region(u, name, &rc);
	if ((ret = rpmaf_server_region_add(u->srv, &rc))) {
		fprintf(stderr, "pool_torture server: FAIL: adding %s: %s\n", Names[name],
			rpmaf_err_str(ret));
		return -1;
	}
	u->live[name] = true;
	return stamp(u, name);
}

/* record_judge -- one record of a removed registration of name: whose, and with which floor */
static void
record_judge(struct updater *u, unsigned name, const uint64_t *w, size_t off)
{
	if (w[0] == 0)
		return;
	if (w[0] != rec_tag(name)) {
		violation("server: %s (generation %llu) holds at %zu a record of another region "
			  "(tag %#llx)",
			  Names[name], (unsigned long long)u->gen[name], off,
			  (unsigned long long)w[0]);
		return;
	}
	if (w[1] != ~w[2]) {
		u->torn++;
		return;
	}
	if (w[1] > judged_gen(u, name))
		violation("server: %s (generation %llu) holds at %zu a record of slot %llu "
			  "written after its writer had seen generation %llu (floor)",
			  Names[name], (unsigned long long)judged_gen(u, name), off,
			  (unsigned long long)w[3], (unsigned long long)w[1]);
}

/*
 * postmortem -- read back the file of a registration of name just removed:
 * everything that landed in it before its deregistration is there
 */
static int
postmortem(struct updater *u, unsigned name)
{
	static uint64_t buf[(REGION - STAMP_END) / 8];
	int fd = open(u->path[name], O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), STAMP_END);

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(buf)) {
		fprintf(stderr, "pool_torture server: FAIL: %s: %s\n", u->path[name],
			strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(buf) / 8; i += REC / 8)
		record_judge(u, name, &buf[i], STAMP_END + i * 8);
	u->postmortems++;
	return unlink(u->path[name]);
}

/* upd_remove -- stop exporting name; a file is judged once it is no longer registered */
static int
upd_remove(struct updater *u, unsigned name)
{
	int ret = rpmaf_server_region_remove(u->srv, Names[name]);

	if (ret) {
		fprintf(stderr, "pool_torture server: FAIL: removing %s: %s\n", Names[name],
			rpmaf_err_str(ret));
		return -1;
	}
	u->live[name] = false;
	return u->path[name][0] ? postmortem(u, name) : 0;
}

/* upd_step -- one change: add a name not exported, else remove it or replace it */
static int
upd_step(struct updater *u)
{
	unsigned name = NFIXED + rnd(&u->seed) % NDYN;

	if (!u->live[name]) {
		u->adds++;
		return upd_add(u, name);
	}
	if (rnd(&u->seed) % 2) {
		u->removes++;
		return upd_remove(u, name);
	}
	u->replaces++;
	return upd_remove(u, name) || upd_add(u, name) ? -1 : 0;
}

/* updater_main -- change regions from SIGUSR1 to SIGUSR2, a short random pause between */
static void *
updater_main(void *arg)
{
	struct updater *u = arg;
	int ret = 0;

	while (!atomic_load(&Go) && !atomic_load(&Term))
		usleep(1000);
	while (!ret && !atomic_load(&Halt) && !atomic_load(&Term)) {
		ret = upd_step(u);
		usleep(rnd(&u->seed) % 1000);
	}
	if (ret)
		violation("server: the updater failed");
	printf("UPDATES %lu %lu %lu %lu %lu %llu\n", u->adds, u->removes, u->replaces,
	       u->postmortems, u->torn, (unsigned long long)atomic_load(&Violations));
	fflush(stdout);
	return NULL;
}

/* the server process's objects */
struct server {
	struct rpmaf_cfg *cfg, *wcfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws, *wws;
	struct rpmaf_server *srv;
	struct rpmaf_pool *witness;
};

/*
 * server_up -- the server, listening, and its witness, ready; PORT_TAKEN
 * when the port cannot be listened on (the range is also the kernel's
 * ephemeral one: another program's connection may hold it)
 */
static int
server_up(struct server *s, const char *port, const char *dir)
{
	char yaml[2048];

	server_yaml(yaml, sizeof(yaml), port, dir);
	if (cfg_load("server", yaml, &s->cfg))
		return -1;
	witness_yaml(yaml, sizeof(yaml), port, dir);
	if (cfg_load("witness", yaml, &s->wcfg))
		return -1;
	if (!(s->peer = peer_new(RPMA_UTIL_IBV_CONTEXT_LOCAL)) ||
	    rpmaf_workers_new(s->cfg, s->peer, &s->ws) ||
	    rpmaf_server_new(s->cfg, s->peer, s->ws, &s->srv))
		return -1;
	if (rpmaf_server_start(s->srv))
		return PORT_TAKEN;
	if (rpmaf_workers_new(s->wcfg, s->peer, &s->wws) ||
	    rpmaf_pool_new(s->wcfg, s->peer, s->wws, &s->witness))
		return -1;
	return rpmaf_pool_wait_ready(s->witness, WAIT_MS) ? -1 : 0;
}

/* server_down -- everything in reverse; the witness first (the server's client) */
static int
server_down(struct server *s)
{
	int ret = 0;

	if (s->witness)
		ret |= rpmaf_pool_delete(&s->witness);
	if (s->wws)
		ret |= rpmaf_workers_delete(&s->wws);
	if (s->srv)
		ret |= rpmaf_server_delete(&s->srv);
	if (s->ws)
		ret |= rpmaf_workers_delete(&s->ws);
	if (s->peer)
		ret |= rpma_peer_delete(&s->peer);
	rpmaf_cfg_delete(&s->wcfg);
	rpmaf_cfg_delete(&s->cfg);
	return ret ? -1 : 0;
}

/* server_counters -- the SERVER line: what the client reports of the server */
static void
server_counters(struct rpmaf_server *srv)
{
	struct rpmaf_server_stats st;

	(void)rpmaf_server_get_stats(srv, &st);
	printf("SERVER %llu %llu %llu %llu %llu\n", (unsigned long long)st.accepted,
	       (unsigned long long)st.lost, (unsigned long long)st.proto_errors,
	       (unsigned long long)st.announcements, (unsigned long long)st.persists);
	fflush(stdout);
}

/* server_run -- stamp the fixed regions, update until told, end on SIGTERM */
static int
server_run(struct server *s, struct updater *u)
{
	for (unsigned name = 0; name < NFIXED; name++) {
		u->live[name] = true;
		if (stamp(u, name))
			return -1;
	}
	if (pthread_create(&u->thread, NULL, updater_main, u))
		return -1;
	printf("READY\n");
	fflush(stdout);
	while (!atomic_load(&Term))
		usleep(10000);
	pthread_join(u->thread, NULL);
	server_counters(s->srv);
	return 0;
}

/* server_main -- the server process: 0 when it ended well and its checks held */
static int
server_main(const char *port, const char *dir, const char *plant)
{
	static struct updater u;
	struct server s = {0};
	int ret;

	Role = " server";
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	signal(SIGTERM, on_signal);
	/*
	 * the APM regions are ordinary files, where the server refuses persistence apm (page
	 * granularity: doc/DURABILITY.md); libpmem2's testing switch calls them persistent
	 * memory, so that the pool's APM path is tortured (its durability is not)
	 */
	setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1);
	u.dir = dir;
	u.stale_gen = strcmp(plant, "stale-gen") == 0;
	u.seed = (unsigned)getpid();
	ret = server_up(&s, port, dir);
	if (!ret) {
		u.srv = s.srv;
		u.witness = s.witness;
		ret = server_run(&s, &u);
	} else if (ret != PORT_TAKEN) {
		fprintf(stderr, "pool_torture server: FAIL: setup\n");
	}
	if (server_down(&s)) {
		fprintf(stderr, "pool_torture server: FAIL: teardown\n");
		ret = -1;
	}
	if (ret == PORT_TAKEN)
		return PORT_TAKEN;
	return ret || atomic_load(&Violations) ? 1 : 0;
}

/* ================================================================ the client process */

/* what an operation does */
enum kind { K_READ_STAMPS, K_READ_RECORDS, K_WRITE, K_WRITE_PERSIST, K_FLUSH };

static const char *const Kinds[] = {"read of stamps", "read of records", "write", "write+persist",
				    "flush"};

/* an issuer of operations: an application thread, or a chain of callbacks */
struct actor {
	unsigned id;
	bool chain;
	unsigned seed;
	uint64_t seen[NNAMES]; /* the newest generation of each name it saw */
	bool gone[NNAMES];     /* and since then the name was gone */
	atomic_int parked;     /* a chain: idle, the reviver may start it again */
	atomic_ullong accepted, completed;
	pthread_t thread;
};

/* one operation in flight: its storage and what it was */
struct slot {
	struct rpmaf_op op;
	struct actor *a;
	unsigned index;	 /* its local memory and its records in every region */
	atomic_int busy; /* 0 free, 1 in flight, 2 its callback runs */
	uint64_t seq;
	/* written before the submission, read by the callback */
	unsigned kind, name, flags;
	uint64_t floor;
	size_t off, len;
};

static struct actor Actors[NACTORS];
static struct slot Slots[NSLOTS];
static struct rpmaf_pool *Pool;
static struct rpma_mr_local *Mr;
static uint8_t *Mem;
static atomic_int Stop, Deleting;

/* the figures */
static atomic_ullong St_ok, St_noent, St_remote, St_connlost, St_other;
static atomic_ullong Ref_noent, Ref_again, Ref_other;
static atomic_ullong Lookups, Changes, Verified, Unstamped, Torn;

/* count -- one more of a figure */
static void
count(atomic_ullong *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* slot_mem -- the local memory of a slot (its read destination, then its write source) */
static size_t
slot_mem(const struct slot *s)
{
	return (size_t)s->index * SLOT_MEM;
}

/* slot_area -- where the slot's records are in every region */
static size_t
slot_area(const struct slot *s)
{
	return STAMP_END + (size_t)s->index * SLOT_AREA;
}

/* view_check -- the table shows name at gen: never below what the actor saw before (3a) */
static void
view_check(const struct actor *a, unsigned name, uint64_t gen)
{
	if (gen > a->seen[name] || (gen == a->seen[name] && !a->gone[name]))
		return;
	violation("actor %u: the table went back: %s at generation %llu after generation "
		  "%llu%s (a removed registration back, or a live one dropped for a while)",
		  a->id, Names[name], (unsigned long long)gen, (unsigned long long)a->seen[name],
		  a->gone[name] ? " was gone" : "");
}

/*
 * observe -- ask the pool what it holds of name now and return the floor:
 * the newest generation seen, plus one once seen gone
 */
static uint64_t
observe(struct actor *a, unsigned name)
{
	struct rpmaf_pool_region info;
	int ret = rpmaf_pool_region(Pool, Names[name], &info);

	count(&Lookups);
	if (ret == 0) {
		view_check(a, name, info.generation);
		if (info.generation != a->seen[name] || a->gone[name])
			count(&Changes);
		a->seen[name] = info.generation;
		a->gone[name] = false;
	} else if (ret == RPMAF_E_NOENT && a->seen[name] && !a->gone[name]) {
		a->gone[name] = true;
		count(&Changes);
	}
	return a->seen[name] + (a->gone[name] ? 1 : 0);
}

/* plan_range -- a range of the slot's own records: n of them from a random first */
static void
plan_range(struct slot *s, unsigned r)
{
	unsigned per = SLOT_AREA / REC, n = 1 + r % per, first = (r / per) % (per - n + 1);

	s->off = slot_area(s) + (size_t)first * REC;
	s->len = (size_t)n * REC;
}

/* plan -- what the slot's next operation does, and where */
static void
plan(struct slot *s, unsigned r1, unsigned r2)
{
	static const unsigned mix[10] = {
	    K_READ_STAMPS, K_READ_STAMPS,   K_READ_STAMPS,   K_READ_RECORDS, K_WRITE,
	    K_WRITE,	   K_WRITE_PERSIST, K_WRITE_PERSIST, K_FLUSH,	     K_FLUSH};

	s->kind = mix[r1 % 10];
	s->flags = 0;
	if (s->kind == K_READ_STAMPS) {
		s->len = 16 * (1 + r2 % (4096 / 16));
		s->off = 16 * ((r2 / 256) % ((STAMP_END - s->len) / 16 + 1));
	} else if (s->kind == K_READ_RECORDS) {
		s->len = REC * (1 + r2 % 32);
		s->off = STAMP_END + REC * ((r2 / 32) % ((REGION - STAMP_END - s->len) / REC + 1));
	} else {
		plan_range(s, r2);
		if (s->kind == K_WRITE_PERSIST || (s->kind == K_FLUSH && (r1 / 10) % 2))
			s->flags = RPMAF_OP_PERSIST;
		else if (s->kind == K_FLUSH)
			s->flags = RPMAF_OP_VISIBLE;
	}
}

/* records_fill -- the records a write carries: its name's tag, its floor, whose, which */
static void
records_fill(struct slot *s)
{
	uint64_t *w = (uint64_t *)(void *)(Mem + slot_mem(s) + SRC_OFF);

	s->seq++;
	for (size_t i = 0; i < s->len / 8; i += REC / 8) {
		w[i] = rec_tag(s->name);
		w[i + 1] = s->floor;
		w[i + 2] = ~s->floor;
		w[i + 3] = s->index;
		w[i + 4] = s->seq;
		w[i + 5] = w[i + 6] = w[i + 7] = s->seq ^ 0xa5a5a5a5a5a5a5a5ull;
	}
}

static void on_done(struct rpmaf_op *op, int status, void *ctx);

/* submit -- hand the slot's operation to the pool */
static int
submit(struct slot *s)
{
	const char *name = Names[s->name];
	size_t mem = slot_mem(s);

	switch (s->kind) {
	case K_READ_STAMPS:
	case K_READ_RECORDS:
		return rpmaf_pool_read(Pool, &s->op, name, s->off, Mr, mem, s->len, on_done, s);
	case K_WRITE:
	case K_WRITE_PERSIST:
		return rpmaf_pool_write(Pool, &s->op, name, s->off, Mr, mem + SRC_OFF, s->len,
					s->flags, on_done, s);
	default:
		return rpmaf_pool_flush(Pool, &s->op, name, s->off, s->len, s->flags, on_done, s);
	}
}

/* refused -- count a submission the pool refused; anything but these fails the run */
static void
refused(struct slot *s, int ret)
{
	if (ret == RPMAF_E_NOENT) {
		count(&Ref_noent);
	} else if (ret == RPMAF_E_AGAIN) {
		count(&Ref_again);
	} else {
		count(&Ref_other);
		violation("actor %u: a %s of %s refused: %s", s->a->id, Kinds[s->kind],
			  Names[s->name], rpmaf_err_str(ret));
	}
}

/* issue -- plan, observe and submit the slot's next operation; 0 when accepted */
static int
issue(struct slot *s)
{
	struct actor *a = s->a;
	int ret;

	s->name = rnd(&a->seed) % NNAMES;
	plan(s, rnd(&a->seed), rnd(&a->seed));
	s->floor = observe(a, s->name);
	if (s->kind == K_WRITE || s->kind == K_WRITE_PERSIST)
		records_fill(s);
	atomic_store(&s->busy, 1);
	if ((ret = submit(s))) {
		atomic_store(&s->busy, 0);
		refused(s, ret);
		return ret;
	}
	atomic_fetch_add(&a->accepted, 1);
	return 0;
}

/*
 * stamp_of -- the generation a stamp pair gives for the slot's name: 0 for a
 * pair still zero or half-written (counted), or stamped for another name
 */
static uint64_t
stamp_of(const struct slot *s, uint64_t w0, uint64_t w1)
{
	uint64_t k = w1 ^ ~w0 ^ STAMP_MAGIC;

	if (w0 == 0 && w1 == 0)
		return 0;
	if (k == s->name)
		return w0;
	if (k < NNAMES)
		violation("actor %u: a read of %s returned a stamp of %s", s->a->id, Names[s->name],
			  Names[k]);
	else
		count(&Torn);
	return 0;
}

/* stamps_check -- a successful read of stamps: one registration, not older than the floor */
static void
stamps_check(const struct slot *s, const uint64_t *w)
{
	uint64_t gen = 0, g;

	for (size_t i = 0; i < s->len / 8; i += 2) {
		if (!(g = stamp_of(s, w[i], w[i + 1])))
			continue;
		if (gen && gen != g)
			violation("actor %u: a read of %s returned two registrations (%llu, %llu)",
				  s->a->id, Names[s->name], (unsigned long long)gen,
				  (unsigned long long)g);
		gen = g;
	}
	if (!gen) {
		count(&Unstamped);
		return;
	}
	count(&Verified);
	if (gen < s->floor)
		violation("actor %u: a read of %s at %zu succeeded against generation %llu, "
			  "submitted with floor %llu (its submitter had seen a newer one, or "
			  "this one gone)",
			  s->a->id, Names[s->name], s->off, (unsigned long long)gen,
			  (unsigned long long)s->floor);
}

/* records_check -- a successful read of records: only this name's tags */
static void
records_check(const struct slot *s, const uint64_t *w)
{
	for (size_t i = 0; i < s->len / 8; i += REC / 8) {
		if (w[i] && !rec_tag_ok(w[i], s->name))
			violation("actor %u: a read of %s at %zu found a record tagged %#llx",
				  s->a->id, Names[s->name], s->off + i * 8,
				  (unsigned long long)w[i]);
	}
}

/* judge -- the completion's status (2) and, for a read, its data (3b, 3d) */
static void
judge(const struct slot *s, int status)
{
	const uint64_t *w = (const uint64_t *)(const void *)(Mem + slot_mem(s));

	switch (status) {
	case 0:
		count(&St_ok);
		if (s->kind == K_READ_STAMPS)
			stamps_check(s, w);
		else if (s->kind == K_READ_RECORDS)
			records_check(s, w);
		return;
	case RPMAF_E_NOENT:
		count(&St_noent);
		return;
	case RPMAF_E_REMOTE:
		count(&St_remote);
		break;
	case RPMAF_E_CONNLOST:
		count(&St_connlost);
		if (atomic_load(&Deleting))
			return;
		break;
	default:
		count(&St_other);
		if (status == RPMAF_E_SHUTDOWN && atomic_load(&Deleting))
			return;
		break;
	}
	violation("actor %u: a %s of %s completed with %d (%s)", s->a->id, Kinds[s->kind],
		  Names[s->name], status, rpmaf_err_str(status));
}

/* chain_next -- a chain's next operation, from its callback; parked when none is taken */
static void
chain_next(struct slot *s)
{
	for (unsigned i = 0; i < TRIES && !atomic_load(&Stop); i++) {
		if (issue(s) == 0)
			return;
	}
	atomic_store_explicit(&s->a->parked, 1, memory_order_release);
}

/*
 * on_done -- every operation's callback: exactly once (1), then judged; the
 * slot is free again only once judged (its owner may reuse it at once),
 * then a chain goes on
 */
static void
on_done(struct rpmaf_op *op, int status, void *ctx)
{
	struct slot *s = ctx;
	int in_flight = 1;

	if (op != &s->op || !atomic_compare_exchange_strong(&s->busy, &in_flight, 2)) {
		violation("actor %u: a completion (status %d) of an operation not in flight",
			  s->a->id, status);
		return;
	}
	atomic_fetch_add(&s->a->completed, 1);
	judge(s, status);
	atomic_store(&s->busy, 0);
	if (s->a->chain)
		chain_next(s);
}

/* thread_main -- an application thread: keep its slots busy until told to stop */
static void *
thread_main(void *arg)
{
	struct actor *a = arg;
	struct slot *mine = &Slots[a->id * PER_THREAD];

	while (!atomic_load(&Stop)) {
		for (unsigned k = 0; k < PER_THREAD && !atomic_load(&Stop); k++)
			if (!atomic_load(&mine[k].busy))
				(void)issue(&mine[k]);
		usleep(100);
	}
	return NULL;
}

/* revive -- start again the chains that parked (no name taken, or not started yet) */
static void
revive(void)
{
	for (unsigned c = 0; c < CHAINS; c++) {
		struct actor *a = &Actors[THREADS + c];

		if (!atomic_load_explicit(&a->parked, memory_order_acquire))
			continue;
		atomic_store(&a->parked, 0);
		chain_next(&Slots[THREADS * PER_THREAD + c]);
	}
}

/* actors_init -- the threads' slots first, then one slot per chain */
static void
actors_init(void)
{
	for (unsigned i = 0; i < NACTORS; i++) {
		Actors[i].id = i;
		Actors[i].chain = i >= THREADS;
		Actors[i].seed = (unsigned)getpid() * 7919u + i;
		atomic_init(&Actors[i].parked, Actors[i].chain);
	}
	for (unsigned k = 0; k < NSLOTS; k++) {
		Slots[k].index = k;
		Slots[k].a = k < THREADS * PER_THREAD ? &Actors[k / PER_THREAD]
						      : &Actors[THREADS + k - THREADS * PER_THREAD];
	}
}

/* in_flight -- the operations accepted and not completed yet */
static unsigned
in_flight(void)
{
	unsigned n = 0;

	for (unsigned k = 0; k < NSLOTS; k++)
		n += atomic_load(&Slots[k].busy) != 0;
	return n;
}

/* drain -- wait until every operation has completed (4); 0, or -1 when some never do */
static int
drain(void)
{
	long long limit = t_now_ms() + OP_MS + 10000;

	while (in_flight() && t_now_ms() < limit)
		usleep(1000);
	if (!in_flight())
		return 0;
	violation("%u operations never completed (a hang)", in_flight());
	return -1;
}

/* exactly_once -- every actor's accepted submissions all completed (1) */
static void
exactly_once(void)
{
	for (unsigned i = 0; i < NACTORS; i++) {
		unsigned long long acc = atomic_load(&Actors[i].accepted);
		unsigned long long done = atomic_load(&Actors[i].completed);

		if (acc != done)
			violation("actor %u: %llu operations accepted, %llu completions", i, acc,
				  done);
	}
}

/* run -- the bounded time: threads and chains issue, this thread revives parked chains */
static int
run(unsigned seconds)
{
	long long end = t_now_ms() + (long long)seconds * 1000;

	for (unsigned t = 0; t < THREADS; t++)
		if (pthread_create(&Actors[t].thread, NULL, thread_main, &Actors[t]))
			return -1;
	while (t_now_ms() < end) {
		revive();
		usleep(2000);
	}
	atomic_store(&Stop, 1);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(Actors[t].thread, NULL);
	return 0;
}

/* ---------------------------------------------------------------- the client's set-up */

/* the client process's objects */
struct client {
	char dir[64], port[16], exe[PATH_MAX];
	struct t_srv srv;
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	unsigned long upd[6];	     /* the UPDATES line */
	unsigned long long sst[5];   /* the SERVER line */
	struct rpmaf_pool_stats pst; /* the pool's counters, the server still up */
};

/* client_yaml -- the pool: 2 workers, 4 connections, quick reconnects */
static void
client_yaml(char *buf, size_t size, const struct client *c)
{
	snprintf(buf, size,
		 "workers: {count: 2, polling: event, batch: 16}\n"
		 "queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
		 "targets: [{name: t0, address: %s, port: %s, connections: 4}]\n"
		 "timeouts: {connect_ms: 5000, operation_ms: %d, heartbeat_interval_ms: 1000,\n"
		 "           heartbeat_misses: 10}\n"
		 "reconnect: {initial_ms: 20, max_ms: 200, multiplier: 2, jitter: 0.2}\n"
		 "log: {level: %s, file: %s/client.log}\n",
		 T_ADDR, c->port, OP_MS, log_level(), c->dir);
}

/*
 * server_spawn -- this program again as the server, on the first of PORTS
 * ports of 33000-33499 (33000 + 2 x (pid % 250), then others spread over
 * the range) it can listen on; 0 once it is READY
 */
static int
server_spawn(struct client *c)
{
	const char *plant = getenv("POOL_TORTURE_PLANT");
	const char *opts[] = {c->dir, plant ? plant : "none", NULL};
	ssize_t n = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
	char line[64];

	if (n <= 0)
		return -1;
	c->exe[n] = '\0';
	for (unsigned k = 0; k < PORTS; k++) {
		snprintf(c->port, sizeof(c->port), "%u",
			 33000 + (2 * (unsigned)(getpid() % 250) + 74 * k) % 500);
		if (t_prog_exec(&c->srv, c->exe, "server", c->port, opts))
			return -1;
		if (t_srv_line(&c->srv, "READY", line, sizeof(line), 2 * WAIT_MS) == 0)
			return 0;
		if (t_srv_wait(&c->srv, WAIT_MS) != PORT_TAKEN)
			return -1;
	}
	return -1;
}

/* client_up -- the server, then the pool and its memory; 0 once the pool is ready */
static int
client_up(struct client *c)
{
	char yaml[1024];

	snprintf(c->dir, sizeof(c->dir), "/tmp/pool_torture.%d", (int)getpid());
	if (mkdir(c->dir, 0700) || server_spawn(c)) {
		fprintf(stderr, "pool_torture: FAIL: the server did not start\n");
		return -1;
	}
	client_yaml(yaml, sizeof(yaml), c);
	if (cfg_load("client", yaml, &c->cfg) ||
	    !(c->peer = peer_new(RPMA_UTIL_IBV_CONTEXT_REMOTE)))
		return -1;
	if (rpmaf_workers_new(c->cfg, c->peer, &c->ws) ||
	    !(Mem = aligned_alloc(4096, (size_t)NSLOTS * SLOT_MEM)) ||
	    rpma_mr_reg(c->peer, Mem, (size_t)NSLOTS * SLOT_MEM,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &Mr))
		return -1;
	memset(Mem, 0, (size_t)NSLOTS * SLOT_MEM);
	if (rpmaf_pool_new(c->cfg, c->peer, c->ws, &Pool) || rpmaf_pool_wait_ready(Pool, WAIT_MS)) {
		fprintf(stderr, "pool_torture: FAIL: the pool did not get ready\n");
		return -1;
	}
	return 0;
}

/* server_updates -- stop the updater and read its counts */
static int
server_updates(struct client *c)
{
	char line[256];
	unsigned long long v = 0;

	if (kill(c->srv.pid, SIGUSR2) ||
	    t_srv_line(&c->srv, "UPDATES", line, sizeof(line), WAIT_MS))
		return -1;
	if (sscanf(line, "UPDATES %lu %lu %lu %lu %lu %llu", &c->upd[0], &c->upd[1], &c->upd[2],
		   &c->upd[3], &c->upd[4], &v) != 6)
		return -1;
	c->upd[5] = (unsigned long)v;
	return 0;
}

/* server_end -- SIGTERM: its counters, then its exit status (0: it ended well, checks held) */
static int
server_end(struct client *c)
{
	char line[256];
	int ret;

	if (kill(c->srv.pid, SIGTERM) ||
	    t_srv_line(&c->srv, "SERVER", line, sizeof(line), WAIT_MS) ||
	    sscanf(line, "SERVER %llu %llu %llu %llu %llu", &c->sst[0], &c->sst[1], &c->sst[2],
		   &c->sst[3], &c->sst[4]) != 5) {
		t_srv_kill(&c->srv);
		return -1;
	}
	ret = t_srv_wait(&c->srv, WAIT_MS);
	if (ret)
		fprintf(stderr, "pool_torture: FAIL: the server exited with %d\n", ret);
	return ret ? -1 : 0;
}

/*
 * pool_down -- the pool and its workers, before the server ends: a pool
 * left connecting while the server stops would race its shutdown
 */
static void
pool_down(struct client *c)
{
	atomic_store(&Deleting, 1);
	if (Pool)
		rpmaf_pool_delete(&Pool);
	if (c->ws)
		rpmaf_workers_delete(&c->ws);
}

/* client_down -- what is left: the pool, its memory, the server, the directory */
static void
client_down(struct client *c)
{
	char cmd[128];

	pool_down(c);
	if (Mr)
		rpma_mr_dereg(&Mr);
	free(Mem);
	if (c->peer)
		rpma_peer_delete(&c->peer);
	rpmaf_cfg_delete(&c->cfg);
	t_srv_kill(&c->srv);
	if (getenv("POOL_TORTURE_KEEP")) {
		fprintf(stderr, "pool_torture: logs kept in %s\n", c->dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c->dir);
	if (system(cmd))
		fprintf(stderr, "pool_torture: %s not removed\n", c->dir);
}

/* figures -- the one line of figures (5) */
static void
figures(const struct client *c)
{
	const struct rpmaf_pool_stats *st = &c->pst;

#define F(x) ((unsigned long long)atomic_load(&(x)))
	printf("pool_torture: ops ok %llu noent %llu remote %llu connlost %llu other %llu; "
	       "refused noent %llu again %llu; lookups %llu, changes seen %llu; "
	       "stamp reads verified %llu unstamped %llu torn %llu; "
	       "server adds %lu removes %lu replaces %lu post-mortems %lu; "
	       "reconnects %llu, healthy %u/%u; "
	       "server accepted %llu lost %llu proto-errors %llu announcements %llu\n",
	       F(St_ok), F(St_noent), F(St_remote), F(St_connlost), F(St_other), F(Ref_noent),
	       F(Ref_again), F(Lookups), F(Changes), F(Verified), F(Unstamped), F(Torn), c->upd[0],
	       c->upd[1], c->upd[2], c->upd[3], (unsigned long long)st->reconnects, st->healthy,
	       st->connections, c->sst[0], c->sst[1], c->sst[2], c->sst[3]);
#undef F
	fflush(stdout);
}

/* on_alarm -- the watchdog (4): the run did not end in time */
static void
on_alarm(int sig)
{
	static const char msg[] = "pool_torture: FAIL: watchdog: the run did not end in time\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
}

/* seconds_of -- the bounded time, from POOL_TORTURE_SECONDS */
static unsigned
seconds_of(void)
{
	const char *s = getenv("POOL_TORTURE_SECONDS");
	unsigned n = s ? (unsigned)atoi(s) : 10;

	return n ? n : 10;
}

/* torture -- the run itself, on a ready pool; 0 when the server ended well */
static int
torture(struct client *c, unsigned seconds)
{
	int ret;

	actors_init();
	if (kill(c->srv.pid, SIGUSR1) || run(seconds))
		return -1;
	ret = server_updates(c);
	if (drain() == 0)
		exactly_once();
	if (ret)
		fprintf(stderr, "pool_torture: FAIL: no counts from the updater\n");
	(void)rpmaf_pool_get_stats(Pool, &c->pst);
	/* (2): no removal may break a connection */
	if (c->pst.reconnects)
		violation("the pool reconnected %llu time(s) during the run",
			  (unsigned long long)c->pst.reconnects);
	pool_down(c);
	if (server_end(c))
		ret = -1;
	figures(c);
	return ret;
}

/* main -- the client, or the server when run again as "server PORT DIR PLANT" */
int
main(int argc, char *argv[])
{
	static struct client c = {.srv = {.pid = -1, .fd = -1}};
	unsigned seconds = seconds_of();
	int ret;

	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return server_main(argv[2], argv[3], argv[4]);
	signal(SIGALRM, on_alarm);
	alarm(seconds + MARGIN_S);
	ret = client_up(&c) ? -1 : torture(&c, seconds);
	client_down(&c);
	if (atomic_load(&Violations))
		fprintf(stderr, "pool_torture: FAIL: %llu violations\n",
			(unsigned long long)atomic_load(&Violations));
	return ret || atomic_load(&Violations) ? 1 : 0;
}
