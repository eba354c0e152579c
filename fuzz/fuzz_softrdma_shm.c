/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_softrdma_shm.c -- the consumer side of softrdma's same-host ring
 * (shm.c: softrdma__shm_rx_avail, _recv, _recv_iov, _discard, and net.c's
 * softrdma__rx_hdr and softrdma__rx_payload over them), reading a ring
 * whose bytes and producer position a hostile peer process writes.
 *
 * An input: the consumer's position (u64) and the producer's tail (u64),
 * the producer's waiting flag (u8), then a count of steps and the steps, 3 bytes each (an operation
 * and a 16-bit length, or a new tail for the peer to publish between two reads; the top bit of a
 * payload step discards it), then bytes copied over the ring's data, repeated to fill it. The
 * connection is a plain struct softrdma_conn with the ring in our memory
 * and a doorbell eventfd, as softrdma__shm_accept() leaves it.
 *
 * Properties:
 * - softrdma__shm_rx_avail() is the distance from the consumer to the tail
 *   when that is at most the ring's size, and UINT32_MAX otherwise;
 * - a read takes at most what was asked and what is available, fails with
 *   EPROTO (nothing consumed) on a corrupt tail and EAGAIN on an empty
 *   ring, and copies exactly the ring's bytes from the consumer's position
 *   on, wrapping at the end of the ring;
 * - the consumer's position moves only by what was read and is published
 *   in the ring's head;
 * - a header read by softrdma__rx_hdr() is the ring's bytes; a payload read
 *   by softrdma__rx_payload() lands only in the buffers it was given;
 * - nothing out of bounds, no undefined behaviour (AddressSanitizer, UBSan).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net.h"
#include "shm.h"
#include "softrdma_fuzz.h"

#define MAX_STEPS 32
#define BUF_LEN	  (3 * SOFTRDMA_RING_SIZE / 2)
#define GUARD	  64

enum shm_op {
	OP_RECV,
	OP_RECV_IOV,
	OP_DISCARD,
	OP_HDR,
	OP_PAYLOAD,
	OP_TAIL,      /* the peer publishes a new tail: the old one plus the length */
	OP_TAIL_BACK, /* ... or minus it */
	OP_N
};

static struct softrdma_ring *Ring;
static struct softrdma_peer Peer;
static unsigned char Buf[BUF_LEN + GUARD];

/* LLVMFuzzerInitialize -- the ring and the doorbell, once */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_assert(posix_memalign((void **)&Ring, 4096, sizeof(*Ring)) == 0);
	Peer.bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	fuzz_assert(Peer.bell >= 0);
	return 0;
}

/* ring_byte -- the byte of the ring at stream position at */
static unsigned char
ring_byte(uint64_t at)
{
	return Ring->data[at % SOFTRDMA_RING_SIZE];
}

/* same_as_ring -- the n bytes of p are the ring's from stream position at */
static int
same_as_ring(const unsigned char *p, uint64_t at, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ring_byte(at + i))
			return 0;
	return 1;
}

/* expected_avail -- what the consumer may read now; UINT32_MAX for a corrupt tail */
static uint32_t
expected_avail(const struct softrdma_conn *c)
{
	uint64_t n = Ring->tail - c->rx_head;

	return n > SOFTRDMA_RING_SIZE ? UINT32_MAX : (uint32_t)n;
}

/* check_read -- a read of want bytes returned n; the position moved by exactly n */
static void
check_read(const struct softrdma_conn *c, uint64_t head0, uint32_t avail, size_t want, ssize_t n,
	   int err)
{
	if (avail == UINT32_MAX) {
		fuzz_assert(n == -1 && err == EPROTO && c->rx_head == head0);
		return;
	}
	if (avail == 0) {
		fuzz_assert(n == -1 && err == EAGAIN && c->rx_head == head0);
		return;
	}
	fuzz_assert(n >= 0 && (size_t)n <= want && (size_t)n <= avail);
	fuzz_assert(c->rx_head == head0 + (uint64_t)n && Ring->head == c->rx_head);
}

