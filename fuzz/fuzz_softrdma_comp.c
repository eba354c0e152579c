/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_softrdma_comp.c -- what a peer responder sends back on a softrdma
 * data connection: the answer to the hello (same-host offer taken or not),
 * then ACKs, NAKs, READ and atomic responses and end-of-stream markers, read by
 * softrdma's own progress thread and requester (comp.c).
 *
 * An input's first byte picks the requester script (sfz_script_post: the
 * work requests the QP under test has outstanding); the rest is written, as
 * it is, by the harness, which plays the responder: a fresh QP connects to
 * the harness's listener, the harness reads its hello, the script is
 * posted, and the input goes back on that connection. The input is done
 * when the QP closed the connection or consumed everything it could.
 *
 * Properties:
 * - no sanitizer report, no hang (every input is done within 10 s);
 * - what the QP sends is what a responder accepts: its hello names it and
 *   the harness's QP number, offers no rings over TCP, and the requests
 *   that follow pass softrdma__wire_hdr_valid() on the responder side;
 * - a connection left open belongs to a QP not in the error state;
 * - READ and atomic responses land only in the READ and atomic work
 *   requests' buffers: the guards, W, RO and the rest of R keep their
 *   pattern;
 * - send completions name the QP and posted work requests in posting
 *   order, each once, with the opcode (and READ length) of the request;
 *   none is skipped but unsignaled successes; after the first error only
 *   flushes follow; there is no receive completion;
 * - a success completes, as on RC, everything posted before: every READ
 *   and atomic up to it must have been answered by a READ or atomic
 *   response in the input;
 * - a successful atomic's buffer holds, in host order, the value of the
 *   first atomic response naming it;
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

static int Lfd = -1;
static uint16_t Lport;

/* the requests the QP under test sent, parsed as a responder would */
struct comp_out {
	unsigned char buf[sizeof(struct softrdma_wire_hdr)];
	size_t have;
	uint64_t skip;
	int eos;
};

/* comp_fake_qpn -- the QP number that makes a QP connect to the harness */
static uint32_t
comp_fake_qpn(void)
{
	return (uint32_t)Lport << 8 | 1;
}

/* comp_out_feed -- parse @n more request bytes: valid for a responder, nothing after EOS */
static void
comp_out_feed(void *arg, const unsigned char *p, size_t n)
{
	struct comp_out *o = arg;

	while (n) {
		struct softrdma_wire_hdr h;

		if (o->skip) {
			sfz_skip(&o->skip, &p, &n);
			continue;
		}
		if (!sfz_gather(o->buf, &o->have, sizeof(h), &p, &n))
			continue;
		memcpy(&h, o->buf, sizeof(h));
		softrdma__wire_hdr_from_le(&h);
		fuzz_assert(!o->eos);
		fuzz_assert(softrdma__wire_hdr_valid(&h, 0) == 0);
		o->skip = h.len;
		o->eos = h.op == SOFTRDMA_OP_EOS;
	}
}

/* comp_check_hello -- the QP's hello and offer: its number, ours, TCP only */
static void
comp_check_hello(int fd, uint32_t qpn)
{
	unsigned char buf[SOFTRDMA_WIRE_HELLO_LEN];
	struct softrdma_wire_hello h;
	struct softrdma_wire_shm offer;

	if (sfz_read_full(fd, buf, sizeof(buf), 5000))
		sfz_fail("requester: no hello in 5 s");
	memcpy(&h, buf, sizeof(h));
	memcpy(&offer, buf + sizeof(h), sizeof(offer));
	fuzz_assert(softrdma__wire_hello_check(&h) == 0);
	fuzz_assert(h.src_qpn == qpn && h.dst_qpn == comp_fake_qpn());
	softrdma__wire_shm_from_le(&offer);
	fuzz_assert(offer.flags == 0 && offer.ring_fd == -1);
}

/* comp_status_ok -- a status a requester's work request may complete with */
static int
comp_status_ok(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_WR_FLUSH_ERR:
		return 1;
	default:
		return 0;
	}
}

/*
 * comp_read_resps -- which READs and atomics of the script the input
 * answers: a READ (atomic) response with the work request's sequence
 * number (work request i has sequence number i on a fresh QP) and length,
 * as a requester frames the input; @val gets the value of an atomic's
 * first response (wire order)
 */
static void
comp_read_resps(const uint8_t *p, size_t n, const struct sfz_wr *wrs, int nwrs, int *answered,
		uint64_t *val)
{
	uint64_t at = sizeof(struct softrdma_wire_shm);

	while (at + sizeof(struct softrdma_wire_hdr) <= n) {
		struct softrdma_wire_hdr h;

		memcpy(&h, p + at, sizeof(h));
		softrdma__wire_hdr_from_le(&h);
		if (h.op == SOFTRDMA_OP_READ_RESP && h.seq < (uint32_t)nwrs &&
		    wrs[h.seq].opcode == IBV_WC_RDMA_READ && h.len == wrs[h.seq].len)
			answered[h.seq] = 1;
		if (h.op == SOFTRDMA_OP_ATOMIC_RESP && h.seq < (uint32_t)nwrs && h.len == 8 &&
		    sfz_wc_answered(wrs[h.seq].opcode) && wrs[h.seq].opcode != IBV_WC_RDMA_READ &&
		    !answered[h.seq] && at + sizeof(h) + 8 <= n) {
			answered[h.seq] = 1;
			memcpy(&val[h.seq], p + at + sizeof(h), 8);
		}
		at += sizeof(h) + h.len;
	}
}

