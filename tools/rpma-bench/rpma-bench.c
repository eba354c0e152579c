/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma-bench -- latency and throughput of librpma's data path.
 *
 * One command runs a whole measurement: the process forks, the child is the
 * server (it listens, exposes a region declared as written directly to PMem
 * and registered for persistent flushes, and echoes every message it gets),
 * the parent is the client. For each size {64 B, 4 KiB} and queue depth
 * (1 and 16, or those of -q, up to 32) the client measures
 *   write_flush  rpma_write (unsignaled) + rpma_flush(PERSISTENT) per op,
 *   read         rpma_read,
 *   pingpong     rpma_send of a message and the server's echo received,
 * first a warm-up, then a fixed time (-t) or a fixed number of ops (-n).
 *
 * The source uses only what librpma 1.2 and 1.3 both have, so it builds
 * against either header. Every result is one line of key=value pairs:
 *   RESULT label=L op=O size=S qd=Q ops=N secs=T ops_per_sec=R
 *          p50_us=A p99_us=B p999_us=C
 * and the "# librpma=" line names the shared object that actually ran.
 *
 * The measured phase of each case is bracketed by bench_phase_begin() and
 * bench_phase_end(), so that callgrind --zero-before/--dump-after can count
 * the instructions of exactly that phase.
 */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <librpma.h>

#define MAX_QD	  32
#define MAX_NQD	  4 /* queue depths one run measures */
#define SLOT_SIZE 4096
#define SRV_NRECV (2 * MAX_QD) /* server receive buffers */
#define SRV_NSEND (4 * MAX_QD) /* server send ring */
#define CLI_NRECV (2 * MAX_QD) /* client receive buffers */
#define Q_SIZE	  128	       /* SQ, RQ and CQ sizes */
#define WC_BATCH  16

#define MSG_MAGIC 0x52424d47u /* a message of a measured op */
#define MSG_QUIT  0x51554954u /* the last message: the server stops */

/* op_context tags: the high bits of wr_id say what completed */
#define TAG_SHIFT 32
#define TAG_OP	  1ull /* write_flush, read: the slot's own op */
#define TAG_SEND  2ull
#define TAG_RECV  3ull

enum bench_op { OP_WRITE_FLUSH, OP_READ, OP_PINGPONG, OP_NUM };

static const char *const Op_names[OP_NUM] = {"write_flush", "read", "pingpong"};
static const size_t Sizes[] = {64, 4096};

struct bench_opts {
	const char *addr;
	const char *port;
	const char *label;
	double seconds;	       /* measured time per case, 0 with ops */
	unsigned long ops;     /* measured ops per case, 0 with seconds */
	unsigned long warmup;  /* warm-up ops per case */
	bool busy;	       /* busy-poll the CQ instead of waiting on it */
	bool shared;	       /* the server's data in a shared mapping (memfd) */
	unsigned watchdog;     /* seconds before the whole run is killed */
	unsigned qds[MAX_NQD]; /* the queue depths measured */
	unsigned nqd;
};

/* the message sent in a ping-pong; the rest of the message is payload */
struct msg_hdr {
	uint32_t magic;
	uint32_t slot;
};

/* one outstanding op of the client */
struct slot {
	uint64_t t_post; /* ns when posted */
	uint64_t seq;	 /* post order: the first opts->warmup are not measured */
	unsigned wait;	 /* completions still awaited (pingpong: send + echo) */
};

struct client {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *data_mr; /* MAX_QD slots: write source, read target */
	struct rpma_mr_local *msg_mr;  /* MAX_QD send slots, then CLI_NRECV recv slots */
	struct rpma_mr_remote *rmr;    /* the server's data region */
	char *data;
	char *msg;
	bool busy;
};

struct result {
	unsigned long ops;
	double secs;
	uint64_t *lat; /* ns, one per measured op */
	size_t nlat;
	size_t cap;
};

static pid_t Server_pid = -1;

