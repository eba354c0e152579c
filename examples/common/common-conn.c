/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-conn.c -- the steps of a connection's life shared by the librpma
 * examples: the peer, listening, connecting and accepting, closing.
 */

#include <stdio.h>
#include <stdlib.h>

#include "common-conn.h"

/*
 * common_peer_new -- find the device serving addr (a local address for a
 * server, the remote one for a client) and create a peer on it.
 */
struct rpma_peer *
common_peer_new(const char *addr, enum rpma_util_ibv_context_type type)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	COMMON_CHECK(rpma_utils_get_ibv_context(addr, type, &ctx));
	COMMON_CHECK(rpma_peer_new(ctx, &peer));
	return peer;
}

/*
 * common_listen -- start listening and say so: a test waits for this line
 * before it starts the client.
 */
struct rpma_ep *
common_listen(struct rpma_peer *peer, const char *addr, const char *port)
{
	struct rpma_ep *ep;

	COMMON_CHECK(rpma_ep_listen(peer, addr, port, &ep));
	printf("%s: listening on %s:%s\n", common_role(), addr, port);
	return ep;
}

/*
 * common_next_req -- wait for the next incoming connection request.
 */
struct rpma_conn_req *
common_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req;

	COMMON_CHECK(rpma_ep_next_conn_req(ep, cfg, &req));
	return req;
}

/*
 * common_accept -- take the next connection request and accept it with len
 * bytes of private data, for a server that needs nothing from the request
 * and no receive posted before the connection is established.
 */
struct rpma_conn *
common_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, const void *pdata, size_t len)
{
	struct rpma_conn_req *req = common_next_req(ep, cfg);

	return common_connect(&req, pdata, len);
}

/*
 * common_accept_client -- common_accept() for the server's client number
 * idx (from 0), saying that it has connected.
 */
struct rpma_conn *
common_accept_client(struct rpma_ep *ep, unsigned long idx, const void *pdata, size_t len)
{
	struct rpma_conn *conn = common_accept(ep, NULL, pdata, len);

	printf("server: client %lu connected\n", idx + 1);
	return conn;
}

/*
 * common_server_end -- stop listening, delete the peer and say that the
 * server is done, once it has served its clients and released what it
 * registered.
 */
void
common_server_end(struct rpma_ep **ep, struct rpma_peer **peer)
{
	COMMON_CHECK(rpma_ep_shutdown(ep));
	COMMON_CHECK(rpma_peer_delete(peer));
	printf("%s: done\n", common_role());
}

/*
 * common_client_connect -- connect to the server on the command line with
 * len bytes of private data and wait until the connection is established.
 */
struct rpma_conn *
common_client_connect(struct rpma_peer *peer, const struct common_args *args,
		      const struct rpma_conn_cfg *cfg, const void *pdata, size_t len)
{
	struct rpma_conn_req *req;

	COMMON_CHECK(rpma_conn_req_new(peer, args->addr, args->port, cfg, &req));
	return common_connect(&req, pdata, len);
}

/*
 * common_wait_established -- wait for the first event of a new connection,
 * which must be RPMA_CONN_ESTABLISHED. A client that is rejected or finds no
 * server ends with COMMON_EXIT_NOT_CONNECTED, so that a test can try again.
 */
void
common_wait_established(struct rpma_conn *conn)
{
	enum rpma_conn_event ev;

	COMMON_CHECK(rpma_conn_next_event(conn, &ev));
	if (ev == RPMA_CONN_ESTABLISHED)
		return;

	fflush(stdout);
	fprintf(stderr, "%s: the connection was not established: %s\n", common_role(),
		rpma_utils_conn_event_2str(ev));
	if (common_is_client() && (ev == RPMA_CONN_REJECTED || ev == RPMA_CONN_UNREACHABLE)) {
		(void)rpma_conn_delete(&conn);
		exit(COMMON_EXIT_NOT_CONNECTED);
	}
	exit(1);
}

/*
 * common_connect -- connect (client) or accept (server) a request with len
 * bytes of private data and wait until the connection is established.
 */
struct rpma_conn *
common_connect(struct rpma_conn_req **req, const void *pdata, size_t len)
{
	struct rpma_conn_private_data pd = {(void *)pdata, (uint8_t)len};
	struct rpma_conn *conn;

	if (len > UINT8_MAX)
		common_die("private data of %zu bytes is too long", len);
	COMMON_CHECK(rpma_conn_req_connect(req, pdata ? &pd : NULL, &conn));
	common_wait_established(conn);
	return conn;
}

/*
 * wait_event_closed -- wait for RPMA_CONN_CLOSED on a connection.
 */
static void
wait_event_closed(struct rpma_conn *conn)
{
	enum rpma_conn_event ev;

	COMMON_CHECK(rpma_conn_next_event(conn, &ev));
	if (ev != RPMA_CONN_CLOSED)
		common_die("expected the connection to be closed, got: %s",
			   rpma_utils_conn_event_2str(ev));
}

/*
 * common_disconnect -- close a connection from this side: disconnect, wait
 * until the connection is closed and delete it.
 */
void
common_disconnect(struct rpma_conn **conn)
{
	COMMON_CHECK(rpma_conn_disconnect(*conn));
	wait_event_closed(*conn);
	COMMON_CHECK(rpma_conn_delete(conn));
}

/*
 * common_wait_closed -- let the peer close a connection: wait until it is
 * closed, disconnect in turn and delete it.
 */
void
common_wait_closed(struct rpma_conn **conn)
{
	wait_event_closed(*conn);
	COMMON_CHECK(rpma_conn_disconnect(*conn));
	COMMON_CHECK(rpma_conn_delete(conn));
}

/*
 * common_client_gone -- a server's common_wait_closed() for its client
 * number idx (from 0), saying when the client has disconnected.
 */
void
common_client_gone(struct rpma_conn **conn, unsigned long idx)
{
	common_wait_closed(conn);
	printf("server: client %lu disconnected\n", idx + 1);
}
