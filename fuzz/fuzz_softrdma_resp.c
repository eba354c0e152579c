/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_softrdma_resp.c -- what a peer requester sends on a softrdma data
 * connection: the hello, the same-host offer, then requests (SEND, WRITE,
 * READ, with or without immediate data, atomics, end-of-stream markers),
 * read by softrdma's own progress thread and responder.
 *
 * An input's first byte configures the responder QP under test
 * (SFZ_RESP_NO_WRITE, _NO_READ, _NO_RECV); the rest is written, as it is,
 * to a TCP connection to that QP's listener, except that a hello naming
 * SFZ_PH_TARGET / SFZ_PH_PEER is given the real numbers of the QP and its
 * peer, and never the healthy pair's. Each input gets a fresh QP in RTS
 * with the receive WQEs of sfz_resp_prepare(); the input is done when the
 * QP closed the connection or consumed everything it could.
 *
 * Properties:
 * - no sanitizer report, no hang (every input is done within 10 s);
 * - the hello is answered if and only if it is well formed and names the
 *   QP and its peer; an input shorter than hello and offer gets no answer;
 * - everything the QP sends back is what a requester accepts: the answer
 *   (no same-host rings over TCP), then headers that pass
 *   softrdma__wire_hdr_valid() on the requester side, nothing after EOS;
 * - a connection left open belongs to a QP not in the error state;
 * - writes stay inside what the input may write: the guards and RO never
 *   change, W only when the QP allows remote writes (and atomics), R only
 *   inside the posted receive buffers (never in the one that points into a
 *   guard);
 * - an atomic response answers an atomic request of the input (same
 *   sequence number), in order; one whose target no WRITE or atomic of
 *   the input touched before carries the pattern its target held;
 * - once the QP is moved to the error state (as a disconnect does), every
 *   posted receive WQE has completed exactly once, in order, naming the
 *   QP, with a status a responder may report; there is no send completion;
 * - a receive WQE that completed successfully got the message that took it
 *   (the n-th SEND or WRITE with immediate of the input): its length, its
 *   immediate data and, for a SEND, its payload in the WQE's buffers;
 * - the healthy pair still moves data after every input.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "softrdma_fuzz.h"

/* what the QP under test sent back, parsed as a requester would */
struct resp_out {
	unsigned char buf[sizeof(struct softrdma_wire_shm)];
	size_t have;
	uint64_t skip;
	int answered;
	int eos;
	/* an atomic response's value being read: its sequence number, bytes so far */
	int in_atomic;
	uint32_t atomic_seq;
	unsigned char atomic_val[8];
	size_t atomic_have;
	/* the atomic responses seen: sequence numbers and values (wire order) */
	uint32_t nresp;
	uint32_t resp_seq[64];
	uint64_t resp_val[64];
};

/* resp_out_answer -- the answer to the hello: TCP goes on, no rings offered */
static void
resp_out_answer(const unsigned char *buf)
{
	struct softrdma_wire_shm a;

	memcpy(&a, buf, sizeof(a));
	softrdma__wire_shm_from_le(&a);
	fuzz_assert(a.flags == 0);
	fuzz_assert(a.ring_fd == -1);
}

/* resp_out_header -- one answer header: valid for a requester, nothing after EOS */
static void
resp_out_header(struct resp_out *o, const unsigned char *buf)
{
	struct softrdma_wire_hdr h;

	memcpy(&h, buf, sizeof(h));
	softrdma__wire_hdr_from_le(&h);
	fuzz_assert(!o->eos);
	fuzz_assert(softrdma__wire_hdr_valid(&h, 1) == 0);
	if (h.op == SOFTRDMA_OP_READ_RESP)
		o->skip = h.len;
	if (h.op == SOFTRDMA_OP_ATOMIC_RESP) {
		o->in_atomic = 1;
		o->atomic_seq = h.seq;
		o->atomic_have = 0;
	}
	if (h.op == SOFTRDMA_OP_EOS)
		o->eos = 1;
}