/* die -- print a message and end the process with code 1 */
static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rpma-bench[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* check -- end the process if a librpma call failed */
static void
check(int ret, const char *what)
{
	if (ret)
		die("%s: %s (%d)", what, rpma_err_2str(ret), ret);
}

/* now_ns -- the monotonic clock in nanoseconds */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime: %s", strerror(errno));
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ctx -- an op_context value made of a tag and an index */
static const void *
ctx(unsigned long long tag, unsigned idx)
{
	return (const void *)(uintptr_t)(tag << TAG_SHIFT | idx);
}

/* zalloc_aligned -- zeroed page-aligned memory; ends the process if none */
static char *
zalloc_aligned(size_t size)
{
	void *p;
	int err = posix_memalign(&p, 4096, size);

	if (err)
		die("posix_memalign(%zu): %s", size, strerror(err));
	memset(p, 0, size);
	return p;
}

/*
 * zalloc_shared -- zeroed memory of a shared mapping of a memfd, as a
 * region mapped from a file is; *fd keeps the file open (ends the process
 * if none)
 */
static char *
zalloc_shared(size_t size, int *fd)
{
	void *p;

	*fd = memfd_create("rpma-bench", MFD_CLOEXEC);
	if (*fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (ftruncate(*fd, (off_t)size))
		die("ftruncate(%zu): %s", size, strerror(errno));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		die("mmap(%zu): %s", size, strerror(errno));
	return p;
}

/*
 * wait_wc -- get at least one completion from cq into wc; blocks in
 * rpma_cq_wait() between polls unless busy.
 */
static int
wait_wc(struct rpma_cq *cq, bool busy, struct ibv_wc *wc, int *got)
{
	int ret;

	for (;;) {
		ret = rpma_cq_get_wc(cq, WC_BATCH, wc, got);
		if (ret != RPMA_E_NO_COMPLETION)
			return ret;
		if (busy)
			continue;
		ret = rpma_cq_wait(cq);
		if (ret && ret != RPMA_E_NO_COMPLETION)
			return ret;
	}
}

/* conn_cfg_new -- the connection configuration both sides use */
static struct rpma_conn_cfg *
conn_cfg_new(void)
{
	struct rpma_conn_cfg *cfg;

	check(rpma_conn_cfg_new(&cfg), "rpma_conn_cfg_new");
	check(rpma_conn_cfg_set_sq_size(cfg, Q_SIZE), "rpma_conn_cfg_set_sq_size");
	check(rpma_conn_cfg_set_rq_size(cfg, Q_SIZE), "rpma_conn_cfg_set_rq_size");
	check(rpma_conn_cfg_set_cq_size(cfg, 2 * Q_SIZE), "rpma_conn_cfg_set_cq_size");
	return cfg;
}

/* expect_event -- wait for the next connection event and check it */
static void
expect_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event ev;

	check(rpma_conn_next_event(conn, &ev), "rpma_conn_next_event");
	if (ev != want)
		die("connection event %s, expected %s", rpma_utils_conn_event_2str(ev),
		    rpma_utils_conn_event_2str(want));
}

/* ---------------------------------------------------------------- server */

struct server {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *msg_mr; /* SRV_NRECV recv slots, then SRV_NSEND send slots */
	char *msg;
	bool busy;
	unsigned pend[SRV_NRECV]; /* received, not yet echoed: recv slot indexes */
	unsigned npend;
	unsigned pend_head;
	unsigned send_next;
	unsigned sending; /* echoes posted, not completed */
	bool quit;
};

/*
 * server_echo -- echo the received messages waiting in the FIFO while the
 * send ring has room: copy each into a send slot, give its receive buffer
 * back at once, then send the copy.
 */
static void
server_echo(struct server *s, const uint32_t *len)
{
	while (s->npend && s->sending < SRV_NSEND) {
		unsigned r = s->pend[s->pend_head];
		unsigned t = s->send_next;
		size_t roff = (size_t)r * SLOT_SIZE;
		size_t toff = (size_t)(SRV_NRECV + t) * SLOT_SIZE;

		s->pend_head = (s->pend_head + 1) % SRV_NRECV;
		s->npend--;
		memcpy(s->msg + toff, s->msg + roff, len[r]);
		check(rpma_recv(s->conn, s->msg_mr, roff, SLOT_SIZE, ctx(TAG_RECV, r)),
		      "server rpma_recv");
		check(rpma_send(s->conn, s->msg_mr, toff, len[r], RPMA_F_COMPLETION_ALWAYS,
				ctx(TAG_SEND, t)),
		      "server rpma_send");
		s->send_next = (t + 1) % SRV_NSEND;
		s->sending++;
	}
}

/* server_loop -- echo messages until the client's QUIT and the last echo is sent */
static void
server_loop(struct server *s)
{
	struct ibv_wc wc[WC_BATCH];
	uint32_t len[SRV_NRECV];
	int got;

	while (!s->quit || s->sending || s->npend) {
		check(wait_wc(s->cq, s->busy, wc, &got), "server wait for completion");
		for (int i = 0; i < got; i++) {
			unsigned long long tag = wc[i].wr_id >> TAG_SHIFT;
			unsigned idx = (unsigned)(wc[i].wr_id & 0xffffffffu);

			/* after QUIT the client may disconnect first: what is left is flushed */
			if (s->quit && wc[i].status == IBV_WC_WR_FLUSH_ERR) {
				if (tag == TAG_SEND)
					s->sending--;
				continue;
			}
			if (wc[i].status != IBV_WC_SUCCESS)
				die("server: completion %s of wr_id %#llx",
				    ibv_wc_status_str(wc[i].status),
				    (unsigned long long)wc[i].wr_id);
			if (tag == TAG_SEND && wc[i].opcode == IBV_WC_SEND) {
				s->sending--;
				continue;
			}
			if (tag != TAG_RECV || wc[i].opcode != IBV_WC_RECV || idx >= SRV_NRECV)
				die("server: unexpected completion opcode %d wr_id %#llx",
				    (int)wc[i].opcode, (unsigned long long)wc[i].wr_id);

			const struct msg_hdr *h = (const void *)(s->msg + (size_t)idx * SLOT_SIZE);

			if (wc[i].byte_len >= sizeof(*h) && h->magic == MSG_QUIT) {
				s->quit = true;
				continue;
			}
			if (s->npend == SRV_NRECV)
				die("server: receive FIFO overflow");
			len[idx] = wc[i].byte_len;
			s->pend[(s->pend_head + s->npend) % SRV_NRECV] = idx;
			s->npend++;
		}
		server_echo(s, len);
	}
}

/* peer_cfg_pdata -- append the descriptor of a peer cfg declaring direct write to PMem */
static size_t
peer_cfg_pdata(char *buf, size_t room)
{
	struct rpma_peer_cfg *pcfg;
	size_t size;

	check(rpma_peer_cfg_new(&pcfg), "rpma_peer_cfg_new");
	check(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true),
	      "rpma_peer_cfg_set_direct_write_to_pmem");
	check(rpma_peer_cfg_get_descriptor_size(pcfg, &size), "rpma_peer_cfg_get_descriptor_size");
	if (size > room || size > UINT8_MAX)
		die("peer cfg descriptor too big: %zu", size);
	check(rpma_peer_cfg_get_descriptor(pcfg, buf), "rpma_peer_cfg_get_descriptor");
	check(rpma_peer_cfg_delete(&pcfg), "rpma_peer_cfg_delete");
	return size;
}

