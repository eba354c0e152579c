/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * demo-server.c -- the server of `make run`: maps a file with libpmem2,
 * registers it as a region clients may write, read and flush to persistence,
 * accepts one client, and persists the whole region once the client is gone.
 *
 * usage: demo-server [-f PATH] [-m MIB] ADDR PORT
 *
 * PATH is created (or extended) to MIB MiB, 64 by default; without -f a new
 * file /tmp/rpma-demo-XXXXXX is created and kept, so that it can be checked
 * with demo-verify afterwards. The region is cleared before the server
 * listens, so that nothing a previous run left in the file can pass for
 * this run's records.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <libpmem2.h>
#include <librpma.h>

#include "demo.h"

/* what clients may do with the region */
#define REGION_USAGE                                                                               \
	(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT |  \
	 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)

#define DEFAULT_MIB 64
#define MAX_MIB	    (1024 * 1024)

/* the file and its mapping */
struct pmem {
	char path[4096];
	int fd;
	struct pmem2_map *map;
	void *addr;
	size_t size;
	pmem2_persist_fn persist;
};

/*
 * rpma_fail -- print which librpma call failed and why; returns -1.
 */
static int
rpma_fail(const char *what, int ret)
{
	const char *msg = rpma_errormsg();

	fprintf(stderr, "server: %s failed: %s%s%s%s\n", what, rpma_err_2str(ret),
		msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
	return -1;
}

/*
 * pmem2_fail -- print which libpmem2 call failed and why; returns -1.
 */
static int
pmem2_fail(const char *what, int ret)
{
	fprintf(stderr, "server: %s failed: %s (%d)\n", what, pmem2_errormsg(), ret);
	return -1;
}

/*
 * granularity_2str -- what a store granularity means for persistence.
 */
static const char *
granularity_2str(enum pmem2_granularity g)
{
	switch (g) {
	case PMEM2_GRANULARITY_BYTE:
		return "byte (persistent memory with eADR)";
	case PMEM2_GRANULARITY_CACHE_LINE:
		return "cache line (persistent memory: CPU cache flushes)";
	case PMEM2_GRANULARITY_PAGE:
		return "page (an ordinary file: msync)";
	default:
		return "unknown";
	}
}

/*
 * fs_note -- a remark on the file system holding fd when it matters for
 * persistence, or "".
 */
static const char *
fs_note(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs)) {
		fprintf(stderr, "server: fstatfs() failed: %s\n", strerror(errno));
		return NULL;
	}
	if (sfs.f_type == TMPFS_MAGIC)
		return "; the file is on tmpfs, i.e. in memory only: it does not survive a reboot";
	return "";
}

/*
 * pmem_open -- open (or create) the file and give it size bytes.
 */
static int
pmem_open(struct pmem *pm, const char *path, size_t size)
{
	struct stat st;

	if (path == NULL) {
		snprintf(pm->path, sizeof(pm->path), "/tmp/rpma-demo-XXXXXX");
		pm->fd = mkstemp(pm->path);
	} else {
		if (snprintf(pm->path, sizeof(pm->path), "%s", path) >= (int)sizeof(pm->path)) {
			fprintf(stderr, "server: the path is too long: %s\n", path);
			return -1;
		}
		pm->fd = open(path, O_RDWR | O_CREAT, 0644);
	}
	if (pm->fd < 0) {
		fprintf(stderr, "server: cannot create %s: %s\n", pm->path, strerror(errno));
		return -1;
	}
	if (fstat(pm->fd, &st)) {
		fprintf(stderr, "server: fstat(%s) failed: %s\n", pm->path, strerror(errno));
		goto err_close;
	}
	if ((size_t)st.st_size < size && ftruncate(pm->fd, (off_t)size)) {
		fprintf(stderr, "server: cannot extend %s to %zu bytes: %s\n", pm->path, size,
			strerror(errno));
		goto err_close;
	}
	return 0;

err_close:
	(void)close(pm->fd);
	return -1;
}

/*
 * pmem_map -- map the first size bytes of the open file with libpmem2,
 * accepting any store granularity so that an ordinary file system works.
 */
static int
pmem_map(struct pmem *pm, size_t size)
{
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	int ret, err = -1;

	ret = pmem2_config_new(&cfg);
	if (ret)
		return pmem2_fail("pmem2_config_new()", ret);
	ret = pmem2_source_from_fd(&src, pm->fd);
	if (ret) {
		pmem2_fail("pmem2_source_from_fd()", ret);
		goto err_cfg;
	}
	ret = pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE);
	if (ret) {
		pmem2_fail("pmem2_config_set_required_store_granularity()", ret);
		goto err_src;
	}
	ret = pmem2_config_set_length(cfg, size);
	if (ret) {
		pmem2_fail("pmem2_config_set_length()", ret);
		goto err_src;
	}
	ret = pmem2_map_new(&pm->map, cfg, src);
	if (ret) {
		pmem2_fail("pmem2_map_new()", ret);
		goto err_src;
	}
	pm->addr = pmem2_map_get_address(pm->map);
	pm->size = pmem2_map_get_size(pm->map);
	pm->persist = pmem2_get_persist_fn(pm->map);
	err = 0;

