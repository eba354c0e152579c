/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the peer process of the integration and multi-threaded tests.
 *
 *   server rma PORT [pmem=0|1] [conns=N] [recvs=N] [srq=0|1] [rcq=0|1]
 *                   [shared=0|1] [bye=0|1]
 *	listen on 127.0.0.1:PORT, accept N connections, each with the private
 *	data of common.h (the RMA region, a deregistered region, a region
 *	without flush usages, the peer configuration declaring direct write to
 *	PMem or not); answer every received message with a send_with_imm of a
 *	struct t_echo; when every connection is closed print the region.
 *   server reject PORT
 *	listen, print the private data of the first request and reject it.
 *   server client PORT
 *	connect to 127.0.0.1:PORT and write to the peer's region until the
 *	connection breaks (to be killed by the test).
 *
 * It reports on stdout, one line each: READY (listening), LISTEN_FAILED,
 * PDATA <hex> (a request's private data), EVENT <n> (a connection event),
 * QPN <n>, WC src=<cq|rcq|srq> op= status= len= imm= ctx= (a receive or a
 * failed completion), DUMP <hex> (the region at the end), ERR <text>.
 * Exit code 0 when everything went as expected.
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "common.h"

#define MAX_CONNS 64

struct sconn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_cq *rcq;
	uint32_t qpn;
	int idx;
	bool closed;
};

static struct {
	int pmem, conns, recvs, srq, rcq, shared, bye;
} Opt = {.conns = 1, .recvs = 4};

static struct sconn Conns[MAX_CONNS];
static struct rpma_srq *Srq;
static struct rpma_mr_local *Msg_mr, *Out_mr;
static uint8_t *Msg, *Out;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(STDOUT_FILENO, "ERR %s (%s)\n", buf, rpma_errormsg());
	exit(1);
}

#define CHECK(call)                                                                                \
	do {                                                                                       \
		int ret_ = (call);                                                                 \
		if (ret_)                                                                          \
			die("%s: %s", #call, rpma_err_2str(ret_));                                 \
	} while (0)

static void
print_hex(const char *what, const void *ptr, size_t len)
{
	static char line[T_LINE];
	const uint8_t *p = ptr;
	size_t n = (size_t)snprintf(line, sizeof(line), "%s ", what);

	for (size_t i = 0; i < len && n + 3 < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%02x", p[i]);
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) != (ssize_t)n)
		exit(1);
}

static void
parse_opts(int argc, char *argv[])
{
	for (int i = 3; i < argc; i++) {
		int v;

		if (sscanf(argv[i], "pmem=%d", &v) == 1)
			Opt.pmem = v;
		else if (sscanf(argv[i], "conns=%d", &v) == 1)
			Opt.conns = v;
		else if (sscanf(argv[i], "recvs=%d", &v) == 1)
			Opt.recvs = v;
		else if (sscanf(argv[i], "srq=%d", &v) == 1)
			Opt.srq = v;
		else if (sscanf(argv[i], "rcq=%d", &v) == 1)
			Opt.rcq = v;
		else if (sscanf(argv[i], "shared=%d", &v) == 1)
			Opt.shared = v;
		else if (sscanf(argv[i], "bye=%d", &v) == 1)
			Opt.bye = v;
		else
			die("unknown option %s", argv[i]);
	}
	if (Opt.conns < 1 || Opt.conns > MAX_CONNS || Opt.recvs < 1)
		die("bad options");
}

static struct rpma_peer *
peer_new(enum rpma_util_ibv_context_type type)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	CHECK(rpma_utils_get_ibv_context(T_ADDR, type, &ctx));
	CHECK(rpma_peer_new(ctx, &peer));
	return peer;
}

static void
set_nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
}

/* post the receive of message slot `slot` */
static void
post_recv(struct sconn *c, struct rpma_conn_req *req, int slot)
{
	const void *ctx = (const void *)(uintptr_t)(slot + 1);

	if (Srq)
		CHECK(rpma_srq_recv(Srq, Msg_mr, (size_t)slot * T_MSG, T_MSG, ctx));
	else if (req)
		CHECK(rpma_conn_req_recv(req, Msg_mr, (size_t)slot * T_MSG, T_MSG, ctx));
	else
		CHECK(rpma_recv(c->conn, Msg_mr, (size_t)slot * T_MSG, T_MSG, ctx));
}

