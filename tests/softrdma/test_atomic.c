/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of softrdma's RDMA atomics (compare and swap, fetch and add):
 * the device reports IBV_ATOMIC_HCA, results land in the local buffer in
 * host order and the remote 8 bytes change as the verbs say, many QPs of
 * many threads (and of a second process) adding to one counter lose no
 * update, and the responder's checks fail a misaligned address (remote
 * invalid request), a region or QP without remote atomic access, and a
 * post whose scatter list is not 8 bytes. RC QPs connect over 127.0.0.1;
 * make check-softrdma runs this on both transports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define BUF	     4096
#define T_ATOMIC     (T_ACCESS_ALL | IBV_ACCESS_REMOTE_ATOMIC)
#define HAMMER_QPS   4
#define HAMMER_OPS   2000
#define HAMMER_DEPTH 8

/* A connected pair whose QPs allow remote atomics on @access1's side. */
static struct t_pair *
make_pair(int access1)
{
	const struct t_pair_cfg c = {
	    .cqe = 64,
	    .send_wr = 16,
	    .recv_wr = 8,
	    .sge = 2,
	    .len = BUF,
	    .access = {T_ATOMIC, access1},
	    .rnr_retry = {7, 7},
	};

	return t_pair_new(&c);
}

/*
 * The default pair: side 1's buffer registered again, as @state's second
 * MR, with remote atomic access (the pair's own MRs lack it).
 */
struct t_apair {
	struct t_pair *p;
	struct ibv_mr *amr;
};

/* Build a pair with a remote-atomic MR over side 1's buffer. */
static struct t_apair *
make_apair(int access1, int mr_access)
{
	struct t_apair *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	a->p = make_pair(access1);
	a->amr = ibv_reg_mr(a->p->pd, a->p->buf[1], BUF, mr_access);
	assert_non_null(a->amr);
	return a;
}

/* Default pair: everything allowed. */
static int
setup(void **state)
{
	*state = make_apair(T_ATOMIC, T_ATOMIC);
	return 0;
}

/* Release a pair and its extra MR. */
static int
teardown(void **state)
{
	struct t_apair *a = *state;

	ibv_dereg_mr(a->amr);
	t_pair_free(a->p);
	free(a);
	return 0;
}

/* Post one atomic @op on @qp: result to @res (lkey), target @raddr/@rkey. */
static int
post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, void *res, uint32_t len, uint32_t lkey,
	    uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap, uint64_t wr_id)
{
	struct ibv_sge s = {.addr = (uintptr_t)res, .length = len, .lkey = lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return ibv_post_send(qp, &wr, &bad);
}

/* Run one atomic from side 0 on side 1's buffer at @off; returns its completion. */
static struct ibv_wc
atomic_at(struct t_apair *a, enum ibv_wr_opcode op, size_t off, uint64_t cmp_add, uint64_t swap)
{
	struct t_pair *p = a->p;

	assert_int_equal(post_atomic(p->qp[0], op, p->buf[0], 8, p->mr[0]->lkey,
				     (uintptr_t)p->buf[1] + off, a->amr->rkey, cmp_add, swap, 77),
			 0);
	return t_wait_wc(p->cq[0]);
}

/* The device reports atomics, atomic with every other atomic on it. */
static void
test_caps(void **state)
{
	struct ibv_context *ctx = t_open_dev();
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;

	(void)state;
	assert_int_equal(ibv_query_device(ctx, &a), 0);
	assert_int_equal(a.atomic_cap, IBV_ATOMIC_HCA);
	assert_true(a.max_qp_rd_atom >= 1);
	assert_true(a.max_qp_init_rd_atom >= 1);
	assert_true(a.max_res_rd_atom >= a.max_qp_rd_atom);
	memset(&ax, 0, sizeof(ax));
	assert_int_equal(ibv_query_device_ex(ctx, NULL, &ax), 0);
	assert_int_equal(ax.orig_attr.atomic_cap, IBV_ATOMIC_HCA);
	ibv_close_device(ctx);
}

/* Fetch and add: the original value in host order locally, the sum remotely. */
static void
test_fetch_add(void **state)
{
	struct t_apair *a = *state;
	uint64_t *remote = (uint64_t *)(void *)(a->p->buf[1] + 64);
	uint64_t *local = (uint64_t *)(void *)a->p->buf[0];
	struct ibv_wc wc;

	*remote = 0x1122334455667788ull;
	*local = 0;
	wc = atomic_at(a, IBV_WR_ATOMIC_FETCH_AND_ADD, 64, 0x0100000000000001ull, 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_FETCH_ADD);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.byte_len, 8);
	assert_int_equal(*local, 0x1122334455667788ull);
	assert_int_equal(*remote, 0x1222334455667789ull);
	/* wraps around modulo 2^64 */
	*remote = UINT64_MAX;
	wc = atomic_at(a, IBV_WR_ATOMIC_FETCH_AND_ADD, 64, 2, 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(*local, UINT64_MAX);
	assert_int_equal(*remote, 1);
}

/* Compare and swap: swaps only on a match; the original value comes back either way. */
static void
test_cmp_swap(void **state)
{
	struct t_apair *a = *state;
	uint64_t *remote = (uint64_t *)(void *)(a->p->buf[1] + 128);
	uint64_t *local = (uint64_t *)(void *)a->p->buf[0];
	struct ibv_wc wc;

	*remote = 42;
	wc = atomic_at(a, IBV_WR_ATOMIC_CMP_AND_SWP, 128, 42, 0xdeadbeefcafef00dull);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_COMP_SWAP);
	assert_int_equal(wc.byte_len, 8);
	assert_int_equal(*local, 42);
	assert_int_equal(*remote, 0xdeadbeefcafef00dull);
	/* no match: nothing changes, the value found comes back */
	wc = atomic_at(a, IBV_WR_ATOMIC_CMP_AND_SWP, 128, 42, 7);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(*local, 0xdeadbeefcafef00dull);
	assert_int_equal(*remote, 0xdeadbeefcafef00dull);
	/* the neighbours are untouched */
	assert_int_equal(*(uint64_t *)(void *)(a->p->buf[1] + 120), 0);
	assert_int_equal(*(uint64_t *)(void *)(a->p->buf[1] + 136), 0);
}

