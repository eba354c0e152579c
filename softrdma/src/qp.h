/* SPDX-License-Identifier: BSD-3-Clause */
/* Queue pairs, shared receive queues and the data path. */
#ifndef SOFTRDMA_QP_H
#define SOFTRDMA_QP_H

#include "softrdma.h"

int softrdma__post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int softrdma__post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int softrdma__post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad);
struct ibv_qp *softrdma__create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
int softrdma__query_port_op(struct ibv_context *context, uint8_t port_num,
			    struct ibv_port_attr *port_attr, size_t len);
int softrdma__query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size);
void softrdma__qp_resume(struct softrdma_qp *qp);

#endif