/* answer the received message of a receive completion and post it again */
static void
echo(struct sconn *c, const struct ibv_wc *wc, const char *src)
{
	int slot = (int)wc->wr_id - 1;
	bool imm = (wc->wc_flags & IBV_WC_WITH_IMM) != 0;

	dprintf(STDOUT_FILENO, "WC src=%s op=%d status=%d len=%u imm=%d:%u ctx=%d conn=%d\n", src,
		(int)wc->opcode, (int)wc->status, wc->byte_len, imm, imm ? ntohl(wc->imm_data) : 0,
		slot + 1, c ? c->idx : -1);
	if (wc->status != IBV_WC_SUCCESS || c == NULL || c->closed)
		return;
	if (slot < 0 || slot >= Opt.recvs * Opt.conns)
		die("receive completion of unknown context %d", slot + 1);

	struct t_echo *e = (struct t_echo *)(Out + (size_t)slot * T_MSG);

	memset(e, 0, sizeof(*e));
	e->opcode = wc->opcode;
	e->status = wc->status;
	e->byte_len = wc->byte_len;
	e->with_imm = imm;
	e->imm = imm ? ntohl(wc->imm_data) : 0;
	e->ctx = (uint32_t)(slot + 1);
	memcpy(e->data, Msg + (size_t)slot * T_MSG, sizeof(e->data));
	/* the slot is free again before the answer goes out */
	post_recv(c, NULL, slot);
	CHECK(rpma_send_with_imm(c->conn, Out_mr, (size_t)slot * T_MSG, sizeof(*e),
				 RPMA_F_COMPLETION_ALWAYS, imm ? e->imm + 1 : wc->byte_len,
				 (void *)(uintptr_t)(0x10000 + slot)));
}

static struct sconn *
conn_by_qpn(uint32_t qpn)
{
	for (int i = 0; i < Opt.conns; i++)
		if (Conns[i].conn && Conns[i].qpn == qpn)
			return &Conns[i];
	return NULL;
}

static void
drain(struct rpma_cq *cq, struct sconn *c, const char *src)
{
	struct ibv_wc wc[8];
	int n;

	while (rpma_cq_get_wc(cq, 8, wc, &n) == 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS && !(wc[i].opcode & IBV_WC_RECV))
				continue; /* our own sends */
			if (!(wc[i].opcode & IBV_WC_RECV) && wc[i].status != IBV_WC_SUCCESS &&
			    wc[i].wr_id >= 0x10000) {
				dprintf(STDOUT_FILENO, "WC src=%s op=send status=%d\n", src,
					(int)wc[i].status);
				continue;
			}
			echo(Srq ? conn_by_qpn(wc[i].qp_num) : c, &wc[i], src);
		}
	}
}

