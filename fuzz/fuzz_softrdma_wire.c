/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_softrdma_wire.c -- softrdma's checks of single wire structures a peer
 * sends: message headers, the hello, and the same-host offer (responder,
 * softrdma__shm_accept) and answer (requester, softrdma__shm_accepted),
 * which fetch the peer's descriptors with pidfd_getfd and map its memory.
 *
 * An input's first byte picks what the rest is (bits 0-1: header, hello,
 * offer, answer; shorter inputs are skipped). With bit 2 set, an offer or
 * answer is "localized": its identity (boot id, namespaces, uid, pid,
 * nonce) becomes this process's and each descriptor number >= 0 picks one
 * of a table of this process's descriptors (the real segment, doorbell and
 * ring, and impostors: an unsealed memfd, a short one, one without the
 * magic, a socket, another eventfd, /dev/null, a segment with a wrong
 * nonce, a pipe), so that the fetching and checking of descriptors runs.
 *
 * Properties:
 * - no sanitizer report;
 * - a header or hello is accepted exactly when it follows the rules of
 *   wire.h (reference predicates below), and converting a header to host
 *   order and back gives the same bytes; an accepted hello is the one
 *   softrdma__wire_hello_init() builds for its numbers;
 * - an offer is taken up (rings mapped, peer attached, answer saying so)
 *   only when it offers rings, comes from this host and process and names
 *   the real segment, a doorbell and a ring; a localized offer that does is
 *   always taken up; the answer always carries this process's identity;
 * - an answer makes the requester go on over rings only when it accepts
 *   and comes from this host and process naming the real segment and a
 *   doorbell (then always); otherwise rings are dropped or the answer is
 *   an error; the ring descriptor is closed either way;
 * - once released, nothing remains: same number of descriptors, rings and
 *   the peer's segment unmapped.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shm.h"
#include "softrdma_fuzz.h"

#define NFDS 12

/* this process's descriptors a localized offer or answer may name */
static int Fds[NFDS];
/* this process's own offer: its identity */
static struct softrdma_wire_shm Mine;
/* the connection whose ring Fds[2] is */
static struct softrdma_conn Ring_conn;

/* wire_memfd -- a memfd of @size bytes, sealed against shrinking if @seal, holding @head */
static int
wire_memfd(size_t size, int seal, const void *head, size_t hlen)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, size) || (hlen && pwrite(fd, head, hlen, 0) != (ssize_t)hlen))
		sfz_fail("memfd: %s", strerror(errno));
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		sfz_fail("seals: %s", strerror(errno));
	return fd;
}

/* wire_fds_init -- the table of descriptors localized inputs name */
static void
wire_fds_init(void)
{
	struct softrdma_seg_hdr bad = {.magic = SOFTRDMA_SEG_MAGIC,
				       .version = SOFTRDMA_SHM_VERSION,
				       .nonce = Mine.nonce + 1,
				       .pid = Mine.pid};
	int sv[2], pv[2];

	Ring_conn.ring_fd = -1;
	if (softrdma__shm_ring_create(&Ring_conn) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    pipe2(pv, O_CLOEXEC))
		sfz_fail("cannot make the descriptor table");
	Fds[0] = Mine.seg_fd;
	Fds[1] = Mine.bell_fd;
	Fds[2] = Ring_conn.ring_fd;
	Fds[3] = wire_memfd(sizeof(struct softrdma_ring_area), 0, NULL, 0);
	Fds[4] = wire_memfd(SFZ_PAGE, 1, NULL, 0);
	Fds[5] = wire_memfd(sizeof(struct softrdma_ring_area), 1, NULL, 0);
	Fds[6] = sv[0];
	Fds[7] = eventfd(0, EFD_CLOEXEC);
	Fds[8] = open("/dev/null", O_RDWR | O_CLOEXEC);
	Fds[9] = wire_memfd(sizeof(struct softrdma_seg), 1, NULL, 0);
	Fds[10] = wire_memfd(sizeof(struct softrdma_seg), 1, &bad, sizeof(bad));
	Fds[11] = pv[0];
	for (int i = 0; i < NFDS; i++)
		if (Fds[i] < 0)
			sfz_fail("descriptor %d of the table missing", i);
}

