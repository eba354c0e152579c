/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rc_qp.h -- how the programs on softrdma bring an RC QP up by hand: the walk
 * through INIT and RTR to RTS, and the rdma_cm connection parameters. Shared
 * by softrdma's tests (tests/softrdma/), its libFuzzer harnesses (fuzz/) and
 * its benchmark (softrdma/bench/), which build apart and against different
 * libraries: hence a header of static inline functions.
 *
 * ASSUMPTIONS
 * Any thread, on a QP no other thread modifies meanwhile.
 */

#ifndef TEST_SUPPORT_RC_QP_H
#define TEST_SUPPORT_RC_QP_H

#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* where and how rc_qp_to_rts() points a QP */
struct rc_qp_path {
	uint32_t dest_qpn; /* the peer QP's number */
	int access;	   /* the QP's access flags */
	uint8_t rnr_retry; /* its RNR retries (7: without limit) */
	enum ibv_mtu mtu;
	uint8_t rd_atomic; /* READs and atomics in flight, each way */
	int loopback;	   /* the peer addressed as ::ffff:127.0.0.1 (else no GRH) */
};

/*
 * rc_qp_to_rts -- drive @qp through INIT and RTR to RTS along @p; its receive
 * side waits 10 us per RNR retry. Returns 0 or the error of the first
 * ibv_modify_qp() that failed.
 */
static inline int
rc_qp_to_rts(struct ibv_qp *qp, const struct rc_qp_path *p)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = p->access;
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = p->dest_qpn;
	a.max_dest_rd_atomic = p->rd_atomic;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	if (p->loopback) {
		/* ::ffff:127.0.0.1 */
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid.raw[10] = 0xff;
		a.ah_attr.grh.dgid.raw[11] = 0xff;
		a.ah_attr.grh.dgid.raw[12] = 127;
		a.ah_attr.grh.dgid.raw[15] = 1;
	}
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = p->rnr_retry;
	a.max_rd_atomic = p->rd_atomic;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * rc_conn_param -- rdma_cm connection parameters with one outstanding READ
 * each way and RNR retries without limit, carrying @len bytes of private data
 * at @data
 */
static inline struct rdma_conn_param
rc_conn_param(const void *data, uint8_t len)
{
	struct rdma_conn_param p;

	memset(&p, 0, sizeof(p));
	p.private_data = data;
	p.private_data_len = len;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.rnr_retry_count = 7;
	return p;
}

#endif /* TEST_SUPPORT_RC_QP_H */
