/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoding and validation of softrdma's data wire messages. Everything that
 * arrives from a peer goes through these checks before it is acted upon.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "wire.h"

/* Convert a header from host order to wire (little-endian) order. */
void
softrdma__wire_hdr_to_le(struct softrdma_wire_hdr *h)
{
	h->len = htole32(h->len);
	h->seq = htole32(h->seq);
	h->raddr = htole64(h->raddr);
	h->rkey = htole32(h->rkey);
	h->rlen = htole32(h->rlen);
}

/* Convert a header received from the wire to host order. */
void
softrdma__wire_hdr_from_le(struct softrdma_wire_hdr *h)
{
	h->len = le32toh(h->len);
	h->seq = le32toh(h->seq);
	h->raddr = le64toh(h->raddr);
	h->rkey = le32toh(h->rkey);
	h->rlen = le32toh(h->rlen);
}

/*
 * Check a received header: known opcode for the direction of the connection,
 * lengths within limits and consistent with the opcode. Returns 0 or EPROTO.
 */
int
softrdma__wire_hdr_valid(const struct softrdma_wire_hdr *h, int requester_side)
{
	if (h->len > SOFTRDMA_MAX_MSG || h->rlen > SOFTRDMA_MAX_MSG)
		return EPROTO;
	if (requester_side) {
		/* what a requester may receive: responses */
		switch (h->op) {
		case SOFTRDMA_OP_ACK:
			return h->len ? EPROTO : 0;
		case SOFTRDMA_OP_NAK:
			return (h->len || !h->status) ? EPROTO : 0;
		case SOFTRDMA_OP_READ_RESP:
			return 0;
		case SOFTRDMA_OP_ATOMIC_RESP:
			return h->len == SOFTRDMA_ATOMIC_LEN && !h->rlen ? 0 : EPROTO;
		case SOFTRDMA_OP_EOS:
			return h->len || h->rlen ? EPROTO : 0;
		default:
			return EPROTO;
		}
	}
	switch (h->op) {
	case SOFTRDMA_OP_SEND:
	case SOFTRDMA_OP_SEND_IMM:
	case SOFTRDMA_OP_WRITE:
	case SOFTRDMA_OP_WRITE_IMM:
		return h->rlen ? EPROTO : 0;
	case SOFTRDMA_OP_READ_REQ:
		return h->len ? EPROTO : 0;
	case SOFTRDMA_OP_CMP_SWAP:
	case SOFTRDMA_OP_FETCH_ADD:
		if (h->len != SOFTRDMA_ATOMIC_REQ_LEN || h->rlen != SOFTRDMA_ATOMIC_LEN)
			return EPROTO;
		return 0;
	case SOFTRDMA_OP_EOS:
		return h->len || h->rlen ? EPROTO : 0;
	default:
		return EPROTO;
	}
}

/* Fill the hello a requester sends first on a new data connection. */
void
softrdma__wire_hello_init(struct softrdma_wire_hello *h, uint32_t src, uint32_t dst,
			  const uint8_t secret[SOFTRDMA_WIRE_SECRET_LEN])
{
	memset(h, 0, sizeof(*h));
	memcpy(h->secret, secret, SOFTRDMA_WIRE_SECRET_LEN);
	h->magic = htole32(SOFTRDMA_WIRE_MAGIC);
	h->version = htole16(SOFTRDMA_WIRE_VERSION);
	h->src_qpn = htole32(src);
	h->dst_qpn = htole32(dst);
}

/* Validate a received hello and convert it to host order. */
int
softrdma__wire_hello_check(struct softrdma_wire_hello *h)
{
	h->magic = le32toh(h->magic);
	h->version = le16toh(h->version);
	h->src_qpn = le32toh(h->src_qpn);
	h->dst_qpn = le32toh(h->dst_qpn);
	if (h->magic != SOFTRDMA_WIRE_MAGIC || h->version != SOFTRDMA_WIRE_VERSION)
		return EPROTO;
	if (h->src_qpn > 0xffffff || h->dst_qpn > 0xffffff)
		return EPROTO;
	return 0;
}

/* Convert a same-host offer or answer to wire order. */
void
softrdma__wire_shm_to_le(struct softrdma_wire_shm *w)
{
	w->netns = htole64(w->netns);
	w->pidns = htole64(w->pidns);
	w->nonce = htole64(w->nonce);
	w->uid = htole32(w->uid);
	w->pid = htole32(w->pid);
	w->seg_fd = (int32_t)htole32((uint32_t)w->seg_fd);
	w->bell_fd = (int32_t)htole32((uint32_t)w->bell_fd);
	w->ring_fd = (int32_t)htole32((uint32_t)w->ring_fd);
	w->flags = htole32(w->flags);
}

/* Convert a received same-host offer or answer to host order. */
void
softrdma__wire_shm_from_le(struct softrdma_wire_shm *w)
{
	w->netns = le64toh(w->netns);
	w->pidns = le64toh(w->pidns);
	w->nonce = le64toh(w->nonce);
	w->uid = le32toh(w->uid);
	w->pid = le32toh(w->pid);
	w->seg_fd = (int32_t)le32toh((uint32_t)w->seg_fd);
	w->bell_fd = (int32_t)le32toh((uint32_t)w->bell_fd);
	w->ring_fd = (int32_t)le32toh((uint32_t)w->ring_fd);
	w->flags = le32toh(w->flags);
}