/*
 * server_main -- the child: listen, tell the parent through ready_fd, accept
 * one connection with the region's and the peer cfg's descriptors as private
 * data, echo messages, and clean up when the client disconnects.
 */
static int
server_main(const struct bench_opts *o, int ready_fd)
{
	struct ibv_context *ibv;
	struct rpma_peer *peer;
	struct rpma_mr_local *data_mr;
	struct rpma_ep *ep;
	struct rpma_conn_req *req;
	struct rpma_conn_cfg *cfg;
	struct server s = {.busy = o->busy};
	char pdata_buf[256];
	size_t msz;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		die("prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
	if (getppid() == 1)
		die("server: the client is gone");

	check(rpma_utils_get_ibv_context(o->addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ibv),
	      "server rpma_utils_get_ibv_context");
	check(rpma_peer_new(ibv, &peer), "server rpma_peer_new");

	size_t dsz = (size_t)MAX_QD * SLOT_SIZE;
	int data_fd = -1;
	char *data = o->shared ? zalloc_shared(dsz, &data_fd) : zalloc_aligned(dsz);

	s.msg = zalloc_aligned((size_t)(SRV_NRECV + SRV_NSEND) * SLOT_SIZE);
	check(rpma_mr_reg(peer, data, dsz,
			  RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			      RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
			  &data_mr),
	      "server rpma_mr_reg(data)");
	check(rpma_mr_reg(peer, s.msg, (size_t)(SRV_NRECV + SRV_NSEND) * SLOT_SIZE,
			  RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &s.msg_mr),
	      "server rpma_mr_reg(msg)");

	/* private data: [mr desc size][pcfg desc size][mr desc][pcfg desc] */
	check(rpma_mr_get_descriptor_size(data_mr, &msz), "rpma_mr_get_descriptor_size");
	if (msz > sizeof(pdata_buf) - 2 || msz > UINT8_MAX)
		die("memory region descriptor too big: %zu", msz);
	check(rpma_mr_get_descriptor(data_mr, pdata_buf + 2), "rpma_mr_get_descriptor");
	size_t psz = peer_cfg_pdata(pdata_buf + 2 + msz, sizeof(pdata_buf) - 2 - msz);

	pdata_buf[0] = (char)msz;
	pdata_buf[1] = (char)psz;

	struct rpma_conn_private_data pdata = {
	    .ptr = pdata_buf,
	    .len = (uint8_t)(2 + msz + psz),
	};

	check(rpma_ep_listen(peer, o->addr, o->port, &ep), "server rpma_ep_listen");
	if (write(ready_fd, "R", 1) != 1)
		die("server: write to the parent: %s", strerror(errno));
	if (close(ready_fd))
		die("server: close: %s", strerror(errno));

	cfg = conn_cfg_new();
	check(rpma_ep_next_conn_req(ep, cfg, &req), "server rpma_ep_next_conn_req");
	for (unsigned r = 0; r < SRV_NRECV; r++)
		check(rpma_conn_req_recv(req, s.msg_mr, (size_t)r * SLOT_SIZE, SLOT_SIZE,
					 ctx(TAG_RECV, r)),
		      "server rpma_conn_req_recv");
	check(rpma_conn_req_connect(&req, &pdata, &s.conn), "server rpma_conn_req_connect");
	expect_event(s.conn, RPMA_CONN_ESTABLISHED);
	check(rpma_conn_get_cq(s.conn, &s.cq), "server rpma_conn_get_cq");

	server_loop(&s);

	expect_event(s.conn, RPMA_CONN_CLOSED);
	check(rpma_conn_disconnect(s.conn), "server rpma_conn_disconnect");
	check(rpma_conn_delete(&s.conn), "server rpma_conn_delete");
	check(rpma_conn_cfg_delete(&cfg), "server rpma_conn_cfg_delete");
	check(rpma_ep_shutdown(&ep), "server rpma_ep_shutdown");
	check(rpma_mr_dereg(&s.msg_mr), "server rpma_mr_dereg(msg)");
	check(rpma_mr_dereg(&data_mr), "server rpma_mr_dereg(data)");
	check(rpma_peer_delete(&peer), "server rpma_peer_delete");
	free(s.msg);
	if (o->shared) {
		munmap(data, dsz);
		close(data_fd);
	} else {
		free(data);
	}
	return 0;
}

/* ---------------------------------------------------------------- client */

/*
 * bench_phase_begin -- called right before the measured phase of a case;
 * callgrind's --zero-before= names it. Kept out of line on purpose.
 */
void __attribute__((noinline)) bench_phase_begin(unsigned case_no)
{
	__asm__ __volatile__("" : : "r"(case_no) : "memory");
}

/*
 * bench_phase_end -- called right after the measured phase of a case;
 * callgrind's --dump-after= names it. Kept out of line on purpose.
 */
void __attribute__((noinline)) bench_phase_end(unsigned case_no)
{
	__asm__ __volatile__("" : : "r"(case_no) : "memory");
}

/* client_post -- post op on slot idx of the given size */
static void
client_post(struct client *c, enum bench_op op, unsigned idx, size_t size)
{
	size_t off = (size_t)idx * SLOT_SIZE;

	switch (op) {
	case OP_WRITE_FLUSH:
		check(rpma_write(c->conn, c->rmr, off, c->data_mr, off, size,
				 RPMA_F_COMPLETION_ON_ERROR, NULL),
		      "rpma_write");
		check(rpma_flush(c->conn, c->rmr, off, size, RPMA_FLUSH_TYPE_PERSISTENT,
				 RPMA_F_COMPLETION_ALWAYS, ctx(TAG_OP, idx)),
		      "rpma_flush");
		break;
	case OP_READ:
		check(rpma_read(c->conn, c->data_mr, off, c->rmr, off, size,
				RPMA_F_COMPLETION_ALWAYS, ctx(TAG_OP, idx)),
		      "rpma_read");
		break;
	default: {
		struct msg_hdr *h = (void *)(c->msg + off);

		h->magic = MSG_MAGIC;
		h->slot = idx;
		check(rpma_send(c->conn, c->msg_mr, off, size, RPMA_F_COMPLETION_ALWAYS,
				ctx(TAG_SEND, idx)),
		      "rpma_send");
		break;
	}
	}
}

/*
 * client_slot_of -- the slot a completion belongs to; a ping-pong echo
 * names it in its header and its receive buffer is posted again here.
 */
static unsigned
client_slot_of(struct client *c, const struct ibv_wc *wc)
{
	unsigned long long tag = wc->wr_id >> TAG_SHIFT;
	unsigned idx = (unsigned)(wc->wr_id & 0xffffffffu);

	if (wc->status != IBV_WC_SUCCESS)
		die("client: completion %s of wr_id %#llx", ibv_wc_status_str(wc->status),
		    (unsigned long long)wc->wr_id);
	if ((tag == TAG_OP || tag == TAG_SEND) && idx < MAX_QD)
		return idx;
	if (tag != TAG_RECV || wc->opcode != IBV_WC_RECV || idx >= CLI_NRECV)
		die("client: unexpected completion opcode %d wr_id %#llx", (int)wc->opcode,
		    (unsigned long long)wc->wr_id);

	size_t roff = (size_t)(MAX_QD + idx) * SLOT_SIZE;
	const struct msg_hdr *h = (const void *)(c->msg + roff);

	if (wc->byte_len < sizeof(*h) || h->magic != MSG_MAGIC || h->slot >= MAX_QD)
		die("client: bad echo (%u bytes)", wc->byte_len);
	unsigned slot = h->slot;

	check(rpma_recv(c->conn, c->msg_mr, roff, SLOT_SIZE, ctx(TAG_RECV, idx)), "rpma_recv");
	return slot;
}

/* result_add -- remember one measured latency */
static void
result_add(struct result *r, uint64_t ns)
{
	if (r->nlat == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 65536;
		uint64_t *lat = realloc(r->lat, cap * sizeof(*lat));

		if (lat == NULL)
			die("out of memory for %zu latencies", cap);
		r->lat = lat;
		r->cap = cap;
	}
	r->lat[r->nlat++] = ns;
}

/*
 * run_case -- keep qd ops of one kind in flight: opts->warmup ops first,
 * then the measured ones, until opts->ops were measured or opts->seconds
 * have passed since the first measured op was posted; then drain.
 */
static void
run_case(struct client *c, const struct bench_opts *o, unsigned case_no, enum bench_op op,
	 size_t size, unsigned qd, struct result *r)
{
	struct slot slots[MAX_QD];
	struct ibv_wc wc[WC_BATCH];
	unsigned wait_per_op = op == OP_PINGPONG ? 2 : 1;
	uint64_t posted = 0, done = 0, t_start = 0, t_last = 0;
	uint64_t limit_ns = (uint64_t)(o->seconds * 1e9);
	bool posting = true;
	int got;

	r->nlat = 0;
	if (o->warmup == 0)
		bench_phase_begin(case_no);
	for (unsigned i = 0; i < qd; i++) {
		slots[i].t_post = now_ns();
		slots[i].seq = posted++;
		slots[i].wait = wait_per_op;
		if (slots[i].seq == o->warmup)
			t_start = slots[i].t_post;
		client_post(c, op, i, size);
	}

	while (done < posted) {
		check(wait_wc(c->cq, c->busy, wc, &got), "wait for completion");
		for (int i = 0; i < got; i++) {
			unsigned idx = client_slot_of(c, &wc[i]);
			struct slot *s = &slots[idx];

			if (idx >= qd || s->wait == 0)
				die("client: completion of an idle slot %u", idx);
			if (--s->wait)
				continue;

			uint64_t t = now_ns();

			done++;
			if (s->seq >= o->warmup) {
				result_add(r, t - s->t_post);
				t_last = t;
			}
			if (posting) {
				if (o->ops)
					posting = posted < o->warmup + o->ops;
				else
					posting = posted <= o->warmup || t - t_start < limit_ns;
			}
			if (!posting)
				continue;
			if (posted == o->warmup)
				bench_phase_begin(case_no);
			s->t_post = now_ns();
			s->seq = posted++;
			s->wait = wait_per_op;
			if (s->seq == o->warmup)
				t_start = s->t_post;
			client_post(c, op, idx, size);
		}
	}
	bench_phase_end(case_no);
	r->ops = r->nlat;
	r->secs = (double)(t_last - t_start) / 1e9;
}

/* cmp_u64 -- qsort order of latencies */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* pct_us -- the nearest-rank percentile p (0..1) of sorted latencies, in µs */
static double
pct_us(const struct result *r, double p)
{
	if (r->nlat == 0)
		return 0.0;

	size_t rank = (size_t)(p * (double)r->nlat + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > r->nlat)
		rank = r->nlat;
	return (double)r->lat[rank - 1] / 1e3;
}

/* print_result -- one RESULT line */
static void
print_result(const struct bench_opts *o, enum bench_op op, size_t size, unsigned qd,
	     struct result *r)
{
	qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
	printf("RESULT label=%s op=%s size=%zu qd=%u ops=%lu secs=%.3f ops_per_sec=%.0f "
	       "p50_us=%.2f p99_us=%.2f p999_us=%.2f\n",
	       o->label, Op_names[op], size, qd, r->ops, r->secs,
	       r->secs > 0 ? (double)r->ops / r->secs : 0.0, pct_us(r, 0.50), pct_us(r, 0.99),
	       pct_us(r, 0.999));
	if (fflush(stdout))
		die("stdout: %s", strerror(errno));
}

/* print_object -- the file of the shared object that defines symbol */
static void
print_object(const char *key, const char *symbol)
{
	Dl_info info;
	char path[PATH_MAX];
	void *addr = dlsym(RTLD_DEFAULT, symbol);

	if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL) {
		printf("# %s=unknown\n", key);
		return;
	}
	if (realpath(info.dli_fname, path) == NULL)
		snprintf(path, sizeof(path), "%s", info.dli_fname);
	printf("# %s=%s\n", key, path);
}

