/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * softrdma_record.c -- record the seed corpora of the softrdma harnesses
 * from real softrdma traffic (make softrdma-fuzz-seeds).
 *
 *     softrdma-record tcp|shm CORPUS_DIR
 *
 * One process runs real traffic between softrdma QPs and connection
 * managers of its own, over TCP on the loopback ("tcp") or with same-host
 * rings ("shm", where only the hello, offer and answer go over TCP). It is
 * linked with softrdma's sources and with recv, readv and close wrapped
 * (-Wl,--wrap): every byte softrdma's receive paths read is kept per
 * descriptor, and when the descriptor closes the stream becomes seeds:
 * - a stream that starts with a hello is what a responder read: a seed of
 *   fuzz_softrdma_resp (its configuration byte first, the hello's numbers
 *   replaced by the placeholders SFZ_PH_TARGET / SFZ_PH_PEER);
 * - the requester connection of a scripted QP is what a requester read: a
 *   seed of fuzz_softrdma_comp (the script's number first);
 * - a stream of CM messages: a seed of fuzz_softrdma_cm (one extra byte
 *   when the connecting side had no QP: the harness then has none either);
 * - single hellos, offers, answers and headers out of those streams: seeds
 *   of fuzz_softrdma_wire (offers and answers also in localized form).
 * The environment (softrdma_fuzz.c) is the harnesses' own, made in the same
 * order, so the addresses and keys in the requests are valid there too.
 * Seeds are named rec-*; a directory's other files (regression inputs) are
 * left alone.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cm.h"
#include "softrdma_fuzz.h"

#define REC_MAX_FDS  4096
#define REC_MAX_WIRE 512

/* what softrdma read on one descriptor, and what it is for */
struct rec_log {
	unsigned char *buf;
	size_t len;
	size_t cap;
	int tagged;	 /* the requester connection of a scripted QP... */
	int comp_script; /* ...running this script */
	int resp_cfg;	 /* the responder configuration when the stream started */
	int odd;	 /* a CM stream whose connecting side had no QP */
	char scenario[48];
};

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_log Logs[REC_MAX_FDS];
static int Recording;
static char Scenario[48] = "init";
static int Resp_cfg;
static int Cm_odd;
static const char *Dir;
static const char *Mode;
static int Saved;
/* wire seeds saved so far (selector byte, then at most an offer's bytes) */
static unsigned char Wire[REC_MAX_WIRE][1 + sizeof(struct softrdma_wire_shm)];
static int Nwire;

ssize_t __real_recv(int fd, void *buf, size_t len, int flags);
ssize_t __real_readv(int fd, const struct iovec *iov, int cnt);
int __real_close(int fd);

/* rec_append -- keep @n bytes softrdma read on @fd (Lock held) */
static void
rec_append(int fd, const void *p, size_t n)
{
	struct rec_log *l = &Logs[fd];

	if (!l->cap) {
		l->cap = 4096;
		l->buf = malloc(l->cap);
		l->resp_cfg = Resp_cfg;
		l->odd = Cm_odd;
		snprintf(l->scenario, sizeof(l->scenario), "%s", Scenario);
	}
	while (l->len + n + 1 > l->cap) /* a byte to spare: see rec_finish */
		l->cap *= 2;
	l->buf = realloc(l->buf, l->cap);
	if (!l->buf) {
		fprintf(stderr, "softrdma-record: out of memory\n");
		exit(1);
	}
	memcpy(l->buf + l->len, p, n);
	l->len += n;
}

/* __wrap_recv -- recv, keeping what it read while recording */
ssize_t
__wrap_recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t n = __real_recv(fd, buf, len, flags);

	if (n > 0 && fd >= 0 && fd < REC_MAX_FDS && !(flags & MSG_PEEK)) {
		pthread_mutex_lock(&Lock);
		if (Recording)
			rec_append(fd, buf, n);
		pthread_mutex_unlock(&Lock);
	}
	return n;
}