/* resp_out_atomic -- take in the value of an atomic response from *@p */
static void
resp_out_atomic(struct resp_out *o, const unsigned char **p, size_t *n)
{
	if (!sfz_gather(o->atomic_val, &o->atomic_have, sizeof(o->atomic_val), p, n))
		return;
	o->in_atomic = 0;
	if (o->nresp < 64) {
		o->resp_seq[o->nresp] = o->atomic_seq;
		memcpy(&o->resp_val[o->nresp], o->atomic_val, sizeof(o->atomic_val));
		o->nresp++;
	}
}

/* resp_out_feed -- parse @n more bytes the QP sent */
static void
resp_out_feed(void *arg, const unsigned char *p, size_t n)
{
	struct resp_out *o = arg;

	while (n) {
		size_t need = o->answered ? sizeof(struct softrdma_wire_hdr) : sizeof(o->buf);

		if (o->skip) {
			sfz_skip(&o->skip, &p, &n);
			continue;
		}
		if (o->in_atomic) {
			resp_out_atomic(o, &p, &n);
			continue;
		}
		if (!sfz_gather(o->buf, &o->have, need, &p, &n))
			continue;
		if (o->answered) {
			resp_out_header(o, o->buf);
		} else {
			resp_out_answer(o->buf);
			o->answered = 1;
		}
	}
}

/*
 * resp_fixup -- give a hello naming the placeholders the real QP numbers;
 * 1 when the (fixed) hello is one the QP must answer
 */
static int
resp_fixup(uint8_t *buf, size_t n, struct ibv_qp *qp)
{
	struct softrdma_wire_hello h;
	uint32_t src, dst;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	dst = le32toh(h.dst_qpn);
	src = le32toh(h.src_qpn);
	if (dst == SFZ_PH_TARGET)
		dst = qp->qp_num;
	else if (sfz_qp_owns_qpn(dst))
		dst = 0;
	if (src == SFZ_PH_PEER)
		src = sfz_sink_qpn();
	h.dst_qpn = htole32(dst);
	h.src_qpn = htole32(src);
	memcpy(buf, &h, sizeof(h));
	return le32toh(h.magic) == SOFTRDMA_WIRE_MAGIC &&
	       le16toh(h.version) == SOFTRDMA_WIRE_VERSION && dst == qp->qp_num &&
	       src == sfz_sink_qpn() && n >= SOFTRDMA_WIRE_HELLO_LEN;
}

/* a message of the input that takes a receive WQE */
struct resp_msg {
	uint8_t op;
	uint32_t len;
	uint32_t imm; /* as on the wire */
	size_t payload;
};

/*
 * resp_frame -- the messages of the input that take receive WQEs, in order,
 * as the responder frames the input after hello and offer (up to a header it
 * rejects, or the end of the stream); their count
 */
static int
resp_frame(const uint8_t *buf, size_t n, struct resp_msg *msgs)
{
	uint64_t at = SOFTRDMA_WIRE_HELLO_LEN;
	int k = 0;

	while (at + sizeof(struct softrdma_wire_hdr) <= n && k < SFZ_NRECV) {
		struct softrdma_wire_hdr h;

		memcpy(&h, buf + at, sizeof(h));
		softrdma__wire_hdr_from_le(&h);
		if (softrdma__wire_hdr_valid(&h, 0) || h.op == SOFTRDMA_OP_EOS)
			break;
		if (h.op == SOFTRDMA_OP_SEND || h.op == SOFTRDMA_OP_SEND_IMM ||
		    h.op == SOFTRDMA_OP_WRITE_IMM) {
			msgs[k].op = h.op;
			msgs[k].len = h.len;
			msgs[k].imm = h.imm;
			msgs[k].payload = at + sizeof(h);
			k++;
		}
		at += sizeof(h) + h.len;
	}
	return k;
}

/*
 * resp_check_delivery -- a receive WQE @k completed successfully: by the
 * k-th message that takes one, with its length, immediate data and, for a
 * SEND, its payload in the WQE's buffers
 */