/*
 * print_transport -- what softrdma set up in this process: its same-host
 * transport keeps a memfd named softrdma-seg open; without it (or with
 * SOFTRDMA_TRANSPORT=tcp) connections go over TCP.
 */
static void
print_transport(void)
{
	const char *env = getenv("SOFTRDMA_TRANSPORT");
	char link[PATH_MAX], path[sizeof("/proc/self/fd/") + 256];
	struct dirent *d;
	bool seg = false;
	DIR *dir = opendir("/proc/self/fd");

	if (dir == NULL)
		die("opendir(/proc/self/fd): %s", strerror(errno));
	while ((d = readdir(dir)) != NULL) {
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue; /* the directory's own descriptor may be gone */
		link[n] = '\0';
		if (strstr(link, "softrdma-seg") != NULL)
			seg = true;
	}
	if (closedir(dir))
		die("closedir: %s", strerror(errno));
	printf("# SOFTRDMA_TRANSPORT=%s softrdma_shm_segment=%s\n", env ? env : "(unset)",
	       seg ? "yes" : "no");
}

/* client_connect -- connect, read the descriptors and apply the server's peer cfg */
static void
client_connect(struct client *c, const struct bench_opts *o)
{
	struct ibv_context *ibv;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pdata;
	struct rpma_peer_cfg *pcfg;
	int flush_type;

	check(rpma_utils_get_ibv_context(o->addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ibv),
	      "rpma_utils_get_ibv_context");
	printf("# device=%s\n", ibv_get_device_name(ibv->device));
	check(rpma_peer_new(ibv, &c->peer), "rpma_peer_new");

	c->data = zalloc_aligned((size_t)MAX_QD * SLOT_SIZE);
	c->msg = zalloc_aligned((size_t)(MAX_QD + CLI_NRECV) * SLOT_SIZE);
	memset(c->data, 0xa5, (size_t)MAX_QD * SLOT_SIZE);
	check(rpma_mr_reg(c->peer, c->data, (size_t)MAX_QD * SLOT_SIZE,
			  RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c->data_mr),
	      "rpma_mr_reg(data)");
	check(rpma_mr_reg(c->peer, c->msg, (size_t)(MAX_QD + CLI_NRECV) * SLOT_SIZE,
			  RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &c->msg_mr),
	      "rpma_mr_reg(msg)");

	cfg = conn_cfg_new();
	check(rpma_conn_req_new(c->peer, o->addr, o->port, cfg, &req), "rpma_conn_req_new");
	for (unsigned r = 0; r < CLI_NRECV; r++)
		check(rpma_conn_req_recv(req, c->msg_mr, (size_t)(MAX_QD + r) * SLOT_SIZE,
					 SLOT_SIZE, ctx(TAG_RECV, r)),
		      "rpma_conn_req_recv");
	check(rpma_conn_req_connect(&req, NULL, &c->conn), "rpma_conn_req_connect");
	check(rpma_conn_cfg_delete(&cfg), "rpma_conn_cfg_delete");
	expect_event(c->conn, RPMA_CONN_ESTABLISHED);

	check(rpma_conn_get_private_data(c->conn, &pdata), "rpma_conn_get_private_data");
	const unsigned char *p = pdata.ptr;

	if (p == NULL || pdata.len < 2 || (size_t)pdata.len < 2u + p[0] + p[1])
		die("short private data (%u bytes)", (unsigned)pdata.len);
	check(rpma_mr_remote_from_descriptor(p + 2, p[0], &c->rmr),
	      "rpma_mr_remote_from_descriptor");
	check(rpma_peer_cfg_from_descriptor(p + 2 + p[0], p[1], &pcfg),
	      "rpma_peer_cfg_from_descriptor");
	check(rpma_conn_apply_remote_peer_cfg(c->conn, pcfg), "rpma_conn_apply_remote_peer_cfg");
	check(rpma_peer_cfg_delete(&pcfg), "rpma_peer_cfg_delete");
	check(rpma_mr_remote_get_flush_type(c->rmr, &flush_type), "rpma_mr_remote_get_flush_type");
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		die("the server's region does not support persistent flush");
	check(rpma_conn_get_cq(c->conn, &c->cq), "rpma_conn_get_cq");
	print_transport();
}