static int
run_rma(struct rpma_peer *peer, const char *port)
{
	uint8_t *region = aligned_alloc(4096, T_REGION);
	uint8_t *dead = aligned_alloc(4096, T_REGION);
	uint8_t *noflush = aligned_alloc(4096, T_REGION);
	struct rpma_mr_local *mr, *dead_mr, *noflush_mr;
	struct rpma_peer_cfg *pcfg;
	uint8_t pdata[T_PD_SIZE] = {0};
	int slots = Opt.recvs * Opt.conns;

	/* aligned_alloc wants the size a multiple of the alignment */
	size_t msgs_size = ((size_t)slots * T_MSG + 4095) & ~(size_t)4095;

	Msg = aligned_alloc(4096, msgs_size);
	Out = aligned_alloc(4096, msgs_size);
	if (!region || !dead || !noflush || !Msg || !Out)
		die("out of memory");
	for (size_t i = 0; i < T_REGION; i++)
		region[i] = noflush[i] = t_pattern(i);
	memset(Msg, 0, (size_t)slots * T_MSG);

	CHECK(rpma_mr_reg(peer, region, T_REGION,
			  RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			      RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			      RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
			  &mr));
	CHECK(rpma_mr_get_descriptor(mr, pdata + T_PD_MR));
	CHECK(rpma_mr_reg(peer, dead, T_REGION,
			  RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			      RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			  &dead_mr));
	CHECK(rpma_mr_get_descriptor(dead_mr, pdata + T_PD_DEAD));
	CHECK(rpma_mr_dereg(&dead_mr));
	CHECK(rpma_mr_reg(peer, noflush, T_REGION, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST,
			  &noflush_mr));
	CHECK(rpma_mr_get_descriptor(noflush_mr, pdata + T_PD_NOFLUSH));
	CHECK(rpma_peer_cfg_new(&pcfg));
	CHECK(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, Opt.pmem != 0));
	CHECK(rpma_peer_cfg_get_descriptor(pcfg, pdata + T_PD_PCFG));
	CHECK(rpma_mr_reg(peer, Msg, (size_t)slots * T_MSG, RPMA_MR_USAGE_RECV, &Msg_mr));
	CHECK(rpma_mr_reg(peer, Out, (size_t)slots * T_MSG, RPMA_MR_USAGE_SEND, &Out_mr));

	if (Opt.srq) {
		struct rpma_srq_cfg *scfg;

		CHECK(rpma_srq_cfg_new(&scfg));
		CHECK(rpma_srq_cfg_set_rq_size(scfg, (uint32_t)slots));
		CHECK(rpma_srq_cfg_set_rcq_size(scfg, (uint32_t)slots * 2));
		CHECK(rpma_srq_new(peer, scfg, &Srq));
		CHECK(rpma_srq_cfg_delete(&scfg));
		for (int s = 0; s < slots; s++)
			post_recv(NULL, NULL, s);
	}

	struct rpma_conn_cfg *cfg;

	CHECK(rpma_conn_cfg_new(&cfg));
	CHECK(rpma_conn_cfg_set_cq_size(cfg, (uint32_t)Opt.recvs * 4 + 16));
	CHECK(rpma_conn_cfg_set_sq_size(cfg, (uint32_t)Opt.recvs * 2 + 8));
	CHECK(rpma_conn_cfg_set_rq_size(cfg, (uint32_t)Opt.recvs));
	if (Opt.rcq)
		CHECK(rpma_conn_cfg_set_rcq_size(cfg, (uint32_t)Opt.recvs * 2));
	CHECK(rpma_conn_cfg_set_compl_channel(cfg, Opt.shared != 0));
	if (Srq)
		CHECK(rpma_conn_cfg_set_srq(cfg, Srq));

	struct rpma_ep *ep;

	if (rpma_ep_listen(peer, T_ADDR, port, &ep)) {
		dprintf(STDOUT_FILENO, "LISTEN_FAILED\n");
		exit(2);
	}
	dprintf(STDOUT_FILENO, "READY\n");

	for (int i = 0; i < Opt.conns; i++) {
		struct sconn *c = &Conns[i];
		struct rpma_conn_req *req;
		struct rpma_conn_private_data pd;
		struct rpma_conn_private_data acc = {.ptr = pdata, .len = T_PD_SIZE};
		enum rpma_conn_event ev;
		int fd;

		c->idx = i;
		CHECK(rpma_ep_next_conn_req(ep, cfg, &req));
		CHECK(rpma_conn_req_get_private_data(req, &pd));
		print_hex("PDATA", pd.ptr, pd.len);
		if (!Srq)
			for (int s = 0; s < Opt.recvs; s++)
				post_recv(c, req, i * Opt.recvs + s);
		CHECK(rpma_conn_req_connect(&req, &acc, &c->conn));
		CHECK(t_wait_event(c->conn, &ev, T_WAIT_MS));
		dprintf(STDOUT_FILENO, "EVENT %d\n", (int)ev);
		if (ev != RPMA_CONN_ESTABLISHED)
			die("connection %d not established", i);
		CHECK(rpma_conn_get_private_data(c->conn, &pd));
		print_hex("CPDATA", pd.ptr, pd.len);
		CHECK(rpma_conn_get_qp_num(c->conn, &c->qpn));
		dprintf(STDOUT_FILENO, "QPN %u\n", c->qpn);
		CHECK(rpma_conn_get_cq(c->conn, &c->cq));
		CHECK(rpma_conn_get_rcq(c->conn, &c->rcq));
		if (Srq) {
			struct rpma_cq *srq_rcq;

			/* the connection's receive CQ is the shared queue's one */
			CHECK(rpma_srq_get_rcq(Srq, &srq_rcq));
			if (c->rcq != srq_rcq)
				die("rpma_conn_get_rcq() is not the SRQ's CQ");
			c->rcq = NULL; /* drained once for all connections */
		} else if (Opt.rcq != (c->rcq != NULL)) {
			die("rpma_conn_get_rcq() does not follow the configuration");
		}
		CHECK(rpma_conn_get_event_fd(c->conn, &fd));
		set_nonblock(fd);
		if (Opt.shared) {
			CHECK(rpma_conn_get_compl_fd(c->conn, &fd));
			set_nonblock(fd);
		}
		if (Opt.bye)
			CHECK(rpma_conn_disconnect(c->conn));
	}

	struct rpma_cq *srq_rcq = NULL;

	if (Srq)
		CHECK(rpma_srq_get_rcq(Srq, &srq_rcq));

	for (int open = Opt.conns; open > 0;) {
		for (int i = 0; i < Opt.conns; i++) {
			struct sconn *c = &Conns[i];
			enum rpma_conn_event ev;

			if (c->closed)
				continue;
			if (Opt.shared) {
				int ret = rpma_conn_wait(c->conn, 0, NULL, NULL);

				if (ret && ret != RPMA_E_NO_COMPLETION)
					die("rpma_conn_wait: %s", rpma_err_2str(ret));
			}
			drain(c->cq, c, "cq");
			if (c->rcq)
				drain(c->rcq, c, "rcq");
			int ret = rpma_conn_next_event(c->conn, &ev);

			if (ret == RPMA_E_NO_EVENT)
				continue;
			CHECK(ret);
			dprintf(STDOUT_FILENO, "EVENT %d\n", (int)ev);
			c->closed = true;
			open--;
		}
		if (srq_rcq)
			drain(srq_rcq, NULL, "srq");
		usleep(200);
	}

	for (int i = 0; i < Opt.conns; i++) {
		if (!Opt.bye)
			CHECK(rpma_conn_disconnect(Conns[i].conn));
		CHECK(rpma_conn_delete(&Conns[i].conn));
	}
	print_hex("DUMP", region, T_REGION);
	CHECK(rpma_ep_shutdown(&ep));
	CHECK(rpma_conn_cfg_delete(&cfg));
	if (Srq)
		CHECK(rpma_srq_delete(&Srq));
	CHECK(rpma_mr_dereg(&Msg_mr));
	CHECK(rpma_mr_dereg(&Out_mr));
	CHECK(rpma_mr_dereg(&mr));
	CHECK(rpma_mr_dereg(&noflush_mr));
	CHECK(rpma_peer_cfg_delete(&pcfg));
	free(region);
	free(dead);
	free(noflush);
	free(Msg);
	free(Out);
	return 0;
}

