/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Disconnect ordering: a receiver that disconnects as soon as its receive
 * completes must not turn the sender's last requests into flush errors. As
 * on RC hardware, the acknowledgement (and READ response) the receiver sent
 * before its DREQ reaches the sender first: the sender's WRITE, READ and
 * SEND complete successfully, its posted receive is flushed, and each side
 * gets exactly one DISCONNECTED event. Looped to catch the race; every wait
 * is bounded.
 */
#include <signal.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define T_ROUNDS 200
#define T_MSG	 64

/* What the receiver tells the sender in its connect private data. */
struct t_remote {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* Receiver-side buffers: one for the SEND, one for WRITE/READ. */
struct t_rbufs {
	char msg[T_MSG];
	char mem[T_MSG];
};

/* Poll @cq for one completion for up to T_WAIT_MS; 0 when one arrived. */
static int
t_poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int64_t end = t_now_ms() + T_WAIT_MS;
	int n;

	while (t_now_ms() < end) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n)
			return 0;
	}
	return -1;
}

/* Next CM event of @type on @ch, acknowledged; 0 on success. */
static int
t_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = t_try_event(ch, T_WAIT_MS);
	int ok;

	if (!ev)
		return -1;
	ok = ev->event == type;
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/*
 * Receiver: connect to 127.0.0.1:@port with a receive posted, wait for the
 * message and disconnect at once. Returns 0 or the failing step's number.
 */
static int
t_receiver_round(struct rdma_event_channel *ch, uint16_t port, struct t_rbufs *b)
{
	struct sockaddr_in dst = t_lo(port);
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param p;
	struct rdma_cm_id *id;
	struct ibv_mr *mmr, *rmr;
	struct ibv_sge s;
	struct ibv_recv_wr wr, *bad;
	struct ibv_wc wc;
	struct t_remote r;
	int rc = 0;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 1;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    t_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(id, 2000) ||
	    t_expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		rdma_destroy_id(id);
		return 2;
	}
	qa = t_rc_attr(NULL, 4, 4, 1);
	if (rdma_create_qp(id, NULL, &qa)) {
		rdma_destroy_id(id);
		return 3;
	}
	mmr = ibv_reg_mr(id->pd, b->msg, sizeof(b->msg), IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(id->pd, b->mem, sizeof(b->mem),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mmr || !rmr) {
		rc = 4;
		goto out;
	}
	s.addr = (uintptr_t)b->msg;
	s.length = sizeof(b->msg);
	s.lkey = mmr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &s;
	wr.num_sge = 1;
	if (ibv_post_recv(id->qp, &wr, &bad)) {
		rc = 5;
		goto out;
	}
	r.addr = (uintptr_t)b->mem;
	r.rkey = rmr->rkey;
	r.len = sizeof(b->mem);
	p = rc_conn_param(&r, sizeof(r));
	if (rdma_connect(id, &p) || t_expect(ch, RDMA_CM_EVENT_ESTABLISHED)) {
		rc = 6;
		goto out;
	}
	if (t_poll_one(id->recv_cq, &wc) || wc.status != IBV_WC_SUCCESS) {
		rc = 7;
		goto out;
	}
	/* the race: disconnect the moment the message is here */
	if (rdma_disconnect(id) || t_expect(ch, RDMA_CM_EVENT_DISCONNECTED))
		rc = 8;
out:
	if (mmr)
		ibv_dereg_mr(mmr);
	if (rmr)
		ibv_dereg_mr(rmr);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return rc;
}

/* Post one signaled WR of @op on @qp. */
static void
t_post_signaled(struct ibv_qp *qp, enum ibv_wr_opcode op, void *buf, struct ibv_mr *mr,
		const struct t_remote *r, uint64_t wr_id)
{
	assert_int_equal(t_post(qp, op, buf, T_MSG, mr->lkey, r ? r->addr : 0, r ? r->rkey : 0,
				IBV_SEND_SIGNALED, wr_id),
			 0);
}

/*
 * Sender: take the next connect request on listener channel @ch, copy the
 * receiver's buffer description into @r, create a QP and accept. Returns
 * the new id.
 */
static struct rdma_cm_id *
t_sender_accept(struct rdma_event_channel *ch, struct t_remote *r)
{
	struct rdma_cm_event *ev = t_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	struct rdma_cm_id *id = ev->id;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param p;

	assert_true(ev->param.conn.private_data_len >= sizeof(*r));
	memcpy(r, ev->param.conn.private_data, sizeof(*r));
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	qa = t_rc_attr(NULL, 8, 4, 1);
	assert_int_equal(rdma_create_qp(id, NULL, &qa), 0);
	p = rc_conn_param(NULL, 0);
	assert_int_equal(rdma_accept(id, &p), 0);
	return id;
}

/* Sender: after the receiver disconnected, check flushes, events and clean up. */
static void
t_sender_finish(struct rdma_event_channel *ch, struct rdma_cm_id *id, struct ibv_mr *mr)
{
	struct ibv_wc wc;

	t_event_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
	/* the receive it had posted is really outstanding: flushed */
	wc = t_wait_wc(id->recv_cq);
	assert_int_equal(wc.wr_id, 100);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(rdma_disconnect(id), 0);
	ibv_dereg_mr(mr);
	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
}