/* comp_check_atomic_result -- the buffer of atomic @w holds @val (wire order) in host order */
static void
comp_check_atomic_result(const struct sfz_wr *w, uint64_t val)
{
	uint64_t v = le64toh(val);
	const unsigned char *src = (const unsigned char *)&v;
	uint32_t done = 0;

	for (int k = 0; k < w->nsge; k++) {
		fuzz_assert(!memcmp((void *)(uintptr_t)w->sge[k].addr, src + done, w->sge[k].len));
		done += w->sge[k].len;
	}
	fuzz_assert(done == 8);
}

/*
 * comp_check_completions -- the completions of the script, in RC order; a
 * success means that every READ and atomic up to it got its data
 */
static void
comp_check_completions(uint32_t qpn, const struct sfz_wr *wrs, int nwrs, const int *answered,
		       const uint64_t *val)
{
	struct ibv_wc wc[64], other[4];
	int n = ibv_poll_cq(sfz.scq, 64, wc), prev = -1, failed = 0;

	fuzz_assert(ibv_poll_cq(sfz.rcq, 4, other) == 0);
	for (int i = 0; i < n; i++) {
		int k = 0;

		while (k < nwrs && wrs[k].wr_id != wc[i].wr_id)
			k++;
		fuzz_assert(wc[i].qp_num == qpn);
		fuzz_assert(k < nwrs && k > prev);
		/* only unsignaled successes leave no completion, and not after an error */
		for (int j = prev + 1; j < k; j++)
			fuzz_assert(!wrs[j].signaled && !failed);
		prev = k;
		if (wc[i].status == IBV_WC_SUCCESS) {
			fuzz_assert(!failed && wrs[k].signaled);
			for (int j = 0; j <= k; j++)
				fuzz_assert(!sfz_wc_answered(wrs[j].opcode) || answered[j]);
			fuzz_assert(wc[i].opcode == wrs[k].opcode);
			fuzz_assert(!sfz_wc_answered(wrs[k].opcode) ||
				    wc[i].byte_len == wrs[k].len);
			if (sfz_wc_answered(wrs[k].opcode) && wrs[k].opcode != IBV_WC_RDMA_READ)
				comp_check_atomic_result(&wrs[k], val[k]);
			continue;
		}
		fuzz_assert(comp_status_ok(wc[i].status));
		fuzz_assert(!failed || wc[i].status == IBV_WC_WR_FLUSH_ERR);
		failed = 1;
	}
}

/* LLVMFuzzerInitialize -- the environment, over TCP only, and the harness's listener */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sfz_env_init("tcp", 1);
	Lfd = sfz_tcp_listen(&Lport);
	sfz_healthy_check();
	return 0;
}

/* LLVMFuzzerTestOneInput -- one script byte, then one responder's stream */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sfz_range may[SFZ_MAX_SCRIPT * 4];
	struct sfz_wr wrs[SFZ_MAX_SCRIPT];
	int answered[SFZ_MAX_SCRIPT] = {0};
	uint64_t val[SFZ_MAX_SCRIPT] = {0};
	struct comp_out out;
	struct sfz_pump pump = {.responder = 0, .feed = comp_out_feed, .out = &out};
	struct ibv_qp *qp;
	int nwrs, nmay = 0, closed, fd;
	uint32_t qpn;

	if (size < 1 || size > (1u << 20))
		return 0;
	memset(&out, 0, sizeof(out));
	sfz_arena_reset();
	qp = sfz_qp_new();
	qpn = qp->qp_num;
	if (sfz_qp_connect(
		qp, comp_fake_qpn(),
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, 7))
		sfz_fail("cannot set up the requester");
	fd = sfz_accept(Lfd, 5000);
	if (fd < 0)
		sfz_fail("requester: no connection in 5 s");
	comp_check_hello(fd, qpn);
	if (sfz_script_post(qp, data[0], wrs, &nwrs))
		sfz_fail("cannot post the script");
	for (int i = 0; i < nwrs; i++)
		for (int k = 0; sfz_wc_answered(wrs[i].opcode) && k < wrs[i].nsge; k++)
			may[nmay++] = wrs[i].sge[k];
	closed = sfz_pump(qp, fd, data + 1, size - 1, &pump);
	if (!closed)
		fuzz_assert(sfz_qp_state(qp) != IBV_QPS_ERR);
	close(fd);
	sfz_qp_destroy(qp);
	comp_read_resps(data + 1, size - 1, wrs, nwrs, answered, val);
	comp_check_completions(qpn, wrs, nwrs, answered, val);
	sfz_arena_check(may, nmay, 0);
	sfz_healthy_check();
	return 0;
}
