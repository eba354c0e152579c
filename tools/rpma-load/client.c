/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- setting up and tearing down the client side of a load.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "client.h"
#include "run.h"

/* client_cfg -- the configuration, which must name at least one target */
static int
client_cfg(struct client *c, const char *path, const char *const *sets, unsigned nsets)
{
	struct rpmaf_cfg_opts opts = {.overrides = sets, .n_overrides = nsets};
	struct rpmaf_cfg_err err;

	if (rpmaf_cfg_load_file(path, &opts, &c->cfg, &err)) {
		fprintf(stderr, "rpma-load: %s\n", err.msg);
		return -1;
	}
	if (c->cfg->ntargets == 0) {
		fprintf(stderr, "rpma-load: %s: the configuration has no targets section\n", path);
		return -1;
	}
	return 0;
}

/* client_peer -- a peer on the RDMA device that reaches the first target */
static int
client_peer(struct client *c)
{
	const struct rpmaf_cfg_target *t = &c->cfg->targets[0];
	struct ibv_context *dev = NULL;
	int ret = rpma_utils_get_ibv_context(t->address, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev);

	if (!ret)
		ret = rpma_peer_new(dev, &c->peer);
	if (ret)
		fprintf(stderr, "rpma-load: target %s (%s): no RDMA device reaches it: %s\n",
			t->name, t->address, rpma_err_2str(ret));
	return ret ? -1 : 0;
}

/* client_ready -- wait for the targets, then find the region */
static int
client_ready(struct client *c)
{
	unsigned ms = c->cfg->timeouts.connect_ms;
	int ret;

	run_signals_pool(c->pool);
	ret = rpmaf_pool_wait_ready(c->pool, ms);
	run_signals_pool(NULL);
	if (ret == RPMAF_E_SHUTDOWN && run_interrupted())
		return -1; /* the caller says it */
	if (ret) {
		fprintf(stderr,
			"rpma-load: the targets are not ready after %u ms (timeouts.connect_ms): "
			"%s; is the server running at ",
			ms, rpmaf_err_str(ret));
		for (uint32_t i = 0; i < c->cfg->ntargets; i++)
			fprintf(stderr, "%s%s:%u", i ? ", " : "", c->cfg->targets[i].address,
				c->cfg->targets[i].port);
		fprintf(stderr, "?\n");
		return -1;
	}
	if ((ret = rpmaf_pool_region(c->pool, c->region, &c->info))) {
		fprintf(stderr, "rpma-load: region %s: %s (no target exports it)\n", c->region,
			rpmaf_err_str(ret));
		return -1;
	}
	c->target = c->cfg->targets[c->info.target].name;
	return 0;
}

/* see client.h */
int
client_open(struct client *c, const char *cfg_path, const char *const *sets, unsigned nsets,
	    const char *region)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->region = region;
	if (client_cfg(c, cfg_path, sets, nsets) || client_peer(c))
		goto err_close;
	run_signals_hold(true); /* the library's threads inherit the block */
	if ((ret = rpmaf_workers_new(c->cfg, c->peer, &c->ws))) {
		run_signals_hold(false);
		fprintf(stderr, "rpma-load: cannot start the workers: %s\n", rpmaf_err_str(ret));
		goto err_close;
	}
	ret = rpmaf_pool_new(c->cfg, c->peer, c->ws, &c->pool);
	run_signals_hold(false);
	if (ret) {
		fprintf(stderr, "rpma-load: cannot make the pool: %s\n", rpmaf_err_str(ret));
		goto err_close;
	}
	if (run_interrupted() || client_ready(c))
		goto err_close;
	return 0;

err_close:
	client_close(c);
	return -1;
}

/* client_mem_free -- the memory of client_mem(), if any */
static void
client_mem_free(struct client *c)
{
	if (c->mr)
		rpma_mr_dereg(&c->mr);
	free(c->mem);
	c->mem = NULL;
	c->mem_size = 0;
}

/* see client.h */
int
client_mem(struct client *c, size_t size)
{
	int ret;

	client_mem_free(c);
	size = (size + 4095) & ~(size_t)4095;
	if (!(c->mem = aligned_alloc(4096, size))) {
		fprintf(stderr, "rpma-load: out of memory (%zu bytes)\n", size);
		return -1;
	}
	memset(c->mem, 0, size);
	c->mem_size = size;
	ret = rpma_mr_reg(c->peer, c->mem, size, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST,
			  &c->mr);
	if (ret) {
		fprintf(stderr, "rpma-load: cannot register %zu bytes: %s\n", size,
			rpma_err_2str(ret));
		return -1;
	}
	return 0;
}

/* see client.h */
void
client_close(struct client *c)
{
	if (c->pool)
		rpmaf_pool_delete(&c->pool);
	client_mem_free(c);
	if (c->ws)
		rpmaf_workers_delete(&c->ws);
	if (c->peer)
		rpma_peer_delete(&c->peer);
	rpmaf_cfg_delete(&c->cfg);
}