/* client_close -- send QUIT, disconnect and free everything */
static void
client_close(struct client *c)
{
	struct ibv_wc wc[WC_BATCH];
	struct msg_hdr *h = (void *)c->msg;
	bool sent = false;
	int got;

	h->magic = MSG_QUIT;
	h->slot = 0;
	check(rpma_send(c->conn, c->msg_mr, 0, sizeof(*h), RPMA_F_COMPLETION_ALWAYS,
			ctx(TAG_SEND, 0)),
	      "rpma_send(quit)");
	while (!sent) {
		check(wait_wc(c->cq, c->busy, wc, &got), "wait for the quit message");
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die("quit message: %s", ibv_wc_status_str(wc[i].status));
			if (wc[i].wr_id >> TAG_SHIFT == TAG_SEND)
				sent = true;
		}
	}
	check(rpma_conn_disconnect(c->conn), "rpma_conn_disconnect");
	expect_event(c->conn, RPMA_CONN_CLOSED);
	check(rpma_conn_delete(&c->conn), "rpma_conn_delete");
	check(rpma_mr_remote_delete(&c->rmr), "rpma_mr_remote_delete");
	check(rpma_mr_dereg(&c->msg_mr), "rpma_mr_dereg(msg)");
	check(rpma_mr_dereg(&c->data_mr), "rpma_mr_dereg(data)");
	check(rpma_peer_delete(&c->peer), "rpma_peer_delete");
	free(c->msg);
	free(c->data);
}

