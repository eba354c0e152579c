/* SPDX-License-Identifier: BSD-3-Clause */
/* The softrdma0 device and its contexts. */
#ifndef SOFTRDMA_DEVICE_H
#define SOFTRDMA_DEVICE_H

#include "softrdma.h"

/*
 * verbs_context.query_port: the attributes of port 1, up to @len bytes.
 * ERRORS: EINVAL for another port.
 */
int softrdma__query_port_op(struct ibv_context *context, uint8_t port_num,
			    struct ibv_port_attr *port_attr, size_t len);

/*
 * verbs_context.query_device_ex: the device attributes, up to @attr_size
 * bytes (no extended capabilities).
 * ERRORS: EINVAL for input comp_mask bits or a size below ibv_device_attr.
 */
int softrdma__query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size);

struct softrdma_device *softrdma__device(void);
void softrdma__async_event(struct ibv_context *ctx, enum ibv_event_type type, void *elem);
/*
 * Non-zero when @ctx was inherited from the parent of this (forked)
 * process; objects on it are inert. Lock-free: the flag is set once, in
 * the child's fork handler, before any other thread exists.
 */
int softrdma__ctx_inherited(struct ibv_context *ctx);

#endif
