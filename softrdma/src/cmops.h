/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What softrdma's CM (librdmacm.so.1) asks of softrdma's verbs library
 * (libibverbs.so.1) beyond the public verbs. The two libraries come from one
 * build; the CM finds the table through the device context it opened, so no
 * symbol beyond rdma-core's is exported.
 *
 * Thread safety: every operation may be called from any thread, with the
 * CM's lock held (it comes before every lock of the verbs library).
 */
#ifndef SOFTRDMA_CMOPS_H
#define SOFTRDMA_CMOPS_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdint.h>

#include "secret.h"

struct softrdma_cm_ops {
	/*
	 * ibv_create_qp_ex for a QP whose connections arrive at local address
	 * @bind only (INADDR_ANY: at any); NULL with errno on failure.
	 */
	struct ibv_qp *(*create_qp)(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr,
				    struct in_addr bind);
	/* the connection secrets of secret.h */
	int (*secret_new)(uint8_t key[SOFTRDMA_SECRET_LEN]);
	int (*secret_set_local)(uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN]);
	int (*secret_set_remote)(struct in_addr addr, uint32_t qpn,
				 const uint8_t key[SOFTRDMA_SECRET_LEN]);
	void (*secret_forget_remote)(struct in_addr addr, uint32_t qpn);
};

#endif
