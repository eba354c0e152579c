/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softrdma's data wire format between a requester QP and a responder QP.
 * Every field is little-endian on the wire; immediate data is carried as the
 * big-endian value the application supplied.
 *
 * Atomics: a CMP_SWAP or FETCH_ADD request names the 8 bytes at raddr/rkey
 * (rlen 8) and carries 16 bytes of payload, two little-endian 64-bit
 * operands (compare and swap, or the addend and zero); its ATOMIC_RESP
 * carries the 8 bytes of the original value, little-endian.
 *
 * Threads: a format and pure checks: any thread, no lock, nothing to free.
 */
#ifndef SOFTRDMA_WIRE_H
#define SOFTRDMA_WIRE_H

#include <stdint.h>

#define SOFTRDMA_WIRE_MAGIC   0x4d445253u /* "SRDM" */
#define SOFTRDMA_WIRE_VERSION 3
#define SOFTRDMA_MAX_MSG      (1u << 30)

enum softrdma_wire_op {
	SOFTRDMA_OP_SEND = 1,
	SOFTRDMA_OP_SEND_IMM,
	SOFTRDMA_OP_WRITE,
	SOFTRDMA_OP_WRITE_IMM,
	SOFTRDMA_OP_READ_REQ,
	SOFTRDMA_OP_CMP_SWAP,
	SOFTRDMA_OP_FETCH_ADD,
	/* last message in either direction: the sender's QP left RTS */
	SOFTRDMA_OP_EOS = 8,
	SOFTRDMA_OP_ACK = 16,
	SOFTRDMA_OP_NAK,
	SOFTRDMA_OP_READ_RESP,
	SOFTRDMA_OP_ATOMIC_RESP,
};

/* Bytes an atomic operates on, and of an atomic request's payload. */
#define SOFTRDMA_ATOMIC_LEN	8
#define SOFTRDMA_ATOMIC_REQ_LEN 16

#define SOFTRDMA_WF_ACK_REQ 0x01

/*
 * The first bytes of a data connection: the requester QP names itself and
 * the responder QP, and proves it speaks for the connection the CM set up
 * with the secret both sides got from the CM (zeroes for QPs connected
 * without it).
 */
#define SOFTRDMA_WIRE_SECRET_LEN 16

struct softrdma_wire_hello {
	uint32_t magic;
	uint16_t version;
	uint16_t rsvd;
	uint32_t src_qpn;
	uint32_t dst_qpn;
	uint8_t secret[SOFTRDMA_WIRE_SECRET_LEN];
};

/*
 * Same-host offer (requester, after the hello) and answer (responder, the
 * first bytes it sends back). Fd numbers are valid in the sender's process;
 * the receiver fetches them with pidfd_getfd when host, namespaces and uid
 * match. The TCP connection stays open to notice the peer's death.
 */
#define SOFTRDMA_SHM_OFFER  0x1
#define SOFTRDMA_SHM_ACCEPT 0x2

struct softrdma_wire_shm {
	uint8_t boot_id[16];
	uint64_t netns;
	uint64_t pidns;
	uint64_t nonce;
	uint32_t uid;
	uint32_t pid;
	int32_t seg_fd;
	int32_t bell_fd;
	int32_t ring_fd;
	uint32_t flags;
};

struct softrdma_wire_hdr {
	uint8_t op;
	uint8_t flags;
	uint8_t rnr_retry;
	uint8_t status;
	uint32_t len;
	uint32_t seq;
	uint32_t imm;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t rlen;
};

_Static_assert(sizeof(struct softrdma_wire_hdr) == 32, "wire header size");
_Static_assert(sizeof(struct softrdma_wire_hello) == 32, "wire hello size");
_Static_assert(sizeof(struct softrdma_wire_shm) == 64, "wire shm offer size");

#define SOFTRDMA_WIRE_HELLO_LEN                                                                    \
	(sizeof(struct softrdma_wire_hello) + sizeof(struct softrdma_wire_shm))

void softrdma__wire_hdr_to_le(struct softrdma_wire_hdr *h);
void softrdma__wire_hdr_from_le(struct softrdma_wire_hdr *h);
int softrdma__wire_hdr_valid(const struct softrdma_wire_hdr *h, int requester_side);
void softrdma__wire_hello_init(struct softrdma_wire_hello *h, uint32_t src, uint32_t dst,
			       const uint8_t secret[SOFTRDMA_WIRE_SECRET_LEN]);
int softrdma__wire_hello_check(struct softrdma_wire_hello *h);
void softrdma__wire_shm_to_le(struct softrdma_wire_shm *w);
void softrdma__wire_shm_from_le(struct softrdma_wire_shm *w);

#endif
