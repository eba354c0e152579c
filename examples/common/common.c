/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.c -- helpers shared by the librpma examples. Every helper that
 * fails prints what failed and ends the program with a non-zero code, so
 * that the examples themselves stay short and still check every call.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* "server" or "client": the prefix of every line a program prints */
static const char *Role = "example";

/* whether this program is the client (a refused connection ends it with 3) */
static bool Is_client;

/* the temporary file to unlink when the program ends, empty if none */
static char Tmp_path[4096];

/*
 * common_role -- the prefix of the program's messages.
 */
const char *
common_role(void)
{
	return Role;
}

/*
 * usage -- print how to call the program and end it.
 */
static void __attribute__((noreturn)) usage(const char *prog, const char *extra_usage)
{
	fprintf(stderr, "usage: %s ADDR PORT%s%s\n", prog, extra_usage ? " " : "",
		extra_usage ? extra_usage : "");
	exit(2);
}

/*
 * common_init -- remember the role, check the version of the library and
 * split the command line into ADDR, PORT and up to max_extra more arguments.
 * Standard output is line-buffered so that a test reading it through a pipe
 * or a file sees every line as soon as it is printed.
 */
void
common_init(const char *role, int argc, char *argv[], int max_extra, const char *extra_usage,
	    struct common_args *args)
{
	Role = role;
	Is_client = strncmp(role, "client", 6) == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);

	const char *why = rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);

	if (why != NULL)
		common_die("librpma %d.%d is not available: %s", RPMA_MAJOR_VERSION,
			   RPMA_MINOR_VERSION, why);

	if (argc < 3 || argc - 3 > max_extra)
		usage(argv[0], extra_usage);
	args->addr = argv[1];
	args->port = argv[2];
	args->nextra = argc - 3;
	args->extra = argv + 3;
}

/*
 * common_die -- print a message prefixed with the role on stderr and end the
 * program with code 1.
 */
void
common_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", Role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/*
 * common_check -- end the program when an rpma_* call returned an error,
 * saying which call failed, the text of the error code and, when the
 * library left one, its own message.
 */
void
common_check(int ret, const char *what)
{
	if (ret >= 0)
		return;

	const char *msg = rpma_errormsg();

	if (ret == RPMA_E_PROVIDER)
		common_die("%s failed: %s (%s; errno: %s)", what, rpma_err_2str(ret), msg,
			   strerror(errno));
	common_die("%s failed: %s%s%s%s", what, rpma_err_2str(ret), msg[0] ? " (" : "", msg,
		   msg[0] ? ")" : "");
}

/*
 * common_ulong_arg -- the optional numeric argument number idx (after ADDR
 * PORT), or dflt when it was not given; ends the program when it is not a
 * number within [min, max].
 */
unsigned long
common_ulong_arg(const struct common_args *args, int idx, unsigned long dflt, unsigned long min,
		 unsigned long max)
{
	char *end;

	if (idx >= args->nextra)
		return dflt;

	errno = 0;
	unsigned long val = strtoul(args->extra[idx], &end, 0);

	if (errno || end == args->extra[idx] || *end != '\0' || val < min || val > max)
		common_die("invalid argument '%s': expected a number from %lu to %lu",
			   args->extra[idx], min, max);
	return val;
}

/*
 * common_str_arg -- the optional argument number idx, or dflt when it was
 * not given.
 */
const char *
common_str_arg(const struct common_args *args, int idx, const char *dflt)
{
	return idx < args->nextra ? args->extra[idx] : dflt;
}

/*
 * common_alloc -- zeroed, page-aligned memory, as memory registration works
 * best with whole pages.
 */
void *
common_alloc(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *ptr;
	int err;

	if (page <= 0)
		page = 4096;
	err = posix_memalign(&ptr, (size_t)page, size);
	if (err)
		common_die("cannot allocate %zu bytes: %s", size, strerror(err));
	memset(ptr, 0, size);
	return ptr;
}

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
	printf("%s: listening on %s:%s\n", Role, addr, port);
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
 * common_req_new -- prepare an outgoing connection to the server on the
 * command line.
 */