/* The extended post interface: wr_atomic_cmp_swp and wr_atomic_fetch_add. */
static void
test_wr_api(void **state)
{
	struct t_apair *a = *state;
	struct t_pair *p = a->p;
	uint64_t *remote = (uint64_t *)(void *)(p->buf[1] + 256);
	uint64_t *local = (uint64_t *)(void *)p->buf[0];
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(p->qp[0]);
	struct ibv_wc wc;

	assert_non_null(x);
	assert_non_null(x->wr_atomic_cmp_swp);
	assert_non_null(x->wr_atomic_fetch_add);
	*remote = 10;
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(x, a->amr->rkey, (uintptr_t)remote, 5);
	ibv_wr_set_sge(x, p->mr[0]->lkey, (uintptr_t)local, 8);
	x->wr_id = 2;
	ibv_wr_atomic_cmp_swp(x, a->amr->rkey, (uintptr_t)remote, 15, 99);
	ibv_wr_set_sge(x, p->mr[0]->lkey, (uintptr_t)(local + 1), 8);
	assert_int_equal(ibv_wr_complete(x), 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.opcode, IBV_WC_FETCH_ADD);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.opcode, IBV_WC_COMP_SWAP);
	assert_int_equal(local[0], 10);
	assert_int_equal(local[1], 15);
	assert_int_equal(*remote, 99);
}

/* A misaligned target: remote invalid request, the memory untouched. */
static void
test_misaligned(void **state)
{
	struct t_apair *a = *state;
	uint64_t before;
	struct ibv_wc wc;

	memset(a->p->buf[1] + 512, 0x5a, 16);
	memcpy(&before, a->p->buf[1] + 516, 8);
	wc = atomic_at(a, IBV_WR_ATOMIC_FETCH_AND_ADD, 516, 1, 0);
	assert_int_equal(wc.status, IBV_WC_REM_INV_REQ_ERR);
	assert_memory_equal(a->p->buf[1] + 516, &before, 8);
}

/* A region registered without remote atomic access: remote access error. */
static void
test_mr_no_atomic(void **state)
{
	struct t_apair *a = *state;
	struct t_pair *p = a->p;
	uint64_t *remote = (uint64_t *)(void *)p->buf[1];

	*remote = 3;
	/* the pair's own MR allows local and remote write and read, not atomics */
	assert_int_equal(post_atomic(p->qp[0], IBV_WR_ATOMIC_CMP_AND_SWP, p->buf[0], 8,
				     p->mr[0]->lkey, (uintptr_t)remote, p->mr[1]->rkey, 3, 4, 1),
			 0);
	assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(*remote, 3);
}

