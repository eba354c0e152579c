/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The softrdma0 device and its contexts.
 *
 * Threads: any thread, no lock (the device and its attributes do not
 * change once made); a context is freed by ibv_close_device, its user.
 */
#ifndef SOFTRDMA_DEVICE_H
#define SOFTRDMA_DEVICE_H

#include "ctx.h"
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

#endif
