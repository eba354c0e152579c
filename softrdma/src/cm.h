/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The softrdma connection manager (librdmacm replacement).
 *
 * Threads: constants and one check of a received message
 * (softrdma__cm_msg_check, on the caller's copy: any thread, no lock).
 */
#ifndef SOFTRDMA_CM_H
#define SOFTRDMA_CM_H

#include <rdma/rdma_cma.h>
#include <stdint.h>

#include "util.h"

#define SOFTRDMA_CM_MAGIC     0x4d435253u /* "SRCM" */
#define SOFTRDMA_CM_REQ_PDATA 56
#define SOFTRDMA_CM_REP_PDATA 196
#define SOFTRDMA_CM_REJ_PDATA 148

enum softrdma_cm_msg_type {
	SOFTRDMA_CM_REQ = 1,
	SOFTRDMA_CM_REP,
	SOFTRDMA_CM_REJ,
	SOFTRDMA_CM_RTU,
	SOFTRDMA_CM_DREQ,
	SOFTRDMA_CM_DREP,
	SOFTRDMA_CM_MRA, /* REQ received: the active side stops its timer */
};

/* Fixed-size CM message exchanged over the id's TCP connection. */
struct softrdma_cm_msg {
	uint32_t magic;
	uint8_t type;
	uint8_t pdata_len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t rnr_retry;
	uint8_t retry;
	uint8_t srq;
	uint8_t flow_control;
	uint32_t qpn;
	uint8_t gid[16];
	/* REQ: the connection's secret (secret.h), drawn by the active side */
	uint8_t secret[16];
	uint8_t pdata[SOFTRDMA_CM_REP_PDATA];
};

int softrdma__cm_msg_check(struct softrdma_cm_msg *m);

#endif