/* A responder QP without IBV_ACCESS_REMOTE_ATOMIC: remote invalid request. */
static void
test_qp_no_atomic(void **state)
{
	struct t_apair *a = make_apair(T_ACCESS_ALL, T_ATOMIC);
	uint64_t *remote = (uint64_t *)(void *)a->p->buf[1];

	(void)state;
	*remote = 3;
	assert_int_equal(atomic_at(a, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 0).status,
			 IBV_WC_REM_INV_REQ_ERR);
	assert_int_equal(*remote, 3);
	teardown((void **)&a);
}

/*
 * Target memory write-protected, then unmapped, after its registration:
 * remote access errors, and the responder (this process) goes on.
 */
static void
test_target_gone(void **state)
{
	struct t_apair *a = *state, *b;

	assert_int_equal(mprotect(a->p->buf[1], BUF, PROT_READ), 0);
	assert_int_equal(atomic_at(a, IBV_WR_ATOMIC_FETCH_AND_ADD, 64, 1, 0).status,
			 IBV_WC_REM_ACCESS_ERR);
	/* a new pair: the first one is in the error state now */
	b = make_apair(T_ATOMIC, T_ATOMIC);
	t_unmap_pages(b->p->buf[1], BUF);
	assert_int_equal(atomic_at(b, IBV_WR_ATOMIC_CMP_AND_SWP, 64, 0, 1).status,
			 IBV_WC_REM_ACCESS_ERR);
	teardown((void **)&b);
}

/* A scatter list of other than 8 bytes is refused at post; a bad lkey fails locally. */
static void
test_bad_local(void **state)
{
	struct t_apair *a = *state;
	struct t_pair *p = a->p;
	uint64_t *remote = (uint64_t *)(void *)(p->buf[1] + 8);

	*remote = 1;
	assert_int_equal(post_atomic(p->qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, p->buf[0], 4,
				     p->mr[0]->lkey, (uintptr_t)remote, a->amr->rkey, 1, 0, 1),
			 EINVAL);
	assert_int_equal(post_atomic(p->qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, p->buf[0], 16,
				     p->mr[0]->lkey, (uintptr_t)remote, a->amr->rkey, 1, 0, 1),
			 EINVAL);
	t_no_wc(p->cq[0], 50);
	assert_int_equal(post_atomic(p->qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, p->buf[0], 8,
				     p->mr[0]->lkey + 0x100000, (uintptr_t)remote, a->amr->rkey, 1,
				     0, 1),
			 0);
	assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_LOC_PROT_ERR);
	assert_int_equal(*remote, 1);
}

/* One hammering QP: its CQ, an 8-byte result slot per WR in flight, the counter. */
struct hammer {
	pthread_t th;
	struct t_pair *p;
	struct ibv_mr *cmr;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint64_t *res;
	uint32_t lkey;
	uint64_t counter;
	uint32_t rkey;
	int use_cas;
	int failed;
};

/* Increment the counter HAMMER_OPS times by compare and swap, retried on a miss. */
static int
hammer_cas(struct hammer *h, int64_t end)
{
	uint64_t guess = 0;
	struct ibv_wc wc;
	int done = 0, n;

	while (done < HAMMER_OPS && t_now_ms() < end) {
		if (post_atomic(h->qp, IBV_WR_ATOMIC_CMP_AND_SWP, h->res, 8, h->lkey, h->counter,
				h->rkey, guess, guess + 1, 0))
			return -1;
		do
			n = ibv_poll_cq(h->cq, 1, &wc);
		while (n == 0 && t_now_ms() < end);
		if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_COMP_SWAP)
			return -1;
		if (*h->res == guess)
			done++;
		guess = *h->res == guess ? guess + 1 : *h->res;
	}
	return done == HAMMER_OPS ? 0 : -1;
}

/* Add 1 to the counter HAMMER_OPS times, HAMMER_DEPTH fetch and adds in flight. */
static int
hammer_run(struct hammer *h)
{
	int posted = 0, done = 0, n, i;
	int64_t end = t_now_ms() + 60000;
	struct ibv_wc wc[HAMMER_DEPTH];

	if (h->use_cas)
		return hammer_cas(h, end);
	while (done < HAMMER_OPS && t_now_ms() < end) {
		while (posted < HAMMER_OPS && posted - done < HAMMER_DEPTH) {
			if (post_atomic(h->qp, IBV_WR_ATOMIC_FETCH_AND_ADD,
					h->res + posted % HAMMER_DEPTH, 8, h->lkey, h->counter,
					h->rkey, 1, 0, posted))
				return -1;
			posted++;
		}
		n = ibv_poll_cq(h->cq, HAMMER_DEPTH, wc);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_FETCH_ADD)
				return -1;
		done += n;
	}
	return done == HAMMER_OPS ? 0 : -1;
}