/* __wrap_readv -- readv, keeping what it read while recording */
ssize_t
__wrap_readv(int fd, const struct iovec *iov, int cnt)
{
	ssize_t n = __real_readv(fd, iov, cnt);
	size_t left = n > 0 ? (size_t)n : 0;

	if (!left || fd < 0 || fd >= REC_MAX_FDS)
		return n;
	pthread_mutex_lock(&Lock);
	for (int i = 0; i < cnt && left && Recording; i++) {
		size_t take = iov[i].iov_len < left ? iov[i].iov_len : left;

		rec_append(fd, iov[i].iov_base, take);
		left -= take;
	}
	pthread_mutex_unlock(&Lock);
	return n;
}

/* rec_save -- write one seed: CORPUS_DIR/HARNESS/rec-NAME, @prefix (if >= 0) then @p */
static void
rec_save(const char *harness, const char *name, int prefix, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", Dir, harness);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/rec-%s", Dir, harness, name);
	f = fopen(path, "we");
	if (!f || (prefix >= 0 && fputc(prefix, f) == EOF) || fwrite(p, 1, n, f) != n ||
	    fclose(f)) {
		fprintf(stderr, "softrdma-record: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	Saved++;
}

/* rec_wire -- a seed of fuzz_softrdma_wire, unless the same one was saved already */
static void
rec_wire(const char *name, int selector, const void *p, size_t n)
{
	unsigned char seed[sizeof(Wire[0])] = {(unsigned char)selector};

	memcpy(seed + 1, p, n);
	for (int i = 0; i < Nwire; i++)
		if (!memcmp(Wire[i], seed, sizeof(seed)))
			return;
	if (Nwire == REC_MAX_WIRE)
		return;
	memcpy(Wire[Nwire++], seed, sizeof(seed));
	rec_save("fuzz_softrdma_wire", name, selector, p, n);
}

/* rec_headers -- every header of a stream (payloads skipped) as a wire seed */
static void
rec_headers(const struct rec_log *l, size_t at, const char *what)
{
	char name[128];

	for (int i = 1; at + sizeof(struct softrdma_wire_hdr) <= l->len; i++) {
		struct softrdma_wire_hdr h;

		memcpy(&h, l->buf + at, sizeof(h));
		snprintf(name, sizeof(name), "%s-%s-%s-%d", Mode, l->scenario, what, i);
		rec_wire(name, 0, &h, sizeof(h));
		softrdma__wire_hdr_from_le(&h);
		at += sizeof(h) + h.len;
	}
}

/* rec_local_fd -- a descriptor of a localized offer: its index in the harness's table */
static int32_t
rec_local_fd(int32_t wire, int32_t index)
{
	return (int32_t)le32toh((uint32_t)wire) < 0 ? wire : (int32_t)htole32((uint32_t)index);
}

/*
 * rec_shm_seeds -- an offer (2) or answer (3) as wire seeds: as recorded,
 * and localized (in fuzz_softrdma_wire, descriptor numbers of a localized
 * input pick from a table that starts with the segment, doorbell and ring)
 */
static void
rec_shm_seeds(const unsigned char *p, int kind, const char *name)
{
	struct softrdma_wire_shm w;
	char n2[128];

	rec_wire(name, kind, p, sizeof(w));
	memcpy(&w, p, sizeof(w));
	w.seg_fd = rec_local_fd(w.seg_fd, 0);
	w.bell_fd = rec_local_fd(w.bell_fd, 1);
	w.ring_fd = rec_local_fd(w.ring_fd, 2);
	snprintf(n2, sizeof(n2), "%s-local", name);
	rec_wire(n2, kind | 4, &w, sizeof(w));
}

/* rec_resp_stream -- what a responder read: hello (placeholders), offer, requests */
static void
rec_resp_stream(struct rec_log *l, const char *tag)
{
	struct softrdma_wire_hello h;
	char name[128];

	memcpy(&h, l->buf, sizeof(h));
	snprintf(name, sizeof(name), "%s-hello", tag);
	rec_wire(name, 1, &h, sizeof(h));
	h.dst_qpn = htole32(SFZ_PH_TARGET);
	h.src_qpn = htole32(SFZ_PH_PEER);
	memcpy(l->buf, &h, sizeof(h));
	snprintf(name, sizeof(name), "%s-cfg%d", tag, l->resp_cfg);
	rec_save("fuzz_softrdma_resp", name, l->resp_cfg, l->buf, l->len);
	if (l->len < SOFTRDMA_WIRE_HELLO_LEN)
		return;
	snprintf(name, sizeof(name), "%s-offer", tag);
	rec_shm_seeds(l->buf + sizeof(h), 2, name);
	rec_headers(l, SOFTRDMA_WIRE_HELLO_LEN, "req");
}

/* rec_finish -- the stream of @fd is complete: turn it into seeds (Lock held) */
static void
rec_finish(int fd)
{
	struct rec_log *l = &Logs[fd];
	static int seq;
	uint32_t magic = 0;
	char tag[96];

	if (l->len >= 4)
		memcpy(&magic, l->buf, 4);
	snprintf(tag, sizeof(tag), "%s-%s-%d", Mode, l->scenario, ++seq);
	if (le32toh(magic) == SOFTRDMA_WIRE_MAGIC && l->len >= sizeof(struct softrdma_wire_hello)) {
		rec_resp_stream(l, tag);
	} else if (le32toh(magic) == SOFTRDMA_CM_MAGIC) {
		int passive = l->len > 4 && l->buf[4] == SOFTRDMA_CM_REQ;

		snprintf(tag, sizeof(tag), "%s-%s-%s-%d", Mode, l->scenario,
			 passive ? "passive" : "active", seq);
		if (l->odd && !passive)
			l->buf[l->len++] = 0; /* rec_append left room for it */
		rec_save("fuzz_softrdma_cm", tag, -1, l->buf, l->len);
	} else if (l->tagged && l->len) {
		rec_save("fuzz_softrdma_comp", tag, l->comp_script, l->buf, l->len);
		if (l->len >= sizeof(struct softrdma_wire_shm)) {
			snprintf(tag, sizeof(tag), "%s-%s-%d-answer", Mode, l->scenario, seq);
			rec_shm_seeds(l->buf, 3, tag);
			rec_headers(l, sizeof(struct softrdma_wire_shm), "ans");
		}
	}
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* __wrap_close -- close, first turning what was read on @fd into seeds */
int
__wrap_close(int fd)
{
	if (fd >= 0 && fd < REC_MAX_FDS) {
		pthread_mutex_lock(&Lock);
		if (Logs[fd].cap || Logs[fd].tagged)
			rec_finish(fd);
		pthread_mutex_unlock(&Lock);
	}
	return __real_close(fd);
}

/* rec_tag -- @fd is the requester connection of a QP running script @script */
static void
rec_tag(int fd, int script)
{
	pthread_mutex_lock(&Lock);
	Logs[fd].tagged = 1;
	Logs[fd].comp_script = script;
	pthread_mutex_unlock(&Lock);
}

/* rec_scenario -- name what follows; streams started from now on carry the name */
static void
rec_scenario(const char *name, int resp_cfg, int cm_odd)
{
	pthread_mutex_lock(&Lock);
	snprintf(Scenario, sizeof(Scenario), "%s", name);
	Resp_cfg = resp_cfg;
	Cm_odd = cm_odd;
	pthread_mutex_unlock(&Lock);
}

/* rec_out_fd -- the descriptor of @qp's requester connection */
static int
rec_out_fd(struct ibv_qp *qp)
{
	struct softrdma_qp *q = (struct softrdma_qp *)qp;
	int fd;

	pthread_mutex_lock(&q->lock);
	fd = q->out ? q->out->fd : -1;
	pthread_mutex_unlock(&q->lock);
	if (fd < 0 || fd >= REC_MAX_FDS)
		sfz_fail("no requester connection");
	return fd;
}

/* rec_drain -- forget the completions of a scenario once its QPs are gone */
static void
rec_drain(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(sfz.scq, 16, wc) > 0 || ibv_poll_cq(sfz.rcq, 16, wc) > 0)
		;
}

/*
 * rec_pair -- requester Q runs script @script against responder P in
 * configuration @cfg; the side that leaves first (@q_first) sends the
 * end-of-stream markers the other records
 */
static void
rec_pair(const char *name, unsigned script, unsigned cfg, uint8_t rnr_retry, int q_first)
{
	int all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_qp_attr err = {.qp_state = IBV_QPS_ERR};
	struct sfz_range may[2 * SFZ_NRECV];
	struct sfz_wr wrs[SFZ_MAX_SCRIPT];
	struct ibv_qp *p = sfz_qp_new(), *q = sfz_qp_new();
	struct ibv_wc wc[64];
	int nmay, nwrs, want = 0;

	rec_scenario(name, cfg, 0);
	if (sfz_qp_connect(p, q->qp_num, sfz_resp_access(cfg), 7) ||
	    sfz_resp_prepare(p, cfg, may, &nmay) || sfz_qp_connect(q, p->qp_num, all, rnr_retry))
		sfz_fail("%s: cannot connect", name);
	rec_tag(rec_out_fd(q), script);
	if (sfz_script_post(q, script, wrs, &nwrs))
		sfz_fail("%s: cannot post", name);
	for (int i = 0; i < nwrs; i++)
		want += wrs[i].signaled;
	/* an error completes everything, signaled or not: a short wait is enough */
	sfz_poll(sfz.scq, wc, 64, want, 2000);
	usleep(50000);
	ibv_modify_qp(q_first ? q : p, &err, IBV_QP_STATE);
	usleep(50000);
	ibv_modify_qp(q_first ? p : q, &err, IBV_QP_STATE);
	usleep(50000);
	sfz_qp_destroy(q);
	sfz_qp_destroy(p);
	rec_drain();
}

/* rec_cm_wait -- the next event on @ch, which must be @type; acknowledged */
static struct rdma_cm_id *
rec_cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct pollfd pf = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (poll(&pf, 1, 5000) != 1 || rdma_get_cm_event(ch, &ev))
		sfz_fail("no %s", rdma_event_str(type));
	if (ev->event != type)
		sfz_fail("%s instead of %s", rdma_event_str(ev->event), rdma_event_str(type));
	id = ev->id;
	rdma_ack_cm_event(ev);
	return id;
}