/* client_main -- run every case and print its line */
static void
client_main(const struct bench_opts *o)
{
	struct client c = {.busy = o->busy};
	struct result r = {0};
	unsigned case_no = 0;

	client_connect(&c, o);
	for (size_t si = 0; si < sizeof(Sizes) / sizeof(Sizes[0]); si++) {
		for (unsigned qi = 0; qi < o->nqd; qi++) {
			for (int op = 0; op < OP_NUM; op++) {
				unsigned qd = o->qds[qi];

				printf("# case=%u op=%s size=%zu qd=%u\n", case_no, Op_names[op],
				       Sizes[si], qd);
				run_case(&c, o, case_no, (enum bench_op)op, Sizes[si], qd, &r);
				print_result(o, (enum bench_op)op, Sizes[si], qd, &r);
				case_no++;
			}
		}
	}
	free(r.lat);
	client_close(&c);
}

/* on_alarm -- the watchdog: kill the server and end the run */
static void
on_alarm(int sig)
{
	static const char msg[] = "rpma-bench: watchdog expired, killing the run\n";

	(void)sig;
	if (Server_pid > 0)
		(void)kill(Server_pid, SIGKILL);
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(2);
}

/* usage -- print the options and end the process */
static void __attribute__((noreturn)) usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-a ADDR] [-p PORT] [-l LABEL] [-t SECONDS | -n OPS] [-w WARMUP] [-b]\n"
		"          [-S] [-q QD[,QD]...]\n"
		"  -a ADDR     address to listen on and connect to (127.0.0.1)\n"
		"  -p PORT     port (7471)\n"
		"  -l LABEL    label printed on every RESULT line (rpma)\n"
		"  -t SECONDS  measured time per case (2)\n"
		"  -n OPS      measured ops per case instead of a time\n"
		"  -w WARMUP   warm-up ops per case (1000)\n"
		"  -b          busy-poll completion queues instead of waiting\n"
		"  -S          the server's data in a shared mapping of a memfd, as a region\n"
		"              mapped from a file is (anonymous memory otherwise)\n"
		"  -q QDS      queue depths, comma-separated, 1 to 32, at most 4 (1,16)\n"
		"  -T SECONDS  watchdog for the whole run (derived from -t/-n)\n",
		prog);
	exit(2);
}