/* Thread body of one hammering QP. */
static void *
hammer_thread(void *arg)
{
	struct hammer *h = arg;

	h->failed = hammer_run(h);
	return NULL;
}

/* Write all @len bytes of @buf to @fd, or read them; 0 or -1. */
static int
pipe_io(int fd, void *buf, size_t len, int wr)
{
	ssize_t n = wr ? write(fd, buf, len) : read(fd, buf, len);

	return n == (ssize_t)len ? 0 : -1;
}

/* Second process: an RC QP of @pd on @cq; NULL on failure. */
static struct ibv_qp *
child_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = t_rc_attr(cq, 16, 1, 1);

	return cq ? ibv_create_qp(pd, &ia) : NULL;
}

/* Second process: the two hammering QPs and what they use. */
struct child {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *res_mr;
	struct ibv_mr *cmr;
	struct ibv_qp *peer;
	struct hammer h[2];
};

/*
 * Second process: a QP towards the parent's QP (numbers exchanged over
 * @in and @out) and a loopback pair of its own, whose responder is this
 * process's, on the shared @counter. Returns 0 or a step number.
 */
static int
child_setup(struct child *c, int in, int out, uint64_t *counter, uint32_t prkey)
{
	static uint64_t res[2 * HAMMER_DEPTH];
	uint32_t qpn, rqpn;
	int i;

	c->ctx = t_try_open_dev();
	c->pd = c->ctx ? ibv_alloc_pd(c->ctx) : NULL;
	if (!c->pd)
		return 2;
	c->res_mr = ibv_reg_mr(c->pd, res, sizeof(res), T_ATOMIC);
	c->cmr = ibv_reg_mr(c->pd, counter, 8, T_ATOMIC);
	for (i = 0; i < 2; i++) {
		c->h[i].cq = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
		c->h[i].qp = child_qp(c->pd, c->h[i].cq);
		c->h[i].res = res + i * HAMMER_DEPTH;
		c->h[i].counter = (uintptr_t)counter;
		if (!c->h[i].qp || !c->res_mr || !c->cmr)
			return 3;
		c->h[i].lkey = c->res_mr->lkey;
	}
	c->h[0].rkey = prkey;
	c->h[1].rkey = c->cmr->rkey;
	c->peer = child_qp(c->pd, c->h[1].cq);
	qpn = c->h[0].qp->qp_num;
	if (!c->peer || pipe_io(out, &qpn, sizeof(qpn), 1) || pipe_io(in, &rqpn, sizeof(rqpn), 0))
		return 4;
	if (t_qp_to_rts(c->h[0].qp, rqpn, T_ATOMIC, 7) ||
	    t_qp_to_rts(c->h[1].qp, c->peer->qp_num, T_ATOMIC, 7) ||
	    t_qp_to_rts(c->peer, c->h[1].qp->qp_num, T_ATOMIC, 7))
		return 5;
	return 0;
}

/*
 * Second process: hammer the shared counter through the parent's responder
 * and through its own at once. Exit status 0 when every atomic succeeded.
 */
static int
hammer_child(int in, int out, uint64_t *counter, uint32_t prkey)
{
	struct child c;
	int r, i;

	memset(&c, 0, sizeof(c));
	r = child_setup(&c, in, out, counter, prkey);
	if (r)
		return r;
	for (i = 0; i < 2; i++)
		if (pthread_create(&c.h[i].th, NULL, hammer_thread, &c.h[i]))
			return 6;
	for (i = 0; i < 2; i++)
		pthread_join(c.h[i].th, NULL);
	return c.h[0].failed || c.h[1].failed ? 7 : 0;
}

/* Parent: connect @qp to the child's QP over the pipes. */
static void
hammer_parent_connect(struct ibv_qp *qp, int in, int out)
{
	uint32_t qpn = qp->qp_num, cqpn;

	assert_int_equal(pipe_io(in, &cqpn, sizeof(cqpn), 0), 0);
	assert_int_equal(pipe_io(out, &qpn, sizeof(qpn), 1), 0);
	t_connect_qp(qp, cqpn, T_ATOMIC, 7);
}

/* Whether this program runs under ThreadSanitizer (its runtime is loaded). */
static int
under_tsan(void)
{
	return dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
}