err_src:
	ret = pmem2_source_delete(&src);
	if (ret) {
		err = pmem2_fail("pmem2_source_delete()", ret);
		if (pm->map)
			(void)pmem2_map_delete(&pm->map);
	}
err_cfg:
	ret = pmem2_config_delete(&cfg);
	if (ret) {
		err = pmem2_fail("pmem2_config_delete()", ret);
		if (pm->map)
			(void)pmem2_map_delete(&pm->map);
	}
	return err;
}

/*
 * pmem_close -- unmap the file and close it; returns -1 if either failed.
 */
static int
pmem_close(struct pmem *pm)
{
	int err = 0;
	int ret = pmem2_map_delete(&pm->map);

	if (ret)
		err = pmem2_fail("pmem2_map_delete()", ret);
	if (close(pm->fd)) {
		fprintf(stderr, "server: close(%s) failed: %s\n", pm->path, strerror(errno));
		err = -1;
	}
	return err;
}

/*
 * make_pdata -- fill pdata with the sizes and the descriptors of the region
 * and of a peer configuration that declares direct write to PMem; *len gets
 * the total length.
 */
static int
make_pdata(const struct rpma_mr_local *mr, uint8_t *pdata, size_t max, size_t *len)
{
	struct rpma_peer_cfg *pcfg;
	size_t mr_size, pcfg_size;
	int ret, err = -1;

	ret = rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret)
		return rpma_fail("rpma_mr_get_descriptor_size()", ret);
	ret = rpma_peer_cfg_new(&pcfg);
	if (ret)
		return rpma_fail("rpma_peer_cfg_new()", ret);
	ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true);
	if (ret) {
		rpma_fail("rpma_peer_cfg_set_direct_write_to_pmem()", ret);
		goto out;
	}
	ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
	if (ret) {
		rpma_fail("rpma_peer_cfg_get_descriptor_size()", ret);
		goto out;
	}
	if (mr_size > UINT8_MAX || pcfg_size > UINT8_MAX ||
	    DEMO_PDATA_HDR_SIZE + mr_size + pcfg_size > max) {
		fprintf(stderr, "server: descriptors of %zu + %zu bytes do not fit in %zu\n",
			mr_size, pcfg_size, max - DEMO_PDATA_HDR_SIZE);
		goto out;
	}
	pdata[0] = (uint8_t)mr_size;
	pdata[1] = (uint8_t)pcfg_size;
	ret = rpma_mr_get_descriptor(mr, pdata + DEMO_PDATA_HDR_SIZE);
	if (ret) {
		rpma_fail("rpma_mr_get_descriptor()", ret);
		goto out;
	}
	ret = rpma_peer_cfg_get_descriptor(pcfg, pdata + DEMO_PDATA_HDR_SIZE + mr_size);
	if (ret) {
		rpma_fail("rpma_peer_cfg_get_descriptor()", ret);
		goto out;
	}
	*len = DEMO_PDATA_HDR_SIZE + mr_size + pcfg_size;
	err = 0;
out:
	ret = rpma_peer_cfg_delete(&pcfg);
	if (ret)
		err = rpma_fail("rpma_peer_cfg_delete()", ret);
	return err;
}

/*
 * wait_event -- wait for the next event of conn and check that it is want.
 */
static int
wait_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event ev;
	int ret = rpma_conn_next_event(conn, &ev);

	if (ret)
		return rpma_fail("rpma_conn_next_event()", ret);
	if (ev != want) {
		fprintf(stderr, "server: expected %s, got %s\n", rpma_utils_conn_event_2str(want),
			rpma_utils_conn_event_2str(ev));
		return -1;
	}
	return 0;
}

/*
 * serve -- accept one client with the private data, wait until it
 * disconnects, and close the connection in turn.
 */
static int
serve(struct rpma_ep *ep, const uint8_t *pdata, size_t len)
{
	struct rpma_conn_private_data pd = {(void *)pdata, (uint8_t)len};
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	int ret, err = -1;

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret)
		return rpma_fail("rpma_ep_next_conn_req()", ret);
	ret = rpma_conn_req_connect(&req, &pd, &conn);
	if (ret)
		return rpma_fail("rpma_conn_req_connect()", ret);
	if (wait_event(conn, RPMA_CONN_ESTABLISHED))
		goto out;
	printf("server: client connected; waiting for it to write, flush, read and disconnect\n");
	if (wait_event(conn, RPMA_CONN_CLOSED))
		goto out;
	printf("server: client disconnected\n");
	err = 0;