static void
resp_check_delivery(const struct ibv_wc *wc, int k, const uint8_t *buf, size_t n,
		    const struct resp_msg *msgs, int nmsgs)
{
	const struct resp_msg *m = &msgs[k];
	struct sfz_range sg[3];
	uint64_t done = 0;

	fuzz_assert(k < nmsgs && wc->byte_len == m->len);
	fuzz_assert(!!(wc->wc_flags & IBV_WC_WITH_IMM) == (m->op != SOFTRDMA_OP_SEND));
	fuzz_assert(!(wc->wc_flags & IBV_WC_WITH_IMM) || wc->imm_data == m->imm);
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		fuzz_assert(m->op == SOFTRDMA_OP_WRITE_IMM);
		return;
	}
	fuzz_assert(wc->opcode == IBV_WC_RECV && m->op != SOFTRDMA_OP_WRITE_IMM);
	fuzz_assert(m->payload + m->len <= n);
	for (int i = 0, ns = sfz_recv_sges(k, sg); i < ns && done < m->len; i++) {
		uint64_t take = sg[i].len < m->len - done ? sg[i].len : m->len - done;

		fuzz_assert(!memcmp((void *)(uintptr_t)sg[i].addr, buf + m->payload + done, take));
		done += take;
	}
	fuzz_assert(done == m->len);
}

/* an atomic request of the input, as the responder frames it */
struct resp_atomic {
	uint32_t seq;
	uint64_t raddr;
	int clean; /* no earlier WRITE or atomic of the input may have touched its target */
};

/*
 * resp_frame_atomics -- the atomic requests of the input in order, as the
 * responder frames it after hello and offer; their count
 */
static int
resp_frame_atomics(const uint8_t *buf, size_t n, struct resp_atomic *a, int max)
{
	uint64_t at = SOFTRDMA_WIRE_HELLO_LEN, lo = UINT64_MAX, hi = 0;
	int k = 0;

	while (at + sizeof(struct softrdma_wire_hdr) <= n && k < max) {
		struct softrdma_wire_hdr h;
		int atomic;

		memcpy(&h, buf + at, sizeof(h));
		softrdma__wire_hdr_from_le(&h);
		if (softrdma__wire_hdr_valid(&h, 0) || h.op == SOFTRDMA_OP_EOS)
			break;
		atomic = h.op == SOFTRDMA_OP_CMP_SWAP || h.op == SOFTRDMA_OP_FETCH_ADD;
		if (atomic) {
			a[k].seq = h.seq;
			a[k].raddr = h.raddr;
			a[k].clean = h.raddr + 8 <= lo || h.raddr >= hi;
			k++;
		}
		/* what a WRITE or an atomic may have changed: one span around them all */
		if ((atomic || h.op == SOFTRDMA_OP_WRITE || h.op == SOFTRDMA_OP_WRITE_IMM) &&
		    h.raddr < UINT64_MAX - (atomic ? 8 : h.len)) {
			lo = h.raddr < lo ? h.raddr : lo;
			hi = h.raddr + (atomic ? 8 : h.len) > hi ? h.raddr + (atomic ? 8 : h.len)
								 : hi;
		}
		at += sizeof(h) + h.len;
	}
	return k;
}

/*
 * resp_check_atomics -- the atomic responses answer the input's atomic
 * requests in order; one on an untouched target of W carries its pattern
 */
static void
resp_check_atomics(const uint8_t *buf, size_t n, const struct resp_out *o,
		   const unsigned char *w_ref)
{
	struct resp_atomic a[64];
	int na = resp_frame_atomics(buf, n, a, 64);
	uint64_t wbase = sfz_addr(SFZ_W, 0), wlen = sfz.mr[SFZ_W]->length;

	/* a request that fails stops the QP: the answered ones are the first ones */
	for (uint32_t i = 0; i < o->nresp && i < 64; i++) {
		uint64_t v = le64toh(o->resp_val[i]), ref;

		fuzz_assert((int)i < na);
		fuzz_assert(a[i].seq == o->resp_seq[i]);
		if (!a[i].clean || a[i].raddr < wbase || a[i].raddr + 8 > wbase + wlen)
			continue;
		memcpy(&ref, w_ref + (a[i].raddr - wbase), 8);
		fuzz_assert(v == ref);
	}
}

/*
 * resp_check_completions -- the completions of the QP under test, in the
 * error state by now: every posted receive WQE completed exactly once
 */