/* The second process of the hammer: its QP connected, its pid; 0 when none. */
struct hammer_peer {
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int to_child[2], to_parent[2];
	pid_t pid;
};

/*
 * Start the hammer's second process, adding to @counter through its own
 * responder and through ours (@a's PD and context).
 */
static void
hammer_peer_start(struct hammer_peer *hp, struct t_apair *a, uint64_t *counter)
{
	struct ibv_qp_init_attr ia;

	/* the responder QP of the second process, in the PD of the counter's MR */
	hp->mr = ibv_reg_mr(a->p->pd, counter, 8, T_ATOMIC);
	assert_non_null(hp->mr);
	hp->cq = ibv_create_cq(a->p->ctx, 16, NULL, NULL, 0);
	assert_non_null(hp->cq);
	ia = t_rc_attr(hp->cq, 4, 4, 1);
	hp->qp = ibv_create_qp(a->p->pd, &ia);
	assert_non_null(hp->qp);
	assert_int_equal(pipe(hp->to_child), 0);
	assert_int_equal(pipe(hp->to_parent), 0);
	hp->pid = fork();
	assert_true(hp->pid >= 0);
	if (hp->pid == 0)
		_exit(hammer_child(hp->to_child[0], hp->to_parent[1], counter, hp->mr->rkey));
	hammer_parent_connect(hp->qp, hp->to_parent[0], hp->to_child[1]);
}

/* Wait for the hammer's second process: it must have exited 0; then free its side. */
static void
hammer_peer_end(struct hammer_peer *hp)
{
	int st;

	assert_int_equal(waitpid(hp->pid, &st, 0), hp->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	ibv_destroy_qp(hp->qp);
	ibv_destroy_cq(hp->cq);
	ibv_dereg_mr(hp->mr);
	close(hp->to_child[0]);
	close(hp->to_child[1]);
	close(hp->to_parent[0]);
	close(hp->to_parent[1]);
}

/*
 * Many QPs of many threads add to one counter, in memory shared with a
 * second process, by fetch and add and by a compare and swap loop; the
 * second process adds too, through this process's responder and through
 * its own, which runs on the same memory at the same time: no update is
 * lost. Under ThreadSanitizer, which does not support a child that starts
 * threads after a multithreaded fork, the threads of this process alone.
 */
static void
test_hammer(void **state)
{
	struct t_apair *a = *state;
	struct hammer h[HAMMER_QPS];
	struct hammer_peer hp = {.pid = 0};
	int i, with_peer = !under_tsan();
	uint64_t *counter;

	counter = mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(counter != MAP_FAILED);
	if (with_peer)
		hammer_peer_start(&hp, a, counter);
	for (i = 0; i < HAMMER_QPS; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].p = make_pair(T_ATOMIC);
		/* each pair reaches the counter through an MR in its own PD */
		h[i].cmr = ibv_reg_mr(h[i].p->pd, counter, 8, T_ATOMIC);
		assert_non_null(h[i].cmr);
		h[i].qp = h[i].p->qp[0];
		h[i].cq = h[i].p->cq[0];
		h[i].res = (uint64_t *)(void *)h[i].p->buf[0];
		h[i].lkey = h[i].p->mr[0]->lkey;
		h[i].counter = (uintptr_t)counter;
		h[i].rkey = h[i].cmr->rkey;
		h[i].use_cas = i == HAMMER_QPS - 1;
	}
	for (i = 0; i < HAMMER_QPS; i++)
		assert_int_equal(pthread_create(&h[i].th, NULL, hammer_thread, &h[i]), 0);
	for (i = 0; i < HAMMER_QPS; i++)
		pthread_join(h[i].th, NULL);
	if (with_peer)
		hammer_peer_end(&hp);
	for (i = 0; i < HAMMER_QPS; i++) {
		assert_int_equal(h[i].failed, 0);
		ibv_dereg_mr(h[i].cmr);
		t_pair_free(h[i].p);
	}
	assert_int_equal(__atomic_load_n(counter, __ATOMIC_SEQ_CST),
			 (uint64_t)(HAMMER_QPS + (with_peer ? 2 : 0)) * HAMMER_OPS);
	munmap(counter, BUF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test_setup_teardown(test_fetch_add, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cmp_swap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wr_api, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_misaligned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mr_no_atomic, setup, teardown),
	    cmocka_unit_test(test_qp_no_atomic),
	    cmocka_unit_test_setup_teardown(test_bad_local, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hammer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
