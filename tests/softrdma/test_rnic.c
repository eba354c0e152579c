/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of details unchanged rdma-core programs rely on, where
 * softrdma must answer as librdmacm and libibverbs do on an RNIC: the CM
 * id's default PD, a QP connected again after a reset, the keys kept by
 * ibv_rereg_mr, the ACK timeout set on a CM id, IBV_QP_INIT_ATTR_CREATE_FLAGS
 * asking for nothing, a node GUID that is the same in every process, and a
 * client that does not speak the CM protocol being closed in time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>

#include "softrdma_test.h"

/* Time a silent connection to the CM port may stay open in this test. */
#define T_PENDING_MS 800

/* The pair's usual configuration: one CQ each, small queues, 4 KiB buffers. */
static const struct t_pair_cfg pair_cfg = {
    .cqe = 16,
    .send_wr = 8,
    .recv_wr = 8,
    .sge = 1,
    .len = 4096,
    .access = {T_ACCESS_ALL, T_ACCESS_ALL},
    .rnr_retry = {7, 7},
};

/* Both QPs of @p carry a send and an RDMA write each way. */
static void
pair_traffic(struct t_pair *p, char seed)
{
	struct ibv_wc wc;
	int i, o;

	for (i = 0; i < 2; i++) {
		o = 1 - i;
		memset(p->buf[o], 0, 64);
		memset(p->buf[i], seed + i, 32);
		t_post_recv(p->qp[o], p->mr[o], p->buf[o], 32, 100 + o);
		assert_int_equal(t_post(p->qp[i], IBV_WR_SEND, p->buf[i], 32, p->mr[i]->lkey, 0, 0,
					IBV_SEND_SIGNALED, 200 + i),
				 0);
		wc = t_wait_wc(p->cq[i]);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 200 + i);
		wc = t_wait_wc(p->cq[o]);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 100 + o);
		assert_int_equal(p->buf[o][31], seed + i);
		assert_int_equal(t_post(p->qp[i], IBV_WR_RDMA_WRITE, p->buf[i], 32, p->mr[i]->lkey,
					(uintptr_t)p->buf[o] + 32, p->mr[o]->rkey,
					IBV_SEND_SIGNALED, 300 + i),
				 0);
		wc = t_wait_wc(p->cq[i]);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(p->buf[o][63], seed + i);
	}
}

/* Move @qp to @st with no other attribute. */
static void
qp_to(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
}

/* Drain @cq: every completion left must be a flush error. */
static void
drain_flushed(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) == 1)
		assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
}

/* Take @qp to ERR, drop its flushed completions and reset it. */
static void
qp_err_reset(struct ibv_qp *qp, struct ibv_cq *cq)
{
	qp_to(qp, IBV_QPS_ERR);
	usleep(20 * 1000);
	drain_flushed(cq);
	qp_to(qp, IBV_QPS_RESET);
}

/*
 * An RC pair taken to ERR, then RESET, INIT, RTR and RTS carries traffic
 * again, three times over, whichever order the two sides take: @how 0:
 * both to ERR, then both reset, then both connected; 1: one side all the
 * way back while the other is still in RTS, then the other; 2: both to
 * ERR, then each reset and connected in turn (the first one's connection
 * reaches a QP still in ERR).
 */
static void
qp_reuse(int how)
{
	struct t_pair *p = t_pair_new(&pair_cfg);
	int round, i;

	pair_traffic(p, 'a');
	for (round = 0; round < 3; round++) {
		/* a receive left posted is flushed by the error state */
		t_post_recv(p->qp[1], p->mr[1], p->buf[1] + 1024, 16, 9);
		for (i = 0; how != 1 && i < 2; i++)
			qp_to(p->qp[i], IBV_QPS_ERR);
		for (i = 0; i < 2; i++) {
			qp_err_reset(p->qp[i], p->cq[i]);
			if (how)
				t_connect_qp(p->qp[i], p->qp[1 - i]->qp_num, T_ACCESS_ALL, 7);
		}
		for (i = 0; !how && i < 2; i++)
			t_connect_qp(p->qp[i], p->qp[1 - i]->qp_num, T_ACCESS_ALL, 7);
		pair_traffic(p, (char)('c' + 2 * round));
	}
	t_pair_free(p);
}

