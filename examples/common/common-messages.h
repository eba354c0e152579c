/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-messages.h -- messages in the librpma examples: a pair of
 * registered buffers to receive into and send from, and the ping-pong of
 * 08-messages-ping-pong that 09, 12 and 13 play again: the client asks for a
 * number of rounds in its private data and sends a 64-bit counter, the
 * server answers each with the counter plus one. The helpers end the
 * program when they fail (common.h).
 */

#ifndef EXAMPLES_COMMON_MESSAGES_H
#define EXAMPLES_COMMON_MESSAGES_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

#include "common.h"

/* the size of a ping-pong message: the counter */
#define COMMON_PING_SIZE sizeof(uint64_t)

/* a receive buffer and a send buffer, each registered (common_msgs_new()) */
struct common_msgs {
	void *recv_buf;
	void *send_buf;
	size_t size; /* of each buffer */
	struct rpma_mr_local *recv_mr;
	struct rpma_mr_local *send_mr;
};

/*
 * what an example changes in the client's side of the ping-pong
 * (common_ping_main()); all but wait may be NULL
 */
struct common_ping_ops {
	/* the connection's configuration, made once the command line is read */
	struct rpma_conn_cfg *(*cfg_new)(void);
	/* whether that configuration asks for a receive CQ */
	bool has_rcq;
	/* called once the connection is established */
	void (*connected)(struct rpma_conn *conn);
	/* wait until a round's ping (a send) and pong (a receive) have completed */
	void (*wait)(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq);
	/* what each round's line ends with ("" for nothing) */
	const char *round_note;
};

/* the server's side of the ping-pong: its peer, buffers and endpoint */
struct common_pong_server {
	struct rpma_peer *peer;
	struct common_msgs m; /* one ping, one pong */
	struct rpma_ep *ep;
};

void common_msgs_new(struct rpma_peer *peer, size_t size, struct common_msgs *m);
void common_msgs_delete(struct common_msgs *m);

uint32_t common_rounds_from_req(const struct rpma_conn_req *req);
void common_pong_listen(struct common_pong_server *s, const struct common_args *args);
struct rpma_conn *common_accept_ping(struct common_pong_server *s, const struct rpma_conn_cfg *cfg,
				     uint32_t *rounds);
uint64_t common_pong(struct rpma_conn *conn, struct common_pong_server *s, bool more);
void common_pong_server_end(struct common_pong_server *s);

int common_ping_main(int argc, char *argv[], const struct common_ping_ops *ops);

#endif /* EXAMPLES_COMMON_MESSAGES_H */
