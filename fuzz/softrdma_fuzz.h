/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * softrdma_fuzz.h -- the environment shared by the softrdma harnesses
 * (fuzz/fuzz_softrdma_*.c) and by the program that records their seeds
 * (fuzz/softrdma_record.c). Both are linked with softrdma's own sources, so
 * the verbs called here are softrdma's.
 *
 * The environment, made once per process and always in the same order so
 * that addresses and keys recorded by one process are valid in another:
 * - an arena at a fixed address, cut into regions: guards (registered for
 *   remote read only), a remotely writable region W (remote atomics too),
 *   a region R for receive buffers and READ and atomic destinations (local
 *   write only), a region RO
 *   (remote read only) and a region H for the healthy pair. Every byte of
 *   it holds a known pattern before an input; sfz_arena_check() finds any
 *   byte changed outside the ranges an input may write;
 * - a healthy pair of QPs connected to each other over TCP, which must go
 *   on moving data whatever an input did to another QP (sfz_healthy_check);
 * - a sink: a TCP listener standing for a peer QP. It answers a data
 *   connection's hello (no same-host rings), announces at once that it
 *   sends nothing more (end-of-stream marker) and reads everything, so a
 *   QP under test can connect somewhere harmless.
 *
 * Numbers a harness substitutes: a hello naming SFZ_PH_TARGET as its
 * destination QP is meant for the QP under test, SFZ_PH_PEER as its source
 * for that QP's peer. Port 0 is never a listener, so neither names a QP.
 */

#ifndef SOFTRDMA_FUZZ_H
#define SOFTRDMA_FUZZ_H

#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "softrdma.h"

#define SFZ_PH_TARGET 0x000001u
#define SFZ_PH_PEER   0x000002u

/* the regions of the arena, in address order */
enum sfz_region {
	SFZ_G0,
	SFZ_W,
	SFZ_G1,
	SFZ_R,
	SFZ_G2,
	SFZ_RO,
	SFZ_G3,
	SFZ_H,
	SFZ_NREGIONS,
};

#define SFZ_ARENA_ADDR 0x510000000000ull
#define SFZ_PAGE       4096u

/* a byte range of the arena an input may write (absolute addresses) */
struct sfz_range {
	uint64_t addr;
	uint64_t len;
};

/* receive WQEs the responder under test gets (sfz_resp_prepare) */
#define SFZ_NRECV     8
#define SFZ_RECV_WRID 0x100u
/* work requests of a requester script (sfz_script_post) */
#define SFZ_MAX_SCRIPT 16
#define SFZ_NSCRIPTS   5

/* responder configurations: the first byte of a responder input */
#define SFZ_RESP_NO_WRITE 0x01 /* the QP does not allow remote writes (nor atomics) */
#define SFZ_RESP_NO_READ  0x02 /* nor remote reads */
#define SFZ_RESP_NO_RECV  0x04 /* no receive WQE is posted */

/* one posted work request of a script, as the harness checks it */
struct sfz_wr {
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	uint32_t len;
	int signaled;
	int nsge;
	struct sfz_range sge[4];
};

/* Whether a work request completing with @opcode ends with a response carrying data. */
static inline int
sfz_wc_answered(enum ibv_wc_opcode opcode)
{
	return opcode == IBV_WC_RDMA_READ || opcode == IBV_WC_COMP_SWAP ||
	       opcode == IBV_WC_FETCH_ADD;
}

/* the environment of a process (sfz_env_init) */
struct sfz_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	/* the CQs of the QPs under test */
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	unsigned char *arena;
	unsigned char *ref;
	size_t arena_len;
	struct ibv_mr *mr[SFZ_NREGIONS];
	/* the healthy pair and its CQ */
	struct ibv_cq *hcq;
	struct ibv_qp *h1;
	struct ibv_qp *h2;
	uint32_t hround;
	/* the sink */
	int sink_fd;
	uint16_t sink_port;
};

extern struct sfz_env sfz;

void sfz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void sfz_env_init(const char *transport, int healthy);
uint64_t sfz_now_ms(void);
uint32_t sfz_sink_qpn(void);
uint64_t sfz_addr(enum sfz_region r, uint64_t off);

void sfz_arena_reset(void);
void sfz_arena_check(const struct sfz_range *may, int n, int w_may_change);

/* creation attributes of an RC QP on the CQs of the QPs under test, @sge entries a work request */
struct ibv_qp_init_attr sfz_qp_attr(uint32_t send_wr, uint32_t recv_wr, uint32_t sge,
				    uint32_t inline_data);
struct ibv_qp *sfz_qp_new(void);
int sfz_qp_connect(struct ibv_qp *qp, uint32_t dest, int access, uint8_t rnr_retry);
void sfz_qp_destroy(struct ibv_qp *qp);
int sfz_qp_state(struct ibv_qp *qp);
int sfz_qp_owns_qpn(uint32_t qpn);

int sfz_resp_access(unsigned cfg);
int sfz_resp_prepare(struct ibv_qp *qp, unsigned cfg, struct sfz_range *may, int *nmay);
int sfz_recv_sges(int k, struct sfz_range *sges);
int sfz_script_post(struct ibv_qp *qp, unsigned script, struct sfz_wr *wrs, int *nwrs);
int sfz_poll(struct ibv_cq *cq, struct ibv_wc *wc, int max, int want, int ms);

void sfz_healthy_check(void);

/*
 * what sfz_pump() asks of a harness that plays a QP's peer on a socket: how
 * to take the bytes the QP sent and whether the QP is done with the input
 */
struct sfz_pump {
	/* the QP's role: 1 its responder (the pump watches its incoming connection), 0 its
	 * requester */
	int responder;
	/* parse @n more bytes the QP sent into @out */
	void (*feed)(void *out, const unsigned char *buf, size_t n);
	void *out;
	/* an input shorter than this waits forever: the harness ends it as a peer would */
	size_t shut_below;
};

void sfz_skip(uint64_t *skip, const unsigned char **p, size_t *n);
int sfz_gather(unsigned char *buf, size_t *have, size_t need, const unsigned char **p, size_t *n);
int sfz_drain(int fd, const struct sfz_pump *p);
int sfz_pump(struct ibv_qp *qp, int fd, const uint8_t *buf, size_t n, const struct sfz_pump *p);

int sfz_tcp_listen(uint16_t *port);
int sfz_tcp_connect(uint16_t port);
int sfz_accept(int lfd, int ms);
int sfz_read_full(int fd, void *buf, size_t len, int ms);
int sfz_fd_count(void);

#endif /* SOFTRDMA_FUZZ_H */