/* Sender: wait for the completion of @wr_id, which must have succeeded. */
static void
t_sender_expect_ok(struct rdma_cm_id *id, uint64_t wr_id, enum ibv_wc_opcode op)
{
	struct ibv_wc wc = t_wait_wc(id->send_cq);

	if (wc.status != IBV_WC_SUCCESS)
		fail_msg("wr %llu: %s", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	assert_int_equal(wc.wr_id, wr_id);
	assert_int_equal(wc.opcode, op);
}

/*
 * Both sides in this process: the receiver's DREQ and the ACK race between
 * the CM thread and the progress thread of the same library.
 */
static void
test_send_then_disconnect_local(void **state)
{
	static char sbuf[T_MSG], rbuf[T_MSG];
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *lis, *cli, *srv;
	struct ibv_mr *smr, *cmr;
	struct rdma_conn_param p;
	struct ibv_wc wc;
	struct t_remote r;
	uint16_t port = t_free_port();
	int i;

	(void)state;
	assert_non_null(sch);
	assert_non_null(cch);
	lis = t_listen(sch, port);
	for (i = 0; i < T_ROUNDS; i++) {
		cli = t_resolve(cch, port);
		t_create_qp(cli);
		cmr = ibv_reg_mr(cli->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
		assert_non_null(cmr);
		t_post_recv(cli->qp, cmr, rbuf, sizeof(rbuf), 1);
		memset(&r, 0, sizeof(r));
		memset(&p, 0, sizeof(p));
		p.private_data = &r;
		p.private_data_len = sizeof(r);
		assert_int_equal(rdma_connect(cli, &p), 0);
		srv = t_sender_accept(sch, &r);
		smr = ibv_reg_mr(srv->pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
		assert_non_null(smr);
		t_post_recv(srv->qp, smr, sbuf, sizeof(sbuf), 100);
		t_event_ack(cch, RDMA_CM_EVENT_ESTABLISHED);
		t_post_signaled(srv->qp, IBV_WR_SEND, sbuf, smr, NULL, 3);
		wc = t_wait_wc(cli->recv_cq);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(rdma_disconnect(cli), 0);
		t_sender_expect_ok(srv, 3, IBV_WC_SEND);
		t_event_ack(cch, RDMA_CM_EVENT_DISCONNECTED);
		/* the server's ESTABLISHED may come before or after the send */
		{
			struct rdma_cm_event *ev = t_try_event(sch, T_WAIT_MS);

			assert_non_null(ev);
			if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
				assert_int_equal(rdma_ack_cm_event(ev), 0);
				t_sender_finish(sch, srv, smr);
			} else {
				assert_int_equal(ev->event, RDMA_CM_EVENT_DISCONNECTED);
				assert_int_equal(rdma_ack_cm_event(ev), 0);
				wc = t_wait_wc(srv->recv_cq);
				assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
				assert_int_equal(rdma_disconnect(srv), 0);
				ibv_dereg_mr(smr);
				rdma_destroy_qp(srv);
				assert_int_equal(rdma_destroy_id(srv), 0);
			}
		}
		ibv_dereg_mr(cmr);
		rdma_destroy_qp(cli);
		assert_int_equal(rdma_destroy_id(cli), 0);
	}
	/* exactly one DISCONNECTED per side */
	t_no_event(sch, 100);
	t_no_event(cch, 100);
	assert_int_equal(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/*
 * Receiver in a child process (same host: rings and process_vm_* on the
 * shm transport): WRITE, READ and SEND in flight when it disconnects.
 */
static void
test_write_read_send_then_disconnect_forked(void **state)
{
	static char sbuf[3][T_MSG];
	struct rdma_event_channel *sch;
	struct rdma_cm_id *lis, *srv;
	struct ibv_mr *smr;
	struct t_remote r;
	uint16_t port = t_free_port();
	int i, status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		static struct t_rbufs b;
		struct rdma_event_channel *ch = rdma_create_event_channel();
		int rc = ch ? 0 : 100;

		alarm(120);
		for (i = 0; !rc && i < T_ROUNDS; i++)
			rc = t_receiver_round(ch, port, &b);
		_exit(rc);
	}
	sch = rdma_create_event_channel();
	assert_non_null(sch);
	lis = t_listen(sch, port);
	for (i = 0; i < T_ROUNDS; i++) {
		srv = t_sender_accept(sch, &r);
		assert_int_equal(r.len, T_MSG);
		smr = ibv_reg_mr(srv->pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
		assert_non_null(smr);
		t_post_recv(srv->qp, smr, sbuf[2], T_MSG, 100);
		t_event_ack(sch, RDMA_CM_EVENT_ESTABLISHED);
		memset(sbuf[0], 'a' + i % 26, T_MSG);
		t_post_signaled(srv->qp, IBV_WR_RDMA_WRITE, sbuf[0], smr, &r, 1);
		t_post_signaled(srv->qp, IBV_WR_RDMA_READ, sbuf[1], smr, &r, 2);
		t_post_signaled(srv->qp, IBV_WR_SEND, sbuf[0], smr, NULL, 3);
		t_sender_expect_ok(srv, 1, IBV_WC_RDMA_WRITE);
		t_sender_expect_ok(srv, 2, IBV_WC_RDMA_READ);
		t_sender_expect_ok(srv, 3, IBV_WC_SEND);
		/* the READ observed the WRITE before it */
		assert_memory_equal(sbuf[0], sbuf[1], T_MSG);
		t_sender_finish(sch, srv, smr);
	}
	t_no_event(sch, 100);
	assert_int_equal(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(sch);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    /* first: it forks before this process starts softrdma's threads */
	    cmocka_unit_test(test_write_read_send_then_disconnect_forked),
	    cmocka_unit_test(test_send_then_disconnect_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