/* how a CM scenario goes */
enum rec_cm_end {
	REC_CLIENT_LEAVES,
	REC_SERVER_LEAVES,
	REC_REJECT,
};

/*
 * rec_cm -- one connection through the CM: private data of @req_len and
 * @rep_len bytes, the client with or without (@no_qp) a QP when it
 * connects, and an end
 */
static void
rec_cm(const char *name, uint8_t req_len, uint8_t rep_len, int no_qp, enum rec_cm_end end)
{
	static const uint8_t pdata[SOFTRDMA_CM_REP_PDATA] =
	    "recorded private data of a softrdma cm";
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct rdma_conn_param cp = {.private_data = pdata,
				     .private_data_len = req_len,
				     .responder_resources = 1,
				     .initiator_depth = 1,
				     .retry_count = 7,
				     .rnr_retry_count = 7};
	struct rdma_event_channel *chl = rdma_create_event_channel();
	struct rdma_event_channel *cha = rdma_create_event_channel();
	struct rdma_cm_id *l, *c, *s;
	struct ibv_qp_init_attr a;

	rec_scenario(name, 0, no_qp);
	memset(&a, 0, sizeof(a));
	a.send_cq = sfz.scq;
	a.recv_cq = sfz.rcq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!chl || !cha || rdma_create_id(chl, &l, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l, (struct sockaddr *)&sin) || rdma_listen(l, 8))
		sfz_fail("%s: cannot listen", name);
	sin.sin_port = rdma_get_src_port(l);
	if (rdma_create_id(cha, &c, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c, NULL, (struct sockaddr *)&sin, 1000))
		sfz_fail("%s: cannot resolve", name);
	rec_cm_wait(cha, RDMA_CM_EVENT_ADDR_RESOLVED);
	rdma_resolve_route(c, 1000);
	rec_cm_wait(cha, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if ((!no_qp && rdma_create_qp(c, NULL, &a)) || rdma_connect(c, &cp))
		sfz_fail("%s: cannot connect", name);
	s = rec_cm_wait(chl, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (end == REC_REJECT) {
		rdma_reject(s, pdata, SOFTRDMA_CM_REJ_PDATA);
		rec_cm_wait(cha, RDMA_CM_EVENT_REJECTED);
	} else {
		cp.private_data_len = rep_len;
		if (rdma_create_qp(s, NULL, &a) || rdma_accept(s, &cp))
			sfz_fail("%s: cannot accept", name);
		if (no_qp) {
			rec_cm_wait(cha, RDMA_CM_EVENT_CONNECT_RESPONSE);
			if (rdma_create_qp(c, NULL, &a) || rdma_establish(c))
				sfz_fail("%s: cannot establish", name);
		} else {
			rec_cm_wait(cha, RDMA_CM_EVENT_ESTABLISHED);
		}
		rec_cm_wait(chl, RDMA_CM_EVENT_ESTABLISHED);
		rdma_disconnect(end == REC_CLIENT_LEAVES ? c : s);
		rec_cm_wait(cha, RDMA_CM_EVENT_DISCONNECTED);
		rec_cm_wait(chl, RDMA_CM_EVENT_DISCONNECTED);
	}
	usleep(50000);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(chl);
	rdma_destroy_event_channel(cha);
	rec_drain();
}

/* rec_flush -- what was read on descriptors still open becomes seeds too */
static void
rec_flush(void)
{
	pthread_mutex_lock(&Lock);
	Recording = 0;
	for (int fd = 0; fd < REC_MAX_FDS; fd++)
		if (Logs[fd].cap || Logs[fd].tagged)
			rec_finish(fd);
	pthread_mutex_unlock(&Lock);
}

/* main -- record one transport's traffic into CORPUS_DIR */
int
main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "shm"))) {
		fprintf(stderr, "usage: %s tcp|shm CORPUS_DIR\n", argv[0]);
		return 2;
	}
	Mode = argv[1];
	Dir = argv[2];
	setenv("SOFTRDMA_CM_PORT_OFFSET", "0", 1);
	sfz_env_init(Mode, 1);
	sfz_healthy_check();
	pthread_mutex_lock(&Lock);
	Recording = 1;
	pthread_mutex_unlock(&Lock);
	rec_pair("mixed", 0, 0, 7, 0);
	if (!strcmp(Mode, "tcp")) {
		rec_pair("reads", 1, 0, 7, 1);
		rec_pair("rem-access", 2, 0, 7, 0);
		rec_pair("unsignaled", 3, 0, 7, 1);
		rec_pair("atomics", 4, 0, 7, 0);
		rec_pair("no-write", 0, SFZ_RESP_NO_WRITE, 7, 0);
		rec_pair("no-read", 1, SFZ_RESP_NO_READ, 7, 0);
		rec_pair("rnr", 0, SFZ_RESP_NO_RECV, 1, 0);
		rec_cm("client-leaves", SOFTRDMA_CM_REQ_PDATA, SOFTRDMA_CM_REP_PDATA, 0,
		       REC_CLIENT_LEAVES);
		rec_cm("server-leaves", 0, 10, 0, REC_SERVER_LEAVES);
		rec_cm("reject", 20, 0, 0, REC_REJECT);
		rec_cm("no-qp", 8, 30, 1, REC_CLIENT_LEAVES);
	}
	usleep(200000);
	rec_flush();
	printf("softrdma-record %s: %d seeds in %s\n", Mode, Saved, Dir);
	return 0;
}