out:
	ret = rpma_conn_disconnect(conn);
	if (ret)
		err = rpma_fail("rpma_conn_disconnect()", ret);
	ret = rpma_conn_delete(&conn);
	if (ret)
		err = rpma_fail("rpma_conn_delete()", ret);
	return err;
}

/*
 * usage -- print how to call the program; returns 2, its exit code.
 */
static int
usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-f PATH] [-m MIB] ADDR PORT\n", prog);
	return 2;
}

/*
 * main -- map and clear the file, register it, listen, serve one client,
 * persist the region and tear everything down in reverse order.
 */
int
main(int argc, char *argv[])
{
	struct pmem pm = {.fd = -1};
	struct ibv_context *dev;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_ep *ep;
	uint8_t pdata[UINT8_MAX];
	size_t pdata_len = 0;
	const char *path = NULL;
	unsigned long mib = DEFAULT_MIB;
	char *end;
	int opt, ret, err = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "f:m:")) != -1) {
		switch (opt) {
		case 'f':
			path = optarg;
			break;
		case 'm':
			errno = 0;
			mib = strtoul(optarg, &end, 0);
			if (errno || *end || mib == 0 || mib > MAX_MIB) {
				fprintf(stderr, "server: -m wants 1 to %d MiB, not '%s'\n", MAX_MIB,
					optarg);
				return 2;
			}
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (argc - optind != 2)
		return usage(argv[0]);
	const char *addr = argv[optind];
	const char *port = argv[optind + 1];

	if (demo_check_librpma("server"))
		return 1;

	if (pmem_open(&pm, path, mib << 20))
		return 1;
	if (pmem_map(&pm, mib << 20))
		goto err_close;

	const char *note = fs_note(pm.fd);

	if (note == NULL)
		goto err_unmap;
	memset(pm.addr, 0, pm.size);
	pm.persist(pm.addr, pm.size);
	printf("server: mapped %s (%zu MiB) with libpmem2 and cleared it\n", pm.path,
	       pm.size >> 20);
	printf("server: store granularity: %s%s\n",
	       granularity_2str(pmem2_map_get_store_granularity(pm.map)), note);

	ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev);
	if (ret) {
		rpma_fail("rpma_utils_get_ibv_context()", ret);
		goto err_unmap;
	}
	ret = rpma_peer_new(dev, &peer);
	if (ret) {
		rpma_fail("rpma_peer_new()", ret);
		goto err_unmap;
	}
	ret = rpma_mr_reg(peer, pm.addr, pm.size, REGION_USAGE, &mr);
	if (ret) {
		rpma_fail("rpma_mr_reg()", ret);
		goto err_peer;
	}
	if (make_pdata(mr, pdata, sizeof(pdata), &pdata_len))
		goto err_dereg;
	printf("server: registered the region for RDMA write, read and persistent flush; "
	       "declaring direct write to PMem\n");
	puts("server: note: softrdma is a software device: what a client writes lands in this "
	     "file's page cache;\n"
	     "server:   a record whose persistent flush completed survives a crash of this "
	     "server process, not of the machine;\n"
	     "server:   the whole region is also persisted with libpmem2's persist function "
	     "when the client disconnects");

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		rpma_fail("rpma_ep_listen()", ret);
		goto err_dereg;
	}
	printf("server: listening on %s:%s\n", addr, port);

	if (serve(ep, pdata, pdata_len))
		goto err_shutdown;

	double t0 = demo_now();

	pm.persist(pm.addr, pm.size);
	printf("server: persisted the whole region (%zu MiB) with pmem2's persist function in %.3f "
	       "s\n",
	       pm.size >> 20, demo_now() - t0);
	err = 0;

err_shutdown:
	ret = rpma_ep_shutdown(&ep);
	if (ret) {
		rpma_fail("rpma_ep_shutdown()", ret);
		err = 1;
	}
err_dereg:
	ret = rpma_mr_dereg(&mr);
	if (ret) {
		rpma_fail("rpma_mr_dereg()", ret);
		err = 1;
	}
err_peer:
	ret = rpma_peer_delete(&peer);
	if (ret) {
		rpma_fail("rpma_peer_delete()", ret);
		err = 1;
	}
err_unmap:
	if (pmem_close(&pm))
		err = 1;
	if (err == 0)
		printf("server: done; the records are in %s\n", pm.path);
	return err;
err_close:
	(void)close(pm.fd);
	return 1;
}
