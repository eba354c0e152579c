/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the smallest complete client of librpmaf, the framework.
 *
 * What it teaches: a framework program is a configuration (YAML, here built
 * in memory; doc/CONFIG.md), an RDMA peer, a set of worker threads and a
 * pool of connections to the configuration's targets. The pool connects,
 * authenticates and lists every target's regions by itself; the program
 * names a region and an offset, and the pool does the rest: it picks a
 * healthy connection, posts the operation and reports its status. Here one
 * write made durable (RPMAF_OP_PERSIST: the pool flushes to persistence, or
 * asks the server to persist the range, whichever the region needs) and
 * one read of the same bytes back. Every call is checked; everything made
 * is released, in the reverse order.
 *
 * Run it against any server of the framework exporting a region, e.g.
 * tools/rpma-server with a configuration that has one (see README.md):
 *
 * usage: client ADDR PORT [REGION [TEXT]]
 *   REGION defaults to "data", TEXT to "hello from the framework".
 * Exit status: 0 when the text read back is the one written, 1 on a
 * failure, 3 when the server cannot be reached.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>
#include <rpmaf.h>

#define BUF_SIZE	   4096
#define EXIT_NOT_CONNECTED 3

/* the configuration: one worker and one target, everything else defaults */
static const char Cfg[] = "workers: {count: 1, polling: adaptive}\n"
			  "targets: [{name: server, address: \"%s\", port: %s}]\n";

/* the objects of the client, made in this order and deleted in the reverse */
struct client {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
	char *buf;
	struct rpma_mr_local *mr;
};

/* fail -- print what failed with the framework's reason; returns 1 */
static int
fail(const char *what, int err)
{
	fprintf(stderr, "client: %s: %s\n", what, rpmaf_err_str(err));
	return 1;
}

/* client_open -- configuration, peer, workers, pool: 0, 1 or EXIT_NOT_CONNECTED */
static int
client_open(struct client *c, const char *addr, const char *port)
{
	struct rpmaf_cfg_err err;
	struct ibv_context *dev;
	char text[512];
	int ret, len = snprintf(text, sizeof(text), Cfg, addr, port);

	if (len < 0 || (size_t)len >= sizeof(text))
		return fail("the address is too long", RPMAF_E_INVAL);
	if (rpmaf_cfg_load_buffer("client", text, (size_t)len, NULL, &c->cfg, &err)) {
		fprintf(stderr, "client: %s\n", err.msg);
		return 1;
	}
	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)) ||
	    (ret = rpma_peer_new(dev, &c->peer))) {
		fprintf(stderr, "client: no RDMA device reaches %s: %s\n", addr,
			rpma_err_2str(ret));
		return 1;
	}
	if ((ret = rpmaf_workers_new(c->cfg, c->peer, &c->ws)))
		return fail("rpmaf_workers_new", ret);
	if ((ret = rpmaf_pool_new(c->cfg, c->peer, c->ws, &c->pool)))
		return fail("rpmaf_pool_new", ret);
	/* the pool connects in the background: wait until the target is ready */
	if ((ret = rpmaf_pool_wait_ready(c->pool, c->cfg->timeouts.connect_ms))) {
		fail("the server is not ready", ret);
		return EXIT_NOT_CONNECTED;
	}
	return 0;
}

/* client_close -- release what client_open() and main() made, in the reverse order */
static void
client_close(struct client *c)
{
	rpmaf_pool_delete(&c->pool); /* before the memory its operations used */
	if (c->mr)
		rpma_mr_dereg(&c->mr);
	free(c->buf);
	rpmaf_workers_delete(&c->ws); /* after the pool, never before */
	if (c->peer)
		rpma_peer_delete(&c->peer);
	rpmaf_cfg_delete(&c->cfg);
}

/* write_read -- write text durably at offset 0 of region, read it back, compare */
static int
write_read(struct client *c, const char *region, const char *text)
{
	struct rpmaf_pool_region info;
	struct rpmaf_op op;
	size_t len = strlen(text) + 1;
	int ret;

	if ((ret = rpmaf_pool_region(c->pool, region, &info)))
		return fail(region, ret);
	if (info.size < len)
		return fail("the region is smaller than the text", RPMAF_E_INVAL);
	/* the local side of RDMA operations is registered memory */
	if (!(c->buf = aligned_alloc(BUF_SIZE, BUF_SIZE)))
		return fail("aligned_alloc", RPMAF_E_NOMEM);
	if ((ret = rpma_mr_reg(c->peer, c->buf, BUF_SIZE,
			       RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c->mr))) {
		fprintf(stderr, "client: rpma_mr_reg: %s\n", rpma_err_2str(ret));
		return 1;
	}
	memcpy(c->buf, text, len);
	/* no callback: the operation is waited for (both return its status) */
	if ((ret = rpmaf_pool_write(c->pool, &op, region, 0, c->mr, 0, len, RPMAF_OP_PERSIST, NULL,
				    NULL)) ||
	    (ret = rpmaf_op_wait(&op)))
		return fail("write and persist", ret);
	memset(c->buf, 0, len);
	if ((ret = rpmaf_pool_read(c->pool, &op, region, 0, c->mr, 0, len, NULL, NULL)) ||
	    (ret = rpmaf_op_wait(&op)))
		return fail("read", ret);
	if (memcmp(c->buf, text, len)) {
		fprintf(stderr, "client: read back '%.*s', not what was written\n", (int)len - 1,
			c->buf);
		return 1;
	}
	printf("client: wrote '%s' to region %s (%s persisted), read it back\n", text, region,
	       info.apm ? "client" : "server");
	return 0;
}

int
main(int argc, char *argv[])
{
	struct client c = {0};
	int ret;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s ADDR PORT [REGION [TEXT]]\n", argv[0]);
		return 1;
	}
	const char *region = argc > 3 ? argv[3] : "data";
	const char *text = argc > 4 ? argv[4] : "hello from the framework";

	if (strlen(text) >= BUF_SIZE) {
		fprintf(stderr, "client: the text is longer than %d bytes\n", BUF_SIZE - 1);
		return 1;
	}
	if (!(ret = client_open(&c, argv[1], argv[2])))
		ret = write_read(&c, region, text);
	client_close(&c);
	return ret;
}