/* wire_hdr_ref -- the rules of wire.h for a header received on either side */
static int
wire_hdr_ref(const struct softrdma_wire_hdr *h, int requester_side)
{
	if (h->len > SOFTRDMA_MAX_MSG || h->rlen > SOFTRDMA_MAX_MSG)
		return 0;
	if (h->op == SOFTRDMA_OP_EOS)
		return !h->len && !h->rlen;
	if (requester_side)
		return (h->op == SOFTRDMA_OP_ACK && !h->len) ||
		       (h->op == SOFTRDMA_OP_NAK && !h->len && h->status) ||
		       h->op == SOFTRDMA_OP_READ_RESP ||
		       (h->op == SOFTRDMA_OP_ATOMIC_RESP && h->len == 8 && !h->rlen);
	if (h->op == SOFTRDMA_OP_READ_REQ)
		return !h->len;
	if (h->op == SOFTRDMA_OP_CMP_SWAP || h->op == SOFTRDMA_OP_FETCH_ADD)
		return h->len == 16 && h->rlen == 8;
	return (h->op == SOFTRDMA_OP_SEND || h->op == SOFTRDMA_OP_SEND_IMM ||
		h->op == SOFTRDMA_OP_WRITE || h->op == SOFTRDMA_OP_WRITE_IMM) &&
	       !h->rlen;
}

/* wire_header -- a header, checked for both directions */
static void
wire_header(const uint8_t *p)
{
	struct softrdma_wire_hdr h;

	memcpy(&h, p, sizeof(h));
	softrdma__wire_hdr_from_le(&h);
	for (int side = 0; side < 2; side++) {
		int r = softrdma__wire_hdr_valid(&h, side);

		fuzz_assert(r == 0 || r == EPROTO);
		fuzz_assert((r == 0) == wire_hdr_ref(&h, side));
	}
	softrdma__wire_hdr_to_le(&h);
	fuzz_assert(memcmp(&h, p, sizeof(h)) == 0);
}

/* wire_hello -- a hello: accepted by the rules, and then rebuilt from its numbers */
static void
wire_hello(const uint8_t *p)
{
	struct softrdma_wire_hello h, in, back;
	int r, ref;

	memcpy(&h, p, sizeof(h));
	memcpy(&in, p, sizeof(in));
	ref = le32toh(in.magic) == SOFTRDMA_WIRE_MAGIC &&
	      le16toh(in.version) == SOFTRDMA_WIRE_VERSION && le32toh(in.src_qpn) <= 0xffffff &&
	      le32toh(in.dst_qpn) <= 0xffffff;
	r = softrdma__wire_hello_check(&h);
	fuzz_assert(r == 0 || r == EPROTO);
	fuzz_assert((r == 0) == ref);
	if (r)
		return;
	softrdma__wire_hello_init(&back, h.src_qpn, h.dst_qpn, h.secret);
	in.rsvd = 0;
	fuzz_assert(memcmp(&back, &in, sizeof(in)) == 0);
}

/* wire_fd -- a localized descriptor field: its table index in @idx, or -1 */
static int32_t
wire_fd(int32_t v, int *idx)
{
	*idx = v < 0 ? -1 : (int)((uint32_t)v % NFDS);
	return v < 0 ? v : Fds[*idx];
}

/*
 * wire_shm_input -- an offer or answer in host order, localized if asked;
 * @idx gets the table index of its segment, doorbell and ring descriptors
 * (-1: not from the table)
 */
static void
wire_shm_input(const uint8_t *p, int localize, struct softrdma_wire_shm *w, int idx[3])
{
	struct softrdma_wire_shm back;

	memcpy(w, p, sizeof(*w));
	softrdma__wire_shm_from_le(w);
	back = *w;
	softrdma__wire_shm_to_le(&back);
	fuzz_assert(memcmp(&back, p, sizeof(back)) == 0);
	idx[0] = idx[1] = idx[2] = -1;
	if (!localize)
		return;
	memcpy(w->boot_id, Mine.boot_id, sizeof(w->boot_id));
	w->netns = Mine.netns;
	w->pidns = Mine.pidns;
	w->uid = Mine.uid;
	w->pid = Mine.pid;
	w->nonce = Mine.nonce;
	w->seg_fd = wire_fd(w->seg_fd, &idx[0]);
	w->bell_fd = wire_fd(w->bell_fd, &idx[1]);
	w->ring_fd = wire_fd(w->ring_fd, &idx[2]);
}

/* wire_from_me -- @w names this host and process as its sender */
static int
wire_from_me(const struct softrdma_wire_shm *w)
{
	return !memcmp(w->boot_id, Mine.boot_id, sizeof(w->boot_id)) && w->netns == Mine.netns &&
	       w->pidns == Mine.pidns && w->uid == Mine.uid && w->pid == Mine.pid &&
	       w->nonce == Mine.nonce;
}

/* wire_good_peer -- a localized input names the real segment and a doorbell */
static int
wire_good_peer(const int idx[3])
{
	return idx[0] == 0 && (idx[1] == 1 || idx[1] == 7);
}

/* wire_unmapped -- @p (page-aligned) is no longer mapped */
static int
wire_unmapped(const void *p)
{
	return msync((void *)p, SFZ_PAGE, MS_ASYNC) == -1 && errno == ENOMEM;
}

