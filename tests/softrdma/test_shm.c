/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of the same-host data path without system calls: the
 * program runs again as "nosys", under a seccomp filter that makes
 * process_vm_readv and process_vm_writev fail with EPERM, and moves data
 * there between two RC QPs of its own. SENDs (inline, from registered
 * memory, longer than a ring, scattered), SEND with immediate and the
 * results of atomics must work without those calls: a copy between a ring
 * and a process's own registered memory is a memcpy after the MR table
 * check. Over TCP (SOFTRDMA_TRANSPORT=tcp) the same program checks the
 * same results through the sockets.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define BUF	 (512u * 1024)
#define BIG	 (200u * 1024) /* more than a same-host ring holds */
#define T_ATOMIC (T_ACCESS_ALL | IBV_ACCESS_REMOTE_ATOMIC)

/* Make process_vm_readv/writev fail with EPERM in this process from now on. */
static int
forbid_process_vm(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* A pair with roomy queues, 4 SGEs, inline data and atomics allowed at side 1. */
static int
setup(void **state)
{
	const struct t_pair_cfg c = {
	    .cqe = 256,
	    .send_wr = 64,
	    .recv_wr = 64,
	    .sge = 4,
	    .max_inline = 64,
	    .len = BUF,
	    .access = {T_ACCESS_ALL, T_ATOMIC},
	    .rnr_retry = {7, 7},
	};

	*state = t_pair_new(&c);
	return 0;
}

/* Release the pair. */
static int
teardown(void **state)
{
	t_pair_free(*state);
	return 0;
}

/* Wait for a successful completion of @op with @wr_id on @cq. */
static struct ibv_wc
wait_ok(struct ibv_cq *cq, enum ibv_wc_opcode op, uint64_t wr_id)
{
	struct ibv_wc wc = t_wait_wc(cq);

	if (wc.status != IBV_WC_SUCCESS)
		fail_msg("wr %llu: %s", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	assert_int_equal(wc.opcode, op);
	assert_int_equal(wc.wr_id, wr_id);
	return wc;
}

/* 8-byte inline SENDs back and forth, each received in registered memory. */
static void
test_send_inline(void **state)
{
	struct t_pair *p = *state;
	uint64_t v;
	int i, s;

	for (i = 0; i < 200; i++) {
		s = i & 1;
		t_post_recv(p->qp[!s], p->mr[!s], p->buf[!s] + 64, 8, i);
		v = 0x1234567800000000ull + i;
		assert_int_equal(t_post(p->qp[s], IBV_WR_SEND, &v, 8, 0, 0, 0,
					IBV_SEND_SIGNALED | IBV_SEND_INLINE, i),
				 0);
		wait_ok(p->cq[s], IBV_WC_SEND, i);
		assert_int_equal(wait_ok(p->cq[!s], IBV_WC_RECV, i).byte_len, 8);
		assert_memory_equal(p->buf[!s] + 64, &v, 8);
	}
}

/*
 * SENDs from registered memory: @n bytes gathered from three SGEs, received
 * in two, checked byte for byte; then the same with immediate data.
 */
static void
send_gathered(struct t_pair *p, uint32_t n, int imm)
{
	struct ibv_sge s[3], r[2];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;
	uint32_t i, a = n / 3, b = n / 3;

	for (i = 0; i < n; i++)
		p->buf[0][i] = (char)(i * 7 + n + imm);
	memset(p->buf[1], 0, n);
	/* the receiver's two pieces in reverse order in its buffer */
	r[0] = (struct ibv_sge){(uintptr_t)p->buf[1] + BUF / 2, n / 2, p->mr[1]->lkey};
	r[1] = (struct ibv_sge){(uintptr_t)p->buf[1], n - n / 2, p->mr[1]->lkey};
	rwr = (struct ibv_recv_wr){.wr_id = 7, .sg_list = r, .num_sge = 2};
	assert_int_equal(ibv_post_recv(p->qp[1], &rwr, &rbad), 0);
	s[0] = (struct ibv_sge){(uintptr_t)p->buf[0], a, p->mr[0]->lkey};
	s[1] = (struct ibv_sge){(uintptr_t)p->buf[0] + a, b, p->mr[0]->lkey};
	s[2] = (struct ibv_sge){(uintptr_t)p->buf[0] + a + b, n - a - b, p->mr[0]->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 8;
	wr.sg_list = s;
	wr.num_sge = 3;
	wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.imm_data = htonl(0xfeed0000u + n);
	wr.send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(ibv_post_send(p->qp[0], &wr, &bad), 0);
	wait_ok(p->cq[0], IBV_WC_SEND, 8);
	wc = wait_ok(p->cq[1], IBV_WC_RECV, 7);
	assert_int_equal(wc.byte_len, n);
	assert_int_equal(!!(wc.wc_flags & IBV_WC_WITH_IMM), imm);
	if (imm)
		assert_int_equal(ntohl(wc.imm_data), 0xfeed0000u + n);
	assert_memory_equal(p->buf[1] + BUF / 2, p->buf[0], n / 2);
	assert_memory_equal(p->buf[1], p->buf[0] + n / 2, n - n / 2);
}

/* Gathered SENDs of 1 byte, a page and more than a ring, with and without immediate. */
static void
test_send_gathered(void **state)
{
	static const uint32_t sizes[] = {3, 4096, BIG};
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		send_gathered(*state, sizes[i], 0);
		send_gathered(*state, sizes[i], 1);
	}
}

/* Post an atomic @op on side 1's buffer at @off; its result lands in side 0's buffer. */
static uint64_t
atomic_op(struct t_pair *p, struct ibv_mr *amr, enum ibv_wr_opcode op, uint64_t add_cmp,
	  uint64_t swap, uint64_t wr_id)
{
	struct ibv_sge s = {(uintptr_t)p->buf[0] + 256, 8, p->mr[0]->lkey};
	struct ibv_send_wr wr, *bad;
	uint64_t v;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)p->buf[1] + 128;
	wr.wr.atomic.rkey = amr->rkey;
	wr.wr.atomic.compare_add = add_cmp;
	wr.wr.atomic.swap = swap;
	assert_int_equal(ibv_post_send(p->qp[0], &wr, &bad), 0);
	wait_ok(p->cq[0], op == IBV_WR_ATOMIC_FETCH_AND_ADD ? IBV_WC_FETCH_ADD : IBV_WC_COMP_SWAP,
		wr_id);
	memcpy(&v, p->buf[0] + 256, 8);
	return v;
}

/* Fetch-and-add and compare-and-swap: the original values land in local memory. */
static void
test_atomic_results(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *amr = ibv_reg_mr(p->pd, p->buf[1], BUF, T_ATOMIC);
	uint64_t *target = (uint64_t *)(void *)(p->buf[1] + 128);

	assert_non_null(amr);
	*target = 40;
	assert_int_equal(atomic_op(p, amr, IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0, 1), 40);
	assert_int_equal(atomic_op(p, amr, IBV_WR_ATOMIC_CMP_AND_SWP, 42, 7, 2), 42);
	assert_int_equal(*target, 7);
	assert_int_equal(ibv_dereg_mr(amr), 0);
}

/* Run the "nosys" role: the tests under the seccomp filter. */
static int
nosys_main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_send_inline, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_gathered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_results, setup, teardown),
	};

	if (forbid_process_vm()) {
		perror("seccomp");
		return 1;
	}
	return cmocka_run_group_tests_name("nosys", tests, NULL, NULL);
}

/* Run @role of this program in a child and return its exit status (-1: killed). */
static int
run_role(const char *role)
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		execl("/proc/self/exe", "test_shm", role, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The data path tests pass with process_vm_readv/writev forbidden. */
static void
test_no_process_vm(void **state)
{
	(void)state;
	assert_int_equal(run_role("nosys"), 0);
}

/* Run the same-host data path tests. */
int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_process_vm),
	};

	if (argc > 1 && !strcmp(argv[1], "nosys"))
		return nosys_main();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