struct rpma_conn_req *
common_req_new(struct rpma_peer *peer, const struct common_args *args,
	       const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req;

	COMMON_CHECK(rpma_conn_req_new(peer, args->addr, args->port, cfg, &req));
	return req;
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
	fprintf(stderr, "%s: the connection was not established: %s\n", Role,
		rpma_utils_conn_event_2str(ev));
	if (Is_client && (ev == RPMA_CONN_REJECTED || ev == RPMA_CONN_UNREACHABLE)) {
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
 * common_opcode_2str -- the name of a completion's opcode, for messages.
 */
const char *
common_opcode_2str(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND:
		return "SEND";
	case IBV_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:
		return "RDMA_READ";
	case IBV_WC_RECV:
		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return "RECV_RDMA_WITH_IMM";
	default:
		return "other";
	}
}

/*
 * common_wait_one -- wait for exactly one completion on cq and check that it
 * succeeded and is of the expected kind. The CQ is polled before waiting:
 * the library arms it when it is created and after every wait, so a
 * completion that arrives after an empty poll always wakes the wait up.
 */
void
common_wait_one(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	struct ibv_wc local;
	int ret;

	if (wc == NULL)
		wc = &local;
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret == 0)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			common_check(ret, "rpma_cq_get_wc()");
		COMMON_CHECK(rpma_cq_wait(cq));
	}

	if (wc->status != IBV_WC_SUCCESS)
		common_die("%s completion failed: %s", common_opcode_2str(opcode),
			   ibv_wc_status_str(wc->status));
	if (wc->opcode != opcode)
		common_die("expected a %s completion, got %s (%d)", common_opcode_2str(opcode),
			   common_opcode_2str(wc->opcode), (int)wc->opcode);
}

/*
 * common_wait_send_recv -- wait for the completion of a send and of a
 * receive that share cq, in whichever order they come; the receive's
 * completion is copied to recv_wc.
 */
void
common_wait_send_recv(struct rpma_cq *cq, struct ibv_wc *recv_wc)
{
	bool got_send = false, got_recv = false;
	struct ibv_wc wc;
	int ret;

	while (!got_send || !got_recv) {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION) {
			COMMON_CHECK(rpma_cq_wait(cq));
			continue;
		}
		common_check(ret, "rpma_cq_get_wc()");

		if (wc.status != IBV_WC_SUCCESS)
			common_die("%s completion failed: %s", common_opcode_2str(wc.opcode),
				   ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND && !got_send) {
			got_send = true;
		} else if (wc.opcode == IBV_WC_RECV && !got_recv) {
			got_recv = true;
			*recv_wc = wc;
		} else {
			common_die("unexpected %s completion", common_opcode_2str(wc.opcode));
		}
	}
}

/*
 * common_remote_mr -- rebuild the peer's memory region from its descriptor
 * in received private data.
 */
struct rpma_mr_remote *
common_remote_mr(const void *desc, size_t len)
{
	struct rpma_mr_remote *mr;

	if (desc == NULL || len < COMMON_MR_DESC_SIZE)
		common_die("the private data (%zu bytes) holds no memory region descriptor", len);
	COMMON_CHECK(rpma_mr_remote_from_descriptor(desc, COMMON_MR_DESC_SIZE, &mr));
	return mr;
}

/*
 * common_mr_descriptor -- write the descriptor of a local region into desc
 * (COMMON_MR_DESC_SIZE bytes), after checking that the library agrees on
 * its size.
 */
void
common_mr_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	size_t size;

	COMMON_CHECK(rpma_mr_get_descriptor_size(mr, &size));
	if (size != COMMON_MR_DESC_SIZE)
		common_die("unexpected memory region descriptor size: %zu", size);
	COMMON_CHECK(rpma_mr_get_descriptor(mr, desc));
}