static void
resp_check_completions(uint32_t qpn, unsigned cfg, const uint8_t *buf, size_t n)
{
	struct ibv_wc wc[64], other[4];
	struct resp_msg msgs[SFZ_NRECV];
	int nmsgs = resp_frame(buf, n, msgs);
	int got = ibv_poll_cq(sfz.rcq, 64, wc);

	fuzz_assert(ibv_poll_cq(sfz.scq, 4, other) == 0);
	fuzz_assert(got == (cfg & SFZ_RESP_NO_RECV ? 0 : SFZ_NRECV));
	for (int i = 0; i < got; i++) {
		fuzz_assert(wc[i].qp_num == qpn);
		fuzz_assert(wc[i].wr_id == SFZ_RECV_WRID + i);
		switch (wc[i].status) {
		case IBV_WC_SUCCESS:
			resp_check_delivery(&wc[i], i, buf, n, msgs, nmsgs);
			break;
		case IBV_WC_LOC_LEN_ERR:
		case IBV_WC_LOC_PROT_ERR:
		case IBV_WC_WR_FLUSH_ERR:
			break;
		default:
			sfz_fail("receive completion with status %d", wc[i].status);
		}
	}
}

/* LLVMFuzzerInitialize -- the environment, over TCP only, and a first healthy round */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sfz_env_init("tcp", 1);
	sfz_healthy_check();
	return 0;
}

/* LLVMFuzzerTestOneInput -- one configuration byte, then one requester's stream */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibv_qp_attr err = {.qp_state = IBV_QPS_ERR};
	struct sfz_range may[2 * SFZ_NRECV];
	struct resp_out out;
	/* an incomplete hello waits forever: the pump ends it as a peer would */
	struct sfz_pump pump = {.responder = 1,
				.feed = resp_out_feed,
				.out = &out,
				.shut_below = SOFTRDMA_WIRE_HELLO_LEN};
	struct ibv_qp *qp;
	unsigned cfg;
	unsigned char *w_ref;
	uint8_t *buf;
	size_t n;
	int nmay, closed, fd, hello_ok;
	uint32_t qpn;

	if (size < 1 || size > (1u << 20))
		return 0;
	cfg = data[0];
	n = size - 1;
	buf = malloc(n + 1);
	fuzz_assert(buf != NULL);
	memcpy(buf, data + 1, n);
	memset(&out, 0, sizeof(out));
	sfz_arena_reset();
	w_ref = malloc(sfz.mr[SFZ_W]->length);
	fuzz_assert(w_ref != NULL);
	memcpy(w_ref, (void *)(uintptr_t)sfz_addr(SFZ_W, 0), sfz.mr[SFZ_W]->length);
	qp = sfz_qp_new();
	qpn = qp->qp_num;
	if (sfz_qp_connect(qp, sfz_sink_qpn(), sfz_resp_access(cfg), 7) ||
	    sfz_resp_prepare(qp, cfg, may, &nmay))
		sfz_fail("cannot set up the responder");
	hello_ok = resp_fixup(buf, n, qp);
	fd = sfz_tcp_connect(qpn >> 8);
	closed = sfz_pump(qp, fd, buf, n, &pump);
	/* the answer went out before the connection was attached: let it arrive */
	for (uint64_t end = sfz_now_ms() + 1000;
	     hello_ok && !out.answered && !closed && sfz_now_ms() < end; usleep(100))
		closed = sfz_drain(fd, &pump);
	fuzz_assert(out.answered == hello_ok);
	if (!closed)
		fuzz_assert(sfz_qp_state(qp) != IBV_QPS_ERR);
	/* as a disconnect does: everything still posted completes */
	fuzz_assert(ibv_modify_qp(qp, &err, IBV_QP_STATE) == 0);
	close(fd);
	sfz_qp_destroy(qp);
	resp_check_completions(qpn, cfg, buf, n);
	resp_check_atomics(buf, n, &out, w_ref);
	free(w_ref);
	sfz_arena_check(may, nmay, !(cfg & SFZ_RESP_NO_WRITE));
	sfz_healthy_check();
	free(buf);
	return 0;
}