/* parse_ulong -- a whole decimal number or die */
static unsigned long
parse_ulong(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		die("bad %s: '%s'", what, s);
	return v;
}

/* parse_qds -- a list of queue depths ("1,32") into o, or die */
static void
parse_qds(const char *s, struct bench_opts *o)
{
	char *end;

	o->nqd = 0;
	for (;;) {
		errno = 0;
		unsigned long qd = strtoul(s, &end, 10);

		if (errno || end == s || qd == 0 || qd > MAX_QD || o->nqd == MAX_NQD ||
		    (*end && *end != ','))
			die("bad queue depths at '%s': 1 to %d each, at most %d", s, MAX_QD,
			    MAX_NQD);
		o->qds[o->nqd++] = (unsigned)qd;
		if (!*end)
			return;
		s = end + 1;
	}
}

/* parse_opts -- the command line into o */
static void
parse_opts(int argc, char *argv[], struct bench_opts *o)
{
	int opt;
	char *end;

	*o = (struct bench_opts){.addr = "127.0.0.1",
				 .port = "7471",
				 .label = "rpma",
				 .seconds = 2.0,
				 .warmup = 1000,
				 .qds = {1, 16},
				 .nqd = 2};
	while ((opt = getopt(argc, argv, "a:p:l:t:n:w:bST:q:h")) != -1) {
		switch (opt) {
		case 'a':
			o->addr = optarg;
			break;
		case 'p':
			o->port = optarg;
			break;
		case 'l':
			o->label = optarg;
			break;
		case 't':
			errno = 0;
			o->seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || o->seconds <= 0 || o->seconds > 3600)
				die("bad seconds: '%s'", optarg);
			o->ops = 0;
			break;
		case 'n':
			o->ops = parse_ulong(optarg, "ops");
			if (o->ops == 0)
				die("-n needs at least one op");
			o->seconds = 0;
			break;
		case 'w':
			o->warmup = parse_ulong(optarg, "warm-up");
			break;
		case 'b':
			o->busy = true;
			break;
		case 'S':
			o->shared = true;
			break;
		case 'q':
			parse_qds(optarg, o);
			break;
		case 'T':
			o->watchdog = (unsigned)parse_ulong(optarg, "watchdog");
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
	if (o->watchdog == 0)
		o->watchdog = o->ops ? 1800 : (unsigned)(6 * o->nqd * (o->seconds * 2 + 10) + 60);
}

/* main -- fork the server, run the client, reap the server */
int
main(int argc, char *argv[])
{
	struct bench_opts o;
	int pfd[2], status;
	char c;

	parse_opts(argc, argv, &o);
	if (setvbuf(stdout, NULL, _IOLBF, 0))
		die("setvbuf failed");

	printf("# rpma-bench label=%s pid=%d\n", o.label, (int)getpid());
	print_object("librpma", "rpma_read");
	print_object("libibverbs", "ibv_get_device_list");
	print_object("librdmacm", "rdma_create_id");
	printf("# addr=%s port=%s wait=%s data=%s warmup=%lu %s=%g\n", o.addr, o.port,
	       o.busy ? "busy-poll" : "cq-wait", o.shared ? "shared" : "anonymous", o.warmup,
	       o.ops ? "ops" : "seconds", o.ops ? (double)o.ops : o.seconds);

	if (pipe(pfd))
		die("pipe: %s", strerror(errno));
	if (signal(SIGALRM, on_alarm) == SIG_ERR)
		die("signal: %s", strerror(errno));
	alarm(o.watchdog);

	Server_pid = fork();
	if (Server_pid < 0)
		die("fork: %s", strerror(errno));
	if (Server_pid == 0) {
		if (close(pfd[0]))
			die("close: %s", strerror(errno));
		alarm(0);
		exit(server_main(&o, pfd[1]));
	}
	if (close(pfd[1]))
		die("close: %s", strerror(errno));
	if (read(pfd[0], &c, 1) != 1) {
		(void)waitpid(Server_pid, &status, 0);
		die("the server did not start");
	}
	if (close(pfd[0]))
		die("close: %s", strerror(errno));

	client_main(&o);

	if (waitpid(Server_pid, &status, 0) != Server_pid)
		die("waitpid: %s", strerror(errno));
	Server_pid = -1;
	alarm(0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the server failed (status %#x)", status);
	printf("# done\n");
	return 0;
}
