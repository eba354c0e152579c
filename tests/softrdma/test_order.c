/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion order across CQs. On an RNIC a SEND or a WRITE completes when
 * the responder acknowledges it, which happens before the responder's
 * application can see the message; so when a reply arrives, the completion
 * of the request it answers is already in the requester's send CQ, even
 * when sends and receives complete on separate CQs. A ping-pong of
 * SOFTRDMA_ORDER_ROUNDS rounds (default 10^4) checks that on every round,
 * on both sides. check-softrdma runs it on each transport.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>

#include "softrdma_test.h"

#define MSG 64

struct side {
	struct ibv_comp_channel *ch; /* both CQs report here in event mode */
	struct ibv_cq *scq;	     /* send completions */
	struct ibv_cq *rcq;	     /* receive completions */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf; /* [0, MSG) send, [MSG, 2 MSG) receive, then a WRITE target */
};

struct pingpong {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct side s[2];
	int rounds;
	/* counted by the echo thread, checked by the test */
	int echo_missing_send;
	int echo_errors;
};

/*
 * Wait up to T_WAIT_MS for one completion on @cq: spinning, or, when @ch is
 * set, sleeping on the completion channel @cq shares with another CQ (arm,
 * poll again, then sleep: the second poll closes the lost wake-up window).
 * Returns 0 on a successful completion.
 */
static int
wait_one_on(struct ibv_comp_channel *ch, struct ibv_cq *cq, struct ibv_wc *wc)
{
	int64_t end = t_now_ms() + T_WAIT_MS;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (!n && ch) {
			struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};

			if (ibv_req_notify_cq(cq, 0))
				return -1;
			n = ibv_poll_cq(cq, 1, wc);
			if (!n && poll(&pfd, 1, 100) == 1 && !ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
				ibv_ack_cq_events(ev_cq, 1);
		}
		if (n)
			return n == 1 && wc->status == IBV_WC_SUCCESS ? 0 : -1;
	} while (t_now_ms() < end);
	return -1;
}

/* One completion of @cq, which belongs to @s, the way @s waits. */
static int
wait_one(struct side *s, struct ibv_cq *cq, struct ibv_wc *wc)
{
	return wait_one_on(s->ch, cq, wc);
}

/* Post a receive of MSG bytes into the receive half of @s's buffer. */
static int
post_recv(struct side *s)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + MSG, MSG, s->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;

	return ibv_post_recv(s->qp, &wr, &bad);
}

/*
 * Echo side: each message is answered; when the next message arrives, the
 * completion of the previous answer must already be in the send CQ.
 */
static void *
echo(void *arg)
{
	struct pingpong *pp = arg;
	struct side *b = &pp->s[1];
	struct ibv_wc wc;
	int i;

	for (i = 0; i < pp->rounds; i++) {
		if (wait_one(b, b->rcq, &wc) || wc.opcode != IBV_WC_RECV) {
			pp->echo_errors++;
			return NULL;
		}
		if (i > 0) {
			int n = ibv_poll_cq(b->scq, 1, &wc);

			if (n == 0)
				pp->echo_missing_send++;
			if (n == 0 && wait_one(b, b->scq, &wc))
				n = -1;
			if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
				pp->echo_errors++;
				return NULL;
			}
		}
		if ((i + 1 < pp->rounds && post_recv(b)) ||
		    t_post(b->qp, IBV_WR_SEND, b->buf + MSG, MSG, b->mr->lkey, 0, 0,
			   IBV_SEND_SIGNALED, 2)) {
			pp->echo_errors++;
			return NULL;
		}
	}
	if (wait_one(b, b->scq, &wc))
		pp->echo_errors++;
	return NULL;
}

/*
 * Two QPs, each with its own send CQ and receive CQ, connected; with
 * @events, each side's two CQs share one completion channel.
 */