static int
run_reject(struct rpma_peer *peer, const char *port)
{
	struct rpma_ep *ep;
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pd;

	if (rpma_ep_listen(peer, T_ADDR, port, &ep)) {
		dprintf(STDOUT_FILENO, "LISTEN_FAILED\n");
		exit(2);
	}
	dprintf(STDOUT_FILENO, "READY\n");
	CHECK(rpma_ep_next_conn_req(ep, NULL, &req));
	CHECK(rpma_conn_req_get_private_data(req, &pd));
	print_hex("PDATA", pd.ptr, pd.len);
	CHECK(rpma_conn_req_delete(&req));
	if (req != NULL)
		die("rpma_conn_req_delete() left the request");
	dprintf(STDOUT_FILENO, "REJECTED\n");
	CHECK(rpma_ep_shutdown(&ep));
	return 0;
}

static int
run_client(struct rpma_peer *peer, const char *port)
{
	static uint8_t src[T_REGION];
	uint8_t pdata[T_PD_SIZE];
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *dst;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct ibv_wc wc;

	memset(src, 0xc5, sizeof(src));
	CHECK(rpma_mr_reg(peer, src, sizeof(src), RPMA_MR_USAGE_WRITE_SRC, &mr));
	CHECK(t_connect(peer, port, NULL, "client", 6, NULL, 0, 0, NULL, &conn, pdata));
	CHECK(rpma_mr_remote_from_descriptor(pdata + T_PD_MR, T_MR_DESC, &dst));
	CHECK(rpma_conn_get_cq(conn, &cq));
	for (unsigned long n = 0;; n++) {
		CHECK(rpma_write(conn, dst, 0, mr, 0, T_REGION, RPMA_F_COMPLETION_ALWAYS, NULL));
		CHECK(t_wait_wc(cq, &wc, T_WAIT_MS));
		if (wc.status != IBV_WC_SUCCESS)
			die("write failed: %s", ibv_wc_status_str(wc.status));
		if (n == 0)
			dprintf(STDOUT_FILENO, "STREAMING\n");
	}
}

int
main(int argc, char *argv[])
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s rma|reject|client PORT [OPTIONS]\n", argv[0]);
		return 2;
	}
	/* never outlive a test that forgot this process */
	alarm(60);
	parse_opts(argc, argv);

	const char *mode = argv[1];
	const char *port = argv[2];

	if (strcmp(mode, "rma") == 0)
		return run_rma(peer_new(RPMA_UTIL_IBV_CONTEXT_LOCAL), port);
	if (strcmp(mode, "reject") == 0)
		return run_reject(peer_new(RPMA_UTIL_IBV_CONTEXT_LOCAL), port);
	if (strcmp(mode, "client") == 0)
		return run_client(peer_new(RPMA_UTIL_IBV_CONTEXT_REMOTE), port);
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
