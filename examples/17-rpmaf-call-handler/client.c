/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- call the handlers of this example's server.
 *
 * What it teaches: rpmaf_pool_call() sends a request to a handler id of a
 * target and waits (or calls back) for the reply; the pool takes care of
 * the message buffers and of the target's credits. What a call returns
 * tells the outcome: 0 and the reply, RPMAF_E_REMOTE when the handler
 * failed, RPMAF_E_NOENT when the target has no handler for the id. Whether
 * the handler answered at once or later, from another thread, the client
 * cannot tell and need not care.
 *
 * usage: client ADDR PORT
 * Exit status: 0 when every call gave what it should, 1 otherwise, 3 when
 * the server cannot be reached.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>
#include <rpmaf.h>

#define HANDLER_UPPER	   1
#define HANDLER_SUM	   2
#define HANDLER_NONE	   9 /* no handler has this id */
#define REPLY_MAX	   256
#define EXIT_NOT_CONNECTED 3

static const char Cfg[] = "workers: {count: 1, polling: adaptive}\n"
			  "targets: [{name: server, address: \"%s\", port: %s}]\n";

/* call -- call handler id of target "server" with text; the status, the reply in reply */
static int
call(struct rpmaf_pool *pool, uint32_t id, const char *text, char reply[REPLY_MAX + 1])
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_call(pool, &op, "server", id, text, strlen(text), reply, REPLY_MAX,
				  NULL, NULL);

	if (!ret)
		ret = rpmaf_op_wait(&op);
	reply[ret ? 0 : rpmaf_op_reply_len(&op)] = '\0';
	return ret;
}

/* expect -- one call and what it must give: status want and, when 0, the reply want_reply */
static int
expect(struct rpmaf_pool *pool, uint32_t id, const char *text, int want, const char *want_reply)
{
	char reply[REPLY_MAX + 1];
	int ret = call(pool, id, text, reply);

	if (ret != want || (want == 0 && strcmp(reply, want_reply))) {
		fprintf(stderr, "client: handler %u('%s') gave %s '%s', expected %s '%s'\n", id,
			text, rpmaf_err_str(ret), reply, rpmaf_err_str(want),
			want_reply ? want_reply : "");
		return 1;
	}
	if (want == 0)
		printf("client: handler %u('%s') = '%s'\n", id, text, reply);
	else
		printf("client: handler %u('%s') failed as expected: %s\n", id, text,
		       rpmaf_err_str(ret));
	return 0;
}

/* calls -- what the example shows: two handlers, a failing call, an unknown id */
static int
calls(struct rpmaf_pool *pool)
{
	int bad = 0;

	bad |= expect(pool, HANDLER_UPPER, "hello handler", 0, "HELLO HANDLER");
	bad |= expect(pool, HANDLER_SUM, "1 2 3 4 30", 0, "40");
	bad |= expect(pool, HANDLER_SUM, "1 two", RPMAF_E_REMOTE, NULL);
	bad |= expect(pool, HANDLER_NONE, "anyone?", RPMAF_E_NOENT, NULL);
	return bad;
}

int
main(int argc, char *argv[])
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpma_peer *peer = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct ibv_context *dev;
	struct rpmaf_cfg_err err;
	char text[512];
	int ret = 1, r, len;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 1;
	}
	len = snprintf(text, sizeof(text), Cfg, argv[1], argv[2]);
	if (len < 0 || (size_t)len >= sizeof(text)) {
		fprintf(stderr, "client: the address is too long\n");
		return 1;
	}
	if (rpmaf_cfg_load_buffer("client", text, (size_t)len, NULL, &cfg, &err)) {
		fprintf(stderr, "client: %s\n", err.msg);
		return 1;
	}
	if ((r = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)) ||
	    (r = rpma_peer_new(dev, &peer))) {
		fprintf(stderr, "client: no RDMA device reaches %s: %s\n", argv[1],
			rpma_err_2str(r));
		goto out;
	}
	if ((r = rpmaf_workers_new(cfg, peer, &ws)) || (r = rpmaf_pool_new(cfg, peer, ws, &pool))) {
		fprintf(stderr, "client: %s\n", rpmaf_err_str(r));
		goto out;
	}
	if ((r = rpmaf_pool_wait_ready(pool, cfg->timeouts.connect_ms))) {
		fprintf(stderr, "client: the server is not ready: %s\n", rpmaf_err_str(r));
		ret = EXIT_NOT_CONNECTED;
		goto out;
	}
	ret = calls(pool);
out:
	rpmaf_pool_delete(&pool);
	rpmaf_workers_delete(&ws);
	if (peer)
		rpma_peer_delete(&peer);
	rpmaf_cfg_delete(&cfg);
	return ret;
}