/* wire_release -- release @c; nothing of it may remain */
static void
wire_release(struct softrdma_conn *c, int fds_before)
{
	const void *area = c->area;
	const void *seg = c->peer ? c->peer->seg : NULL;
	int last_ref = c->peer && c->peer->refs == 1;

	softrdma__shm_release(c);
	fuzz_assert(!c->area && !c->peer && c->ring_fd == -1 && !c->shm);
	fuzz_assert(sfz_fd_count() == fds_before);
	fuzz_assert(!area || wire_unmapped(area));
	fuzz_assert(!seg || !last_ref || wire_unmapped(seg));
}

/* wire_conn_init -- a connection as the progress thread makes it */
static void
wire_conn_init(struct softrdma_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->ring_fd = -1;
	softrdma__list_init(&c->node);
	softrdma__list_init(&c->txq);
	softrdma__list_init(&c->shm_node);
}

/* wire_offer -- a responder takes up (or not) an offer */
static void
wire_offer(const uint8_t *p, int localize)
{
	struct softrdma_wire_shm offer, reply;
	struct softrdma_conn c;
	int idx[3], before = sfz_fd_count(), r, good;

	wire_shm_input(p, localize, &offer, idx);
	wire_conn_init(&c);
	r = softrdma__shm_accept(&c, &offer, &reply);
	fuzz_assert(r == 0 || r == 1);
	fuzz_assert(wire_from_me(&reply) && reply.seg_fd == Mine.seg_fd &&
		    reply.bell_fd == Mine.bell_fd && reply.ring_fd == -1);
	fuzz_assert(reply.flags == (r ? SOFTRDMA_SHM_ACCEPT : 0u));
	good = (offer.flags & SOFTRDMA_SHM_OFFER) && wire_from_me(&offer);
	if (r) {
		fuzz_assert(good && c.shm && c.area && c.peer);
		fuzz_assert(!localize || (wire_good_peer(idx) && idx[2] == 2));
		fuzz_assert(c.area->ctl.magic == SOFTRDMA_RING_MAGIC &&
			    c.area->ctl.ring_size == SOFTRDMA_RING_SIZE);
		fuzz_assert(c.rxr == &c.area->req && c.txr == &c.area->resp);
	} else {
		fuzz_assert(!c.shm && !c.area && !c.peer);
		fuzz_assert(!(localize && good && wire_good_peer(idx) && idx[2] == 2));
	}
	wire_release(&c, before);
}

/* wire_answer -- a requester reads (or refuses) the answer to its offer */
static void
wire_answer(const uint8_t *p, int localize)
{
	struct softrdma_wire_shm answer;
	struct softrdma_conn c;
	int idx[3], before = sfz_fd_count(), r, good;

	wire_shm_input(p, localize, &answer, idx);
	wire_conn_init(&c);
	fuzz_assert(softrdma__shm_ring_create(&c) == 0);
	r = softrdma__shm_accepted(&c, &answer);
	fuzz_assert(c.ring_fd == -1);
	good = (answer.flags & SOFTRDMA_SHM_ACCEPT) && wire_from_me(&answer);
	if (!r && (answer.flags & SOFTRDMA_SHM_ACCEPT)) {
		fuzz_assert(good && c.shm && c.peer && c.area);
		fuzz_assert(!localize || wire_good_peer(idx));
	} else if (!r) {
		fuzz_assert(!c.shm && !c.area && !c.peer);
	} else {
		fuzz_assert(r > 0 && !c.shm && !c.peer);
		fuzz_assert(!(localize && good && wire_good_peer(idx)));
	}
	wire_release(&c, before);
}

/*
 * LLVMFuzzerInitialize -- the environment with same-host rings, and the
 * descriptor table
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* no healthy pair: its connections would keep this process cached as a peer */
	sfz_env_init("shm", 0);
	softrdma__shm_offer(&Mine, -1);
	if (Mine.seg_fd < 0 || Mine.bell_fd < 0)
		sfz_fail("same-host transport unavailable");
	wire_fds_init();
	return 0;
}

/* LLVMFuzzerTestOneInput -- one selector byte, then one structure */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t need[4] = {
	    sizeof(struct softrdma_wire_hdr), sizeof(struct softrdma_wire_hello),
	    sizeof(struct softrdma_wire_shm), sizeof(struct softrdma_wire_shm)};
	unsigned mode;

	if (size < 1)
		return 0;
	mode = data[0] & 3;
	if (size - 1 < need[mode])
		return 0;
	switch (mode) {
	case 0:
		wire_header(data + 1);
		break;
	case 1:
		wire_hello(data + 1);
		break;
	case 2:
		wire_offer(data + 1, data[0] & 4);
		break;
	default:
		wire_answer(data + 1, data[0] & 4);
		break;
	}
	return 0;
}