/* Both sides to ERR and RESET, then both connected again. */
static void
test_qp_reuse_both(void **state)
{
	(void)state;
	qp_reuse(0);
}

/* One side reset and connected while its peer is still in RTS. */
static void
test_qp_reuse_staggered(void **state)
{
	(void)state;
	qp_reuse(1);
}

/* Both in ERR; the first side back connects to a peer still in ERR. */
static void
test_qp_reuse_peer_in_err(void **state)
{
	(void)state;
	qp_reuse(2);
}

/* Send 16 bytes from the QP of @from to the QP of @to (CM-made CQs) and check them. */
static void
cm_send(struct rdma_cm_id *from, struct rdma_cm_id *to, const char *msg)
{
	char sbuf[16] = "", rbuf[16] = "";
	struct ibv_mr *smr = ibv_reg_mr(from->pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *rmr = ibv_reg_mr(to->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);

	assert_non_null(smr);
	assert_non_null(rmr);
	strncpy(sbuf, msg, sizeof(sbuf) - 1);
	t_post_recv(to->qp, rmr, rbuf, sizeof(rbuf), 1);
	assert_int_equal(t_post(from->qp, IBV_WR_SEND, sbuf, sizeof(sbuf), smr->lkey, 0, 0,
				IBV_SEND_SIGNALED, 2),
			 0);
	assert_int_equal(t_wait_wc(from->send_cq).status, IBV_WC_SUCCESS);
	assert_int_equal(t_wait_wc(to->recv_cq).status, IBV_WC_SUCCESS);
	assert_string_equal(rbuf, msg);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
}

/*
 * QPs the CM connected (with the connection's secret) and disconnected are
 * reset and connected to each other again by hand, and carry traffic.
 */
static void
test_qp_reuse_cm(void **state)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_conn_param cp = rc_conn_param(NULL, 0);
	struct rdma_cm_id *lid, *cli, *srv;
	struct rdma_cm_event *ev;

	(void)state;
	lid = t_listen(sch, 0);
	cli = t_resolve(cch, ntohs(rdma_get_src_port(lid)));
	t_create_qp(cli);
	assert_int_equal(rdma_connect(cli, &cp), 0);
	ev = t_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	rdma_ack_cm_event(ev);
	t_create_qp(srv);
	assert_int_equal(rdma_accept(srv, &cp), 0);
	t_event_ack(cch, RDMA_CM_EVENT_ESTABLISHED);
	t_event_ack(sch, RDMA_CM_EVENT_ESTABLISHED);
	cm_send(cli, srv, "first");
	assert_int_equal(rdma_disconnect(cli), 0);
	t_event_ack(cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(sch, RDMA_CM_EVENT_DISCONNECTED);
	qp_err_reset(cli->qp, cli->send_cq);
	qp_err_reset(srv->qp, srv->send_cq);
	drain_flushed(cli->recv_cq);
	drain_flushed(srv->recv_cq);
	t_connect_qp(cli->qp, srv->qp->qp_num, T_ACCESS_ALL, 7);
	t_connect_qp(srv->qp, cli->qp->qp_num, T_ACCESS_ALL, 7);
	cm_send(cli, srv, "again");
	cm_send(srv, cli, "and back");
	rdma_destroy_qp(srv);
	rdma_destroy_id(srv);
	rdma_destroy_qp(cli);
	rdma_destroy_id(cli);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/* An RDMA read of 16 bytes of @p's side 1 with @rkey completes with @want. */
static void
read_with(struct t_pair *p, uint32_t rkey, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_READ, p->buf[0], 16, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], rkey, IBV_SEND_SIGNALED, 7),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, want);
}

/*
 * ibv_rereg_mr with IBV_REREG_MR_CHANGE_ACCESS or IBV_REREG_MR_CHANGE_PD
 * keeps the keys, and the peer's old rkey keeps working under the new
 * access rights.
 */
