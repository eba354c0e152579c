/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection churn: QP pairs and rdma_cm connections created, used and torn
 * down in a loop, and peers killed with SIGKILL in the middle of traffic,
 * for a bounded time each (SOFTRDMA_CHURN_MS, default 2000 ms). These loops
 * race application threads closing connections against the progress thread
 * freeing them; run under AddressSanitizer (make check-slow) they catch a
 * connection used after it was freed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define BUFLEN 4096

/* this program, re-executed as the sender of the peer-kill loop */
static const char *self_path;

/* How long each loop runs. */
static int64_t
churn_ms(void)
{
	const char *s = getenv("SOFTRDMA_CHURN_MS");

	return s ? atoll(s) : 2000;
}

/* One SEND from @from to @to, and one WRITE back, both checked. */
static void
pair_traffic(struct t_pair *p, int from, int to, unsigned char seed)
{
	struct ibv_wc wc;

	memset(p->buf[from], seed, 64);
	t_post_recv(p->qp[to], p->mr[to], p->buf[to], 64, 1);
	assert_int_equal(t_post(p->qp[from], IBV_WR_SEND, p->buf[from], 64, p->mr[from]->lkey, 0, 0,
				IBV_SEND_SIGNALED, 2),
			 0);
	wc = t_wait_wc(p->cq[from]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	wc = t_wait_wc(p->cq[to]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal((unsigned char)p->buf[to][63], seed);
	assert_int_equal(t_post(p->qp[to], IBV_WR_RDMA_WRITE, p->buf[to], 64, p->mr[to]->lkey,
				(uintptr_t)p->buf[from] + 128, p->mr[from]->rkey, IBV_SEND_SIGNALED,
				3),
			 0);
	wc = t_wait_wc(p->cq[to]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal((unsigned char)p->buf[from][128 + 63], seed);
}

static int spin_stop;

/*
 * Keep a core busy. With no idle core, the progress thread woken by a
 * closing application thread tends to run on that thread's core at once,
 * in the middle of the close: the interleaving that used to free a
 * connection still referenced by its QP.
 */
static void *
spinner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&spin_stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

/*
 * QP pairs built, used in both directions and destroyed, over and over,
 * while spinners keep every core busy.
 */
static void
test_pair_churn(void **state)
{
	long i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t spin[4];
	const struct t_pair_cfg cfg = {
	    .cqe = 16,
	    .send_wr = 8,
	    .recv_wr = 8,
	    .sge = 1,
	    .len = BUFLEN,
	    .access = {T_ACCESS_ALL, T_ACCESS_ALL},
	    .rnr_retry = {7, 7},
	};
	int64_t end = t_now_ms() + churn_ms();
	int rounds = 0;

	(void)state;
	ncpu = ncpu < 1 ? 1 : ncpu > 4 ? 4 : ncpu;
	__atomic_store_n(&spin_stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < ncpu; i++)
		assert_int_equal(pthread_create(&spin[i], NULL, spinner, NULL), 0);
	do {
		struct t_pair *p = t_pair_new(&cfg);

		pair_traffic(p, rounds & 1, !(rounds & 1), (unsigned char)rounds);
		/* one side torn down while the other still holds the connection */
		ibv_destroy_qp(p->qp[rounds & 1]);
		p->qp[rounds & 1] =
		    ibv_create_qp(p->pd, &(struct ibv_qp_init_attr){.send_cq = p->cq[rounds & 1],
								    .recv_cq = p->cq[rounds & 1],
								    .qp_type = IBV_QPT_RC,
								    .cap = {.max_send_wr = 1,
									    .max_recv_wr = 1,
									    .max_send_sge = 1,
									    .max_recv_sge = 1}});
		assert_non_null(p->qp[rounds & 1]);
		t_pair_free(p);
		rounds++;
	} while (t_now_ms() < end);
	__atomic_store_n(&spin_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < ncpu; i++)
		pthread_join(spin[i], NULL);
	print_message("%d pair rounds\n", rounds);
	assert_true(rounds > 0);
}

/* rdma_cm connect, one message each way, disconnect, destroy, in a loop. */
static void
test_cm_churn(void **state)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	int64_t end = t_now_ms() + churn_ms();
	struct rdma_cm_id *lis, *srv, *cli;
	struct rdma_conn_param cp = rc_conn_param(NULL, 0);
	struct rdma_cm_event *ev;
	uint16_t port;
	int rounds = 0;

	(void)state;
	assert_non_null(sch);
	assert_non_null(cch);
	lis = t_listen(sch, 0);
	port = ntohs(rdma_get_src_port(lis));
	do {
		cli = t_resolve(cch, port);
		t_create_qp(cli);
		assert_int_equal(rdma_connect(cli, &cp), 0);
		ev = t_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
		srv = ev->id;
		rdma_ack_cm_event(ev);
		t_create_qp(srv);
		assert_int_equal(rdma_accept(srv, &cp), 0);
		t_event_ack(cch, RDMA_CM_EVENT_ESTABLISHED);
		t_event_ack(sch, RDMA_CM_EVENT_ESTABLISHED);
		/* alternate which side leaves first */
		assert_int_equal(rdma_disconnect(rounds & 1 ? srv : cli), 0);
		t_event_ack(cch, RDMA_CM_EVENT_DISCONNECTED);
		t_event_ack(sch, RDMA_CM_EVENT_DISCONNECTED);
		rdma_destroy_qp(cli);
		rdma_destroy_id(cli);
		rdma_destroy_qp(srv);
		rdma_destroy_id(srv);
		rounds++;
	} while (t_now_ms() < end);
	print_message("%d cm rounds\n", rounds);
	rdma_destroy_id(lis);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/*
 * Child role: connect a QP to the QP number read from stdin, print its own
 * number, then send to the parent until killed.
 */
static int
run_sender(void)
{
	struct ibv_context *ctx = t_try_open_dev();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr ia;
	static char buf[BUFLEN];
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	unsigned int remote;
	struct ibv_wc wc[8];
	int out = 0;

	/* never outlive the test, whatever becomes of it */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		return 1;
	if (!cq || scanf("%u", &remote) != 1)
		return 1;
	ia = t_rc_attr(cq, 16, 1, 1);
	qp = ibv_create_qp(pd, &ia);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), T_ACCESS_ALL);
	if (!qp || !mr || t_qp_to_rts(qp, remote, T_ACCESS_ALL, 7))
		return 1;
	printf("%u\n", qp->qp_num);
	fflush(stdout);
	for (;;) {
		int i, n;

		while (out < 16 &&
		       !t_post(qp, IBV_WR_SEND, buf, 256, mr->lkey, 0, 0, IBV_SEND_SIGNALED, 0))
			out++;
		n = ibv_poll_cq(cq, 8, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return 0; /* the parent's QP is gone */
		}
		out -= n;
	}
}

/* Receive from a child sender, kill it mid-stream, destroy the QP; repeat. */
static void
test_peer_kill_churn(void **state)
{
	int64_t end = t_now_ms() + churn_ms();
	struct ibv_context *ctx = t_open_dev();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	static char buf[16][256];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), T_ACCESS_ALL);
	int rounds = 0;

	(void)state;
	assert_non_null(mr);
	do {
		struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		struct ibv_qp_init_attr ia = t_rc_attr(cq, 1, 16, 1);
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);
		int to[2], from[2], i, st;
		unsigned int remote;
		struct ibv_wc wc;
		FILE *in, *out;
		pid_t pid;

		assert_non_null(qp);
		assert_int_equal(pipe2(to, O_CLOEXEC), 0);
		assert_int_equal(pipe2(from, O_CLOEXEC), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			dup2(to[0], 0);
			dup2(from[1], 1);
			execl(self_path, "test_churn", "sender", (char *)NULL);
			_exit(127);
		}
		close(to[0]);
		close(from[1]);
		in = fdopen(to[1], "w");
		out = fdopen(from[0], "r");
		fprintf(in, "%u\n", qp->qp_num);
		fflush(in);
		assert_int_equal(fscanf(out, "%u", &remote), 1);
		t_connect_qp(qp, remote, T_ACCESS_ALL, 7);
		for (i = 0; i < 16; i++)
			t_post_recv(qp, mr, buf[i], 256, i);
		wc = t_wait_wc(cq);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		/* kill at a different point of the stream each round */
		usleep(rounds % 7 * 100);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		fclose(in);
		fclose(out);
		assert_int_equal(ibv_destroy_qp(qp), 0);
		assert_int_equal(ibv_destroy_cq(cq), 0);
		rounds++;
	} while (t_now_ms() < end);
	print_message("%d peer-kill rounds\n", rounds);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pair_churn),
	    cmocka_unit_test(test_cm_churn),
	    cmocka_unit_test(test_peer_kill_churn),
	};

	self_path = argv[0];
	if (argc > 1 && !strcmp(argv[1], "sender"))
		return run_sender();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