/*
 * unlink_tmp -- remove the temporary file at exit, also when the program
 * ends on an error.
 */
static void
unlink_tmp(void)
{
	if (Tmp_path[0]) {
		(void)unlink(Tmp_path);
		Tmp_path[0] = '\0';
	}
}

/*
 * pmem2_die -- end the program after a failed libpmem2 call.
 */
static void __attribute__((noreturn)) pmem2_die(const char *what, int ret)
{
	common_die("%s failed: %s (%d)", what, pmem2_errormsg(), ret);
}

/*
 * common_pmem_map -- map size bytes of a file with libpmem2: the file at
 * path (created or extended as needed), or a temporary file in /tmp when
 * path is NULL; size is rounded up to whole pages. The mapping accepts any
 * store granularity, so that an ordinary file system works too; pm->persist
 * makes a range persistent.
 */
void
common_pmem_map(struct common_pmem *pm, const char *path, size_t size)
{
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	struct stat st;
	int ret;

	long page = sysconf(_SC_PAGESIZE);

	/* a mapping covers whole pages */
	if (page <= 0)
		page = 4096;
	size = (size + (size_t)page - 1) / (size_t)page * (size_t)page;

	memset(pm, 0, sizeof(*pm));
	if (path == NULL) {
		snprintf(pm->path, sizeof(pm->path), "/tmp/rpma-example-XXXXXX");
		pm->fd = mkstemp(pm->path);
		if (pm->fd < 0)
			common_die("mkstemp(%s) failed: %s", pm->path, strerror(errno));
		pm->is_tmp = true;
		memcpy(Tmp_path, pm->path, sizeof(Tmp_path));
		if (atexit(unlink_tmp))
			common_die("atexit() failed");
	} else {
		snprintf(pm->path, sizeof(pm->path), "%s", path);
		pm->fd = open(path, O_RDWR | O_CREAT, 0644);
		if (pm->fd < 0)
			common_die("cannot open %s: %s", path, strerror(errno));
	}

	if (fstat(pm->fd, &st))
		common_die("fstat(%s) failed: %s", pm->path, strerror(errno));
	if ((size_t)st.st_size < size && ftruncate(pm->fd, (off_t)size))
		common_die("cannot extend %s to %zu bytes: %s", pm->path, size, strerror(errno));

	if ((ret = pmem2_config_new(&cfg)))
		pmem2_die("pmem2_config_new()", ret);
	if ((ret = pmem2_source_from_fd(&src, pm->fd)))
		pmem2_die("pmem2_source_from_fd()", ret);
	if ((ret = pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE)))
		pmem2_die("pmem2_config_set_required_store_granularity()", ret);
	if ((ret = pmem2_config_set_length(cfg, size)))
		pmem2_die("pmem2_config_set_length()", ret);
	if ((ret = pmem2_map_new(&pm->map, cfg, src)))
		pmem2_die("pmem2_map_new()", ret);
	if ((ret = pmem2_source_delete(&src)))
		pmem2_die("pmem2_source_delete()", ret);
	if ((ret = pmem2_config_delete(&cfg)))
		pmem2_die("pmem2_config_delete()", ret);

	pm->addr = pmem2_map_get_address(pm->map);
	pm->size = size;
	pm->persist = pmem2_get_persist_fn(pm->map);
}

/*
 * common_pmem_unmap -- unmap the file, close it and remove it when it was
 * a temporary one.
 */
void
common_pmem_unmap(struct common_pmem *pm)
{
	int ret = pmem2_map_delete(&pm->map);

	if (ret)
		pmem2_die("pmem2_map_delete()", ret);
	if (close(pm->fd))
		common_die("close(%s) failed: %s", pm->path, strerror(errno));
	if (pm->is_tmp)
		unlink_tmp();
}