static void
test_rereg_keeps_keys(void **state)
{
	struct t_pair *p = t_pair_new(&pair_cfg);
	struct ibv_pd *pd2 = ibv_alloc_pd(p->ctx);
	uint32_t lkey = p->mr[1]->lkey, rkey = p->mr[1]->rkey;

	(void)state;
	assert_non_null(pd2);
	strcpy(p->buf[1], "rereg");
	read_with(p, rkey, IBV_WC_SUCCESS);
	assert_int_equal(ibv_rereg_mr(p->mr[1], IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ),
			 0);
	assert_int_equal(p->mr[1]->lkey, lkey);
	assert_int_equal(p->mr[1]->rkey, rkey);
	memset(p->buf[0], 0, 16);
	read_with(p, rkey, IBV_WC_SUCCESS);
	assert_string_equal(p->buf[0], "rereg");
	assert_int_equal(ibv_rereg_mr(p->mr[1], IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0);
	assert_int_equal(p->mr[1]->lkey, lkey);
	assert_int_equal(p->mr[1]->rkey, rkey);
	assert_ptr_equal(p->mr[1]->pd, pd2);
	assert_int_equal(ibv_rereg_mr(p->mr[1], IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
				      p->pd, NULL, 0, T_ACCESS_ALL),
			 0);
	assert_int_equal(p->mr[1]->lkey, lkey);
	assert_int_equal(p->mr[1]->rkey, rkey);
	read_with(p, rkey, IBV_WC_SUCCESS);
	/* access taken away is enforced under the same key */
	assert_int_equal(ibv_rereg_mr(p->mr[1], IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE),
			 0);
	assert_int_equal(p->mr[1]->rkey, rkey);
	read_with(p, rkey, IBV_WC_REM_ACCESS_ERR);
	t_pair_free(p);
	ibv_dealloc_pd(pd2);
}

/*
 * ibv_create_qp_ex: IBV_QP_INIT_ATTR_CREATE_FLAGS with no flag is
 * accepted, a flag the device does not support is refused.
 */
static void
test_create_flags(void **state)
{
	struct ibv_context *ctx = t_open_dev();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.send_cq = a.recv_cq = cq;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.pd = pd;
	a.create_flags = 0;
	qp = ibv_create_qp_ex(ctx, &a);
	assert_non_null(qp);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	errno = 0;
	assert_null(ibv_create_qp_ex(ctx, &a));
	assert_true(errno == EOPNOTSUPP || errno == EINVAL);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* The node GUID of softrdma0 in this process, in host order. */
static uint64_t
node_guid(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	uint64_t g;

	assert_non_null(l);
	assert_non_null(l[0]);
	g = be64toh(ibv_get_device_guid(l[0]));
	ctx = ibv_open_device(l[0]);
	assert_non_null(ctx);
	assert_int_equal(ibv_query_device(ctx, &da), 0);
	assert_int_equal(be64toh(da.node_guid), g);
	ibv_close_device(ctx);
	ibv_free_device_list(l);
	return g;
}

/* Run this program with --guid in a new process; its answer. */
static uint64_t
child_guid(void)
{
	char line[64] = "";
	int fds[2], st;
	pid_t pid;
	FILE *f;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		execl("/proc/self/exe", "test_rnic", "--guid", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return strtoull(line, NULL, 16);
}

/* The node GUID is the same in every process of the host, and not 0. */
static void
test_guid_stable(void **state)
{
	uint64_t g = node_guid();

	(void)state;
	assert_int_not_equal(g, 0);
	assert_int_equal(child_guid(), g);
	assert_int_equal(child_guid(), g);
}

/* Resolve towards @port, checking the id's verbs and PD after each step. */
static struct rdma_cm_id *
resolve_check_pd(struct rdma_event_channel *ch, uint16_t port)
{
	struct sockaddr_in dst = t_lo(port);
	struct rdma_cm_id *id;

	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_null(id->pd);
	assert_int_equal(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000), 0);
	t_event_ack(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_non_null(id->verbs);
	assert_non_null(id->pd);
	assert_ptr_equal(id->pd->context, id->verbs);
	assert_int_equal(rdma_resolve_route(id, 2000), 0);
	t_event_ack(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	assert_non_null(id->pd);
	return id;
}

/*
 * A CM id has the device's default PD once it has a device: after address
 * resolution, on a connection request, and on an id bound to a local
 * address; QPs and MRs made with it work.
 */
static void
test_id_pd(void **state)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *lid, *cli, *srv, *bound;
	struct sockaddr_in lo = t_lo(0);
	struct ibv_qp_init_attr ia;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	char buf[64] = "default pd";
	struct ibv_mr *mr;

	(void)state;
	assert_non_null(sch);
	assert_non_null(cch);
	lid = t_listen(sch, 0);
	assert_non_null(lid->pd);
	cli = resolve_check_pd(cch, ntohs(rdma_get_src_port(lid)));
	ia = t_rc_attr(NULL, 4, 4, 1);
	assert_int_equal(rdma_create_qp(cli, cli->pd, &ia), 0);
	mr = ibv_reg_mr(cli->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	cp = rc_conn_param(NULL, 0);
	assert_int_equal(rdma_connect(cli, &cp), 0);
	ev = t_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	assert_non_null(srv->verbs);
	assert_non_null(srv->pd);
	assert_ptr_equal(srv->pd, cli->pd);
	rdma_ack_cm_event(ev);
	ia = t_rc_attr(NULL, 4, 4, 1);
	assert_int_equal(rdma_create_qp(srv, srv->pd, &ia), 0);
	assert_int_equal(rdma_accept(srv, &cp), 0);
	t_event_ack(cch, RDMA_CM_EVENT_ESTABLISHED);
	t_event_ack(sch, RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(rdma_disconnect(cli), 0);
	t_event_ack(cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(sch, RDMA_CM_EVENT_DISCONNECTED);
	ibv_dereg_mr(mr);
	rdma_destroy_qp(srv);
	rdma_destroy_id(srv);
	rdma_destroy_qp(cli);
	rdma_destroy_id(cli);
	/* bound to a local address: the device and its PD are known too */
	assert_int_equal(rdma_create_id(cch, &bound, NULL, RDMA_PS_TCP), 0);
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(rdma_bind_addr(bound, (struct sockaddr *)&lo), 0);
	assert_non_null(bound->verbs);
	assert_non_null(bound->pd);
	rdma_destroy_id(bound);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/* The ACK timeout of @id's QP as ibv_query_qp reports it. */
static uint8_t
qp_timeout(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;

	assert_int_equal(ibv_query_qp(id->qp, &qa, IBV_QP_TIMEOUT, &qi), 0);
	return qa.timeout;
}

/*
 * RDMA_OPTION_ID_ACK_TIMEOUT set on either side reaches the QP at RTS and
 * rdma_init_qp_attr; a wrong option length is refused.
 */
static void
test_ack_timeout(void **state)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *lid, *cli, *srv;
	struct rdma_conn_param cp = rc_conn_param(NULL, 0);
	struct rdma_cm_event *ev;
	struct ibv_qp_attr a;
	uint8_t t_cli = 20, t_srv = 9;
	uint32_t wide = 5;
	int mask;

	(void)state;
	lid = t_listen(sch, 0);
	cli = t_resolve(cch, ntohs(rdma_get_src_port(lid)));
	errno = 0;
	assert_int_equal(
	    rdma_set_option(cli, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &wide, sizeof(wide)),
	    -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(
	    rdma_set_option(cli, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t_cli, sizeof(t_cli)),
	    0);
	t_create_qp(cli);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(rdma_init_qp_attr(cli, &a, &mask), 0);
	assert_true(mask & IBV_QP_TIMEOUT);
	assert_int_equal(a.timeout, t_cli);
	assert_int_equal(rdma_connect(cli, &cp), 0);
	ev = t_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	rdma_ack_cm_event(ev);
	assert_int_equal(
	    rdma_set_option(srv, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t_srv, sizeof(t_srv)),
	    0);
	t_create_qp(srv);
	assert_int_equal(rdma_accept(srv, &cp), 0);
	t_event_ack(cch, RDMA_CM_EVENT_ESTABLISHED);
	t_event_ack(sch, RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(qp_timeout(cli), t_cli);
	assert_int_equal(qp_timeout(srv), t_srv);
	assert_int_equal(rdma_disconnect(cli), 0);
	t_event_ack(cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(sch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(srv);
	rdma_destroy_id(srv);
	rdma_destroy_qp(cli);
	rdma_destroy_id(cli);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/* The TCP port behind the RDMA port @port (SOFTRDMA_CM_PORT_OFFSET). */
static uint16_t
tcp_port(uint16_t port)
{
	const char *off = getenv("SOFTRDMA_CM_PORT_OFFSET");

	return (uint16_t)(port + (off ? atoi(off) : 0));
}

/*
 * A plain TCP client of the CM port sends @len bytes of @hello (or
 * nothing); the server must close the connection within the pending
 * timeout and a slack, and still serve an RDMA client afterwards.
 */
static void
foreign_client(const char *hello, size_t len)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *lid = t_listen(sch, 0);
	uint16_t port = ntohs(rdma_get_src_port(lid));
	struct sockaddr_in sin = t_lo(tcp_port(port));
	struct rdma_conn_param cp = rc_conn_param(NULL, 0);
	struct pollfd pfd = {.events = POLLIN};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *cli, *srv;
	int64_t start, took;
	char buf[256];
	ssize_t n = 1;

	pfd.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(pfd.fd >= 0);
	assert_int_equal(connect(pfd.fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	start = t_now_ms();
	if (len)
		assert_int_equal(send(pfd.fd, hello, len, MSG_NOSIGNAL), (ssize_t)len);
	while (n > 0 && t_now_ms() - start < T_PENDING_MS + 3000) {
		if (poll(&pfd, 1, 100) != 1)
			continue;
		n = recv(pfd.fd, buf, sizeof(buf), 0);
	}
	took = t_now_ms() - start;
	if (n > 0 || (n < 0 && errno != ECONNRESET))
		fail_msg("CM port kept a foreign client for %lld ms", (long long)took);
	assert_true(took < T_PENDING_MS + 3000);
	close(pfd.fd);
	t_no_event(sch, 50);
	/* the listener still serves */
	cli = t_resolve(cch, port);
	t_create_qp(cli);
	assert_int_equal(rdma_connect(cli, &cp), 0);
	ev = t_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	assert_int_equal(rdma_reject(srv, NULL, 0), 0);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(srv);
	t_event_ack(cch, RDMA_CM_EVENT_REJECTED);
	rdma_destroy_qp(cli);
	rdma_destroy_id(cli);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/* A client that connects and says nothing (ssh waiting for the banner). */
static void
test_foreign_silent(void **state)
{
	(void)state;
	foreign_client(NULL, 0);
}

/* A client that sends an ssh banner, shorter than a CM message. */
static void
test_foreign_banner(void **state)
{
	static const char banner[] = "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n";

	(void)state;
	foreign_client(banner, sizeof(banner) - 1);
}

/* A client that sends more garbage than a CM message holds. */
static void
test_foreign_garbage(void **state)
{
	char junk[2048];

	(void)state;
	memset(junk, 'G', sizeof(junk));
	foreign_client(junk, sizeof(junk));
}

/* Run the tests; with --guid, print the node GUID and exit (test_guid_stable). */
int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_qp_reuse_both),	 cmocka_unit_test(test_qp_reuse_staggered),
	    cmocka_unit_test(test_qp_reuse_peer_in_err), cmocka_unit_test(test_qp_reuse_cm),
	    cmocka_unit_test(test_rereg_keeps_keys),	 cmocka_unit_test(test_create_flags),
	    cmocka_unit_test(test_guid_stable),		 cmocka_unit_test(test_id_pd),
	    cmocka_unit_test(test_ack_timeout),		 cmocka_unit_test(test_foreign_silent),
	    cmocka_unit_test(test_foreign_banner),	 cmocka_unit_test(test_foreign_garbage),
	};
	char ms[16];

	if (argc == 2 && !strcmp(argv[1], "--guid")) {
		printf("%016llx\n", (unsigned long long)node_guid());
		return 0;
	}
	snprintf(ms, sizeof(ms), "%d", T_PENDING_MS);
	setenv("SOFTRDMA_PENDING_TIMEOUT_MS", ms, 1);
	setenv("SOFTRDMA_CM_TIMEOUT_MS", "2000", 0);
	if (getenv("T_FILTER"))
		cmocka_set_test_filter(getenv("T_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