static struct pingpong *
pingpong_new(int events)
{
	struct pingpong *pp = calloc(1, sizeof(*pp));
	const char *r = getenv("SOFTRDMA_ORDER_ROUNDS");
	int i;

	assert_non_null(pp);
	pp->rounds = r ? atoi(r) : 10000;
	pp->ctx = t_open_dev();
	pp->pd = ibv_alloc_pd(pp->ctx);
	assert_non_null(pp->pd);
	for (i = 0; i < 2; i++) {
		struct side *s = &pp->s[i];
		struct ibv_qp_init_attr ia;

		if (events) {
			s->ch = ibv_create_comp_channel(pp->ctx);
			assert_non_null(s->ch);
			assert_int_equal(fcntl(s->ch->fd, F_SETFL, O_NONBLOCK), 0);
		}
		s->scq = ibv_create_cq(pp->ctx, 16, NULL, s->ch, 0);
		s->rcq = ibv_create_cq(pp->ctx, 16, NULL, s->ch, 0);
		assert_non_null(s->scq);
		assert_non_null(s->rcq);
		ia = t_rc_attr(s->scq, 8, 4, 1);
		ia.recv_cq = s->rcq;
		s->qp = ibv_create_qp(pp->pd, &ia);
		assert_non_null(s->qp);
		s->buf = calloc(1, 4 * MSG);
		assert_non_null(s->buf);
		s->mr = ibv_reg_mr(pp->pd, s->buf, 4 * MSG, T_ACCESS_ALL);
		assert_non_null(s->mr);
	}
	t_connect_qp(pp->s[0].qp, pp->s[1].qp->qp_num, T_ACCESS_ALL, 7);
	t_connect_qp(pp->s[1].qp, pp->s[0].qp->qp_num, T_ACCESS_ALL, 7);
	return pp;
}

/* Release what pingpong_new() made. */
static void
pingpong_free(struct pingpong *pp)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct side *s = &pp->s[i];

		ibv_destroy_qp(s->qp);
		ibv_dereg_mr(s->mr);
		free(s->buf);
		ibv_destroy_cq(s->scq);
		ibv_destroy_cq(s->rcq);
		if (s->ch)
			ibv_destroy_comp_channel(s->ch);
	}
	ibv_dealloc_pd(pp->pd);
	ibv_close_device(pp->ctx);
	free(pp);
}

/*
 * Requester side of one round: a signaled SEND, or (with @write) a
 * signaled WRITE followed by an unsignaled SEND. When the reply is there,
 * the signaled request's completion must be there too.
 */
static int
ping(struct side *a, struct side *b, int write, int *missing)
{
	enum ibv_wc_opcode want = write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;
	struct ibv_wc wc;
	int n;

	if (post_recv(a))
		return -1;
	if (write && t_post(a->qp, IBV_WR_RDMA_WRITE, a->buf, MSG, a->mr->lkey,
			    (uintptr_t)b->buf + 2 * MSG, b->mr->rkey, IBV_SEND_SIGNALED, 3))
		return -1;
	if (t_post(a->qp, IBV_WR_SEND, a->buf, MSG, a->mr->lkey, 0, 0,
		   write ? 0 : IBV_SEND_SIGNALED, 4))
		return -1;
	if (wait_one(a, a->rcq, &wc) || wc.opcode != IBV_WC_RECV)
		return -1;
	n = ibv_poll_cq(a->scq, 1, &wc);
	if (n == 0) {
		(*missing)++;
		n = wait_one(a, a->scq, &wc) ? -1 : 1;
	}
	return n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == want ? 0 : -1;
}

/* Ping-pong with SENDs (even rounds) and WRITE+SEND (odd rounds). */
static void
pingpong_run(int events)
{
	struct pingpong *pp = pingpong_new(events);
	struct side *a = &pp->s[0];
	int i, missing = 0;
	pthread_t thr;

	assert_int_equal(post_recv(&pp->s[1]), 0);
	assert_int_equal(pthread_create(&thr, NULL, echo, pp), 0);
	for (i = 0; i < pp->rounds; i++) {
		if (ping(a, &pp->s[1], i & 1, &missing))
			break;
	}
	pthread_join(thr, NULL);
	print_message("%d rounds: %d replies before their request's completion, "
		      "%d messages before the previous answer's completion\n",
		      i, missing, pp->echo_missing_send);
	assert_int_equal(i, pp->rounds);
	assert_int_equal(pp->echo_errors, 0);
	assert_int_equal(missing, 0);
	assert_int_equal(pp->echo_missing_send, 0);
	pingpong_free(pp);
}

/* Both sides spin on their CQs. */
static void
test_order_polling(void **state)
{
	(void)state;
	pingpong_run(0);
}

/* Both sides sleep on a completion channel shared by their two CQs. */
static void
test_order_events(void **state)
{
	(void)state;
	pingpong_run(1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_polling),
	    cmocka_unit_test(test_order_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