/* step_read -- one read operation of up to len bytes */
static void
step_read(struct softrdma_conn *c, enum shm_op op, size_t len)
{
	uint64_t head0 = c->rx_head;
	uint32_t avail = expected_avail(c);
	struct iovec iov[2] = {{Buf, len / 2}, {Buf + BUF_LEN / 2, len - len / 2}};
	ssize_t n;

	fuzz_assert(softrdma__shm_rx_avail(c) == avail);
	memset(Buf, 0xa5, sizeof(Buf));
	errno = 0;
	if (op == OP_RECV)
		n = softrdma__shm_recv(c, Buf, len);
	else if (op == OP_RECV_IOV)
		n = softrdma__shm_recv_iov(c, iov, 2);
	else
		n = softrdma__shm_discard(c, len);
	check_read(c, head0, avail, len, n, errno);
	if (n <= 0 || op == OP_DISCARD)
		return;
	if (op == OP_RECV) {
		fuzz_assert(same_as_ring(Buf, head0, (size_t)n));
		fuzz_assert(Buf[n] == 0xa5);
		return;
	}
	fuzz_assert(same_as_ring(Buf, head0, (size_t)n < len / 2 ? (size_t)n : len / 2));
	if ((size_t)n > len / 2)
		fuzz_assert(same_as_ring(Buf + BUF_LEN / 2, head0 + len / 2, (size_t)n - len / 2));
}

/* step_hdr -- softrdma__rx_hdr(): a header, as far as the ring has one */
static void
step_hdr(struct softrdma_conn *c)
{
	uint64_t head0 = c->rx_head;
	size_t have0 = c->hhave;
	int ret = softrdma__rx_hdr(c);

	fuzz_assert(ret == 1 || ret == 0 || ret == -EPROTO);
	fuzz_assert(c->hhave <= sizeof(c->hbuf) && c->rx_head - head0 == c->hhave - have0);
	if (ret == 1) {
		fuzz_assert(c->hhave == sizeof(c->hbuf));
		fuzz_assert(same_as_ring(c->hbuf + have0, head0, sizeof(c->hbuf) - have0));
		c->hhave = 0;
	}
}

/* step_payload -- softrdma__rx_payload() of len bytes into two pieces of Buf */
static void
step_payload(struct softrdma_conn *c, size_t len, int discard)
{
	uint64_t head0 = c->rx_head;
	int ret;

	memset(Buf, 0xa5, sizeof(Buf));
	c->iov[0] = (struct iovec){Buf, len / 2};
	c->iov[1] = (struct iovec){Buf + BUF_LEN / 2, len - len / 2};
	c->iovcnt = 2;
	c->total = c->remaining = len;
	c->discard = discard;
	ret = softrdma__rx_payload(c, IBV_WC_LOC_PROT_ERR);
	fuzz_assert(ret == 1 || ret == 0 || ret == -EPROTO);
	fuzz_assert(c->rx_head - head0 == len - c->remaining);
	fuzz_assert(ret != 1 || c->remaining == 0);
	for (size_t i = len / 2; i < BUF_LEN / 2; i++)
		fuzz_assert(Buf[i] == 0xa5);
	for (size_t i = BUF_LEN / 2 + (len - len / 2); i < sizeof(Buf); i++)
		fuzz_assert(Buf[i] == 0xa5);
	c->remaining = 0;
}

/* get -- n bytes (up to 8) of the input, little-endian, 0 past its end */
static uint64_t
get(const uint8_t **p, const uint8_t *end, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n && *p < end; i++, (*p)++)
		v |= (uint64_t) * *p << (8 * i);
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct softrdma_conn c;
	unsigned nsteps;
	uint8_t steps[MAX_STEPS][3];

	memset(&c, 0, sizeof(c));
	c.shm = 1;
	c.rxr = Ring;
	c.peer = &Peer;
	c.ring_fd = -1;
	c.fd = -1;
	memset(Ring, 0, sizeof(*Ring));
	c.rx_head = get(&p, end, 8);
	Ring->head = c.rx_head;
	Ring->tail = get(&p, end, 8);
	Ring->prod_waiting = (uint32_t)get(&p, end, 1) & 1;
	nsteps = (unsigned)get(&p, end, 1) % (MAX_STEPS + 1);
	for (unsigned i = 0; i < nsteps; i++)
		for (unsigned k = 0; k < 3; k++)
			steps[i][k] = (uint8_t)get(&p, end, 1);
	for (size_t i = 0; p < end && i < SOFTRDMA_RING_SIZE; i++)
		Ring->data[i] = p[i % (size_t)(end - p)];

	for (unsigned i = 0; i < nsteps; i++) {
		enum shm_op op = (steps[i][0] & 0x7f) % OP_N;
		size_t len = ((size_t)steps[i][1] | (size_t)steps[i][2] << 8) * 2 % BUF_LEN;

		switch (op) {
		case OP_RECV:
		case OP_RECV_IOV:
		case OP_DISCARD:
			step_read(&c, op, len);
			break;
		case OP_HDR:
			step_hdr(&c);
			break;
		case OP_PAYLOAD:
			step_payload(&c, len, steps[i][0] & 0x80);
			break;
		case OP_TAIL:
			Ring->tail += len;
			break;
		default:
			Ring->tail -= len;
			break;
		}
	}
	return 0;
}
