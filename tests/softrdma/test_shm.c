/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of the same-host data path without system calls: the
 * program runs again as "nosys", without capabilities and under a seccomp
 * filter that makes process_vm_readv and process_vm_writev fail with
 * EPERM, and moves data there between two RC QPs of its own. SENDs
 * (inline, from registered memory, longer than a ring, scattered), SEND
 * with immediate and the results of atomics must work without those calls
 * (a copy between a ring and a process's own registered memory is a memcpy
 * after the MR table check), and so must RDMA WRITE and READ to shareable
 * memory (a memfd or a file mapped MAP_SHARED), which the initiator maps
 * itself. The other tests check the shareable path's semantics with a
 * second process: deregistration, a peer killed, a truncated file, bounds.
 * Over TCP (SOFTRDMA_TRANSPORT=tcp) the same program checks the same
 * results through the sockets.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define BUF	 (512u * 1024)
#define BIG	 (200u * 1024) /* more than a same-host ring holds */
#define T_ATOMIC (T_ACCESS_ALL | IBV_ACCESS_REMOTE_ATOMIC)
#define SH_LEN	 (4u << 20) /* a shareable buffer: 4 MiB */
#define SH_MB	 (1u << 20)

/* Drop every capability: the descriptors of MRs are then found as a user's are. */
static int
drop_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

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

/* A shareable buffer: @len bytes of a memfd mapped MAP_SHARED; its descriptor in *@fd. */
static char *
sh_memfd(size_t len, int *fd)
{
	char *m;

	*fd = memfd_create("test_shm", MFD_CLOEXEC);
	assert_true(*fd >= 0);
	assert_int_equal(ftruncate(*fd, len), 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	assert_true(m != MAP_FAILED);
	return m;
}

/*
 * A shareable buffer from a new file in $TMPDIR (or /tmp), mapped
 * MAP_SHARED, its descriptor closed: the mapping alone keeps it, as for a
 * region file a server opened, mapped and closed. Its path goes to @path
 * (at least 256 bytes), for the caller to remove.
 */
static char *
sh_file(size_t len, char *path)
{
	const char *dir = getenv("TMPDIR");
	char *m;
	int fd;

	snprintf(path, 256, "%s/test_shm.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, len), 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	return m;
}

/* Fill @n bytes at @p with a pattern of @seed. */
static void
fill(char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(i * 13 + seed);
}

/*
 * WRITE and READ of 8 bytes and of 1 MiB (from three local pieces) between
 * side 0 and @mr over @remote, checked byte for byte on both sides.
 */
static void
write_read(struct t_pair *p, struct ibv_mr *mr, char *remote)
{
	static const uint32_t sizes[] = {8, SH_MB};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		uint32_t n = sizes[i], off = 4096 * (i + 1) + 8;

		fill(p->buf[0], n, i + 1);
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], n, p->mr[0]->lkey,
					(uintptr_t)remote + off, mr->rkey, IBV_SEND_SIGNALED,
					10 + i),
				 0);
		wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 10 + i);
		assert_memory_equal(remote + off, p->buf[0], n);
		fill(remote + off, n, i + 7);
		memset(p->buf[0], 0, n);
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_READ, p->buf[0], n, p->mr[0]->lkey,
					(uintptr_t)remote + off, mr->rkey, IBV_SEND_SIGNALED,
					20 + i),
				 0);
		wait_ok(p->cq[0], IBV_WC_RDMA_READ, 20 + i);
		assert_memory_equal(p->buf[0], remote + off, n);
	}
}

/*
 * One SEND from side 0 to side 1: the requester connection is answered and
 * its rings are up once it completes. Before that, a one-sided operation
 * waits for the rings and is then served by the responder, which reaches
 * its memory through the kernel.
 */
static void
warm_up(struct t_pair *p)
{
	t_post_recv(p->qp[1], p->mr[1], p->buf[1], 8, 99);
	assert_int_equal(t_post(p->qp[0], IBV_WR_SEND, p->buf[0], 8, p->mr[0]->lkey, 0, 0,
				IBV_SEND_SIGNALED, 98),
			 0);
	wait_ok(p->cq[0], IBV_WC_SEND, 98);
	wait_ok(p->cq[1], IBV_WC_RECV, 99);
}

/* A pair whose side-0 buffer holds a 1 MiB message, its rings up. */
static int
setup_big(void **state)
{
	const struct t_pair_cfg c = {
	    .cqe = 256,
	    .send_wr = 64,
	    .recv_wr = 64,
	    .sge = 4,
	    .max_inline = 64,
	    .len = 2 * SH_MB,
	    .access = {T_ACCESS_ALL, T_ACCESS_ALL},
	    .rnr_retry = {7, 7},
	};

	*state = t_pair_new(&c);
	warm_up(*state);
	return 0;
}

/* WRITE and READ into a memfd and into a file, each mapped MAP_SHARED. */
static void
test_shareable_write_read(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	char *m, path[256];
	int fd;

	m = sh_memfd(SH_LEN, &fd);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	write_read(p, mr, m);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(m, SH_LEN);
	close(fd);
	m = sh_file(SH_LEN, path);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	write_read(p, mr, m);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(m, SH_LEN);
	assert_int_equal(unlink(path), 0);
}

/*
 * The rkey of a deregistered shareable MR fails at once, though its
 * memory was mapped by the initiator: REM_ACCESS_ERR, nothing written.
 */
static void
test_shareable_dereg(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint32_t rkey;
	char *m;
	int fd;

	m = sh_memfd(SH_LEN, &fd);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	rkey = mr->rkey;
	strcpy(p->buf[0], "mapped");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)m, rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
	assert_string_equal(m, "mapped");
	assert_int_equal(ibv_dereg_mr(mr), 0);
	strcpy(p->buf[0], "stale");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)m, rkey, IBV_SEND_SIGNALED, 2),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_string_equal(m, "mapped");
	munmap(m, SH_LEN);
	close(fd);
}

/*
 * A new translation (ibv_rereg_mr) of a shareable MR: the old rkey fails,
 * the new one reaches the new memory.
 */
static void
test_shareable_rereg(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	uint32_t old;
	char *a, *b;
	int fa, fb;

	a = sh_memfd(SH_LEN, &fa);
	b = sh_memfd(SH_LEN, &fb);
	mr = ibv_reg_mr(p->pd, a, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	old = mr->rkey;
	strcpy(p->buf[0], "first");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)a, old, IBV_SEND_SIGNALED, 1),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
	assert_int_equal(
	    ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b, SH_LEN, T_ACCESS_ALL), 0);
	assert_int_not_equal(mr->rkey, old);
	strcpy(p->buf[0], "second");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)b, mr->rkey, IBV_SEND_SIGNALED, 2),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 2);
	assert_string_equal(a, "first");
	assert_string_equal(b, "second");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)a, old, IBV_SEND_SIGNALED, 3),
			 0);
	assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_REM_ACCESS_ERR);
	assert_string_equal(a, "first");
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(a, SH_LEN);
	munmap(b, SH_LEN);
	close(fa);
	close(fb);
}

/*
 * Open descriptors of this process that name the test's memfds (all of them
 * with @all): softrdma's own threads open and close descriptors of their own
 * (a connection's ring until the peer has mapped it), so only the test's
 * files can be counted exactly.
 */
static int
fd_count_of(int all)
{
	char path[300], link[300];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;
	ssize_t k;

	assert_non_null(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || atoi(d->d_name) == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		link[k > 0 ? k : 0] = '\0';
		n += all || !strncmp(link, "/memfd:test_shm", 15);
	}
	closedir(dir);
	return n;
}

/* Descriptors of the test's memfds: its own, and those softrdma holds. */
static int
fd_count(void)
{
	return fd_count_of(0);
}

/*
 * Descriptors held for shareable MRs: one per file however many MRs cover
 * it, and no more than an eighth of RLIMIT_NOFILE in all (the MRs beyond
 * work through the kernel); all of them go with the MRs.
 */
static void
test_shareable_fds(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr[64];
	struct rlimit old, rl;
	int fd[64], base, i, n = 64;
	char *m[64];

	base = fd_count();
	m[0] = sh_memfd(SH_LEN, &fd[0]);
	for (i = 0; i < 40; i++) {
		mr[i] = ibv_reg_mr(p->pd, m[0] + i * 4096, 4096, T_ACCESS_ALL);
		assert_non_null(mr[i]);
	}
	assert_true(fd_count() <= base + 2);
	for (i = 0; i < 40; i++)
		assert_int_equal(ibv_dereg_mr(mr[i]), 0);
	assert_int_equal(fd_count(), base + 1);
	munmap(m[0], SH_LEN);
	close(fd[0]);
	/* a limit of all + 160: at most 20 + all / 8 files held */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	rl = old;
	rl.rlim_cur = fd_count_of(1) + 160;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (i = 0; i < n; i++) {
		m[i] = sh_memfd(4096, &fd[i]);
		mr[i] = ibv_reg_mr(p->pd, m[i], 4096, T_ACCESS_ALL);
		assert_non_null(mr[i]);
	}
	assert_true(fd_count() - base - n <= (int)rl.rlim_cur / 8);
	strcpy(p->buf[0], "last");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 5, p->mr[0]->lkey,
				(uintptr_t)m[n - 1], mr[n - 1]->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
	assert_string_equal(m[n - 1], "last");
	for (i = 0; i < n; i++) {
		assert_int_equal(ibv_dereg_mr(mr[i]), 0);
		munmap(m[i], 4096);
		close(fd[i]);
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(fd_count(), base);
}

/* Whether this run uses the TCP transport. */
static int
over_tcp(void)
{
	const char *t = getenv("SOFTRDMA_TRANSPORT");

	return t && !strcmp(t, "tcp");
}

/* How many mappings of @fd's file this process has. */
static int
mappings_of(int fd)
{
	char line[512], want[64];
	struct stat st;
	int n = 0;
	FILE *f;

	assert_int_equal(fstat(fd, &st), 0);
	snprintf(want, sizeof(want), " %llu ", (unsigned long long)st.st_ino);
	f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, want) != NULL;
	fclose(f);
	return n;
}

/*
 * The initiator's mapping of a deregistered MR goes within a few accesses
 * of the connection to other memory: the file's pages are not held for
 * long by a peer after the region is gone.
 */
static void
test_shareable_stale_unmapped(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	int fd, i;
	char *m;

	m = sh_memfd(SH_LEN, &fd);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)m, mr->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
	assert_int_equal(mappings_of(fd), over_tcp() ? 1 : 2);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	for (i = 0; i < 2 * 64; i++) {
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
					(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED,
					10 + i),
				 0);
		wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 10 + i);
	}
	assert_int_equal(mappings_of(fd), 1);
	munmap(m, SH_LEN);
	close(fd);
}

/*
 * Bounds: an MR over the middle two pages of a four-page memfd. The
 * initiator maps those two pages only, a WRITE running past the MR's end
 * is a remote access error, and the page after it is untouched.
 */
static void
test_shareable_bounds(void **state)
{
	struct t_pair *p = *state;
	long pg = sysconf(_SC_PAGESIZE);
	char line[512], want[64];
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct stat st;
	int fd, sizes = 0;
	char *m;
	FILE *f;

	m = sh_memfd(4 * pg, &fd);
	mr = ibv_reg_mr(p->pd, m + pg, 2 * pg, T_ACCESS_ALL);
	assert_non_null(mr);
	strcpy(p->buf[0], "in range");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 9, p->mr[0]->lkey,
				(uintptr_t)m + pg, mr->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
	assert_string_equal(m + pg, "in range");
	/* the memfd is mapped twice here: 4 pages by its owner, 2 by the initiator */
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(want, sizeof(want), " %llu ", (unsigned long long)st.st_ino);
	f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (strstr(line, want) && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			sizes |= (hi - lo == 4ul * pg) | (hi - lo == 2ul * pg) << 1;
		assert_false(strstr(line, want) && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
			     hi - lo != 4ul * pg && hi - lo != 2ul * pg);
	}
	fclose(f);
	if (!over_tcp())
		assert_int_equal(sizes, 3);
	memset(p->buf[0], 0x77, 64);
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 16, p->mr[0]->lkey,
				(uintptr_t)m + 3 * pg - 8, mr->rkey, IBV_SEND_SIGNALED, 2),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(m[3 * pg], 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(m, 4 * pg);
	close(fd);
}

/*
 * A shareable MR whose file was cut short after registration: the
 * initiator does not map what is gone, the WRITE is a remote access
 * error, and nobody crashes.
 */
static void
test_shareable_truncated(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char *m;
	int fd;

	m = sh_memfd(SH_LEN, &fd);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 64, p->mr[0]->lkey,
				(uintptr_t)m + SH_LEN / 2, mr->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(m, SH_LEN);
	close(fd);
}

/*
 * A shareable MR whose memory the target unmapped (without deregistering
 * it): the WRITE lands in the file, as an RNIC writes the pages it pinned.
 * Anonymous memory gives a remote access error instead (test_errors).
 */
static void
test_shareable_unmapped(void **state)
{
	struct t_pair *p = *state;
	struct ibv_mr *mr;
	char got[16] = "";
	char *m;
	int fd;

	m = sh_memfd(SH_LEN, &fd);
	mr = ibv_reg_mr(p->pd, m, SH_LEN, T_ACCESS_ALL);
	assert_non_null(mr);
	assert_int_equal(munmap(m, SH_LEN), 0);
	strcpy(p->buf[0], "in the file");
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 12, p->mr[0]->lkey,
				(uintptr_t)m + 4096, mr->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	if (!over_tcp()) {
		wait_ok(p->cq[0], IBV_WC_RDMA_WRITE, 1);
		assert_int_equal(pread(fd, got, 12, 4096), 12);
		assert_string_equal(got, "in the file");
	} else {
		/* over TCP the target's progress thread writes its own mapping */
		assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_REM_ACCESS_ERR);
	}
	assert_int_equal(ibv_dereg_mr(mr), 0);
	close(fd);
}

/*
 * Run the "nosys" role: the tests under the seccomp filter, without
 * capabilities. Over TCP a responder serves one-sided operations through
 * the kernel: only the two-sided tests run there.
 */
static int
nosys_main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_send_inline, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_gathered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_results, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_write_read, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_dereg, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_rereg, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_bounds, setup_big, teardown),
	};

	if (drop_caps() || forbid_process_vm()) {
		perror("capabilities or seccomp");
		return 1;
	}
	if (over_tcp())
		return _cmocka_run_group_tests("nosys", tests, 3, NULL, NULL);
	return cmocka_run_group_tests_name("nosys", tests, NULL, NULL);
}

/* ---- a target in a second process: a memfd MR, served until told otherwise ---- */

/* Target role: connect to the QP named on stdin, then obey commands. */
static int
target_main(void)
{
	struct ibv_context *ctx = t_try_open_dev();
	struct ibv_qp_init_attr ia;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char line[128];
	unsigned int a, b, c;
	int fd;
	char *m;

	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	fd = memfd_create("test_shm_target", MFD_CLOEXEC);
	if (!pd || !cq || fd < 0 || ftruncate(fd, SH_LEN))
		return 1;
	m = mmap(NULL, SH_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ia = t_rc_attr(cq, 16, 16, 1);
	qp = ibv_create_qp(pd, &ia);
	mr = m == MAP_FAILED ? NULL : ibv_reg_mr(pd, m, SH_LEN, T_ACCESS_ALL);
	if (!qp || !mr)
		return 1;
	printf("READY %u %u %llu\n", qp->qp_num, mr->rkey, (unsigned long long)(uintptr_t)m);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int ok = 1;

		if (sscanf(line, "CONNECT %u", &a) == 1) {
			ok = !t_qp_to_rts(qp, a, T_ACCESS_ALL, 7);
		} else if (sscanf(line, "CHECK %u %u %u", &a, &b, &c) == 3) {
			for (unsigned int i = 0; i < b && ok; i++)
				ok = m[a + i] == (char)(i * 13 + c);
		} else if (!strncmp(line, "DEREG", 5)) {
			ok = !ibv_dereg_mr(mr);
		} else if (!strncmp(line, "quit", 4)) {
			return 0;
		}
		printf("%s\n", ok ? "OK" : "BAD");
		fflush(stdout);
	}
	return 1;
}

/* The test's side of a target process. */
struct peer {
	pid_t pid;
	FILE *in, *out;
	uint32_t qpn, rkey;
	uint64_t addr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char *buf;
	struct ibv_mr *mr;
};

/* Send a command to the target and expect "OK" within T_WAIT_MS. */
static void
peer_cmd(struct peer *t, const char *fmt, ...)
{
	struct pollfd pfd = {.fd = fileno(t->out), .events = POLLIN};
	char line[64];
	va_list ap;

	va_start(ap, fmt);
	vfprintf(t->in, fmt, ap);
	va_end(ap);
	fflush(t->in);
	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_non_null(fgets(line, sizeof(line), t->out));
	assert_string_equal(line, "OK\n");
}

/* Start a target and connect a QP of ours to it; its first WRITE brings the rings up. */
static struct peer *
peer_start(void)
{
	struct peer *t = calloc(1, sizeof(*t));
	struct pollfd pfd;
	struct ibv_qp_init_attr ia;
	unsigned long long addr;
	int to[2], from[2];
	char line[128];

	assert_non_null(t);
	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (!t->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl("/proc/self/exe", "test_shm", "target", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = fdopen(to[1], "w");
	t->out = fdopen(from[0], "r");
	assert_true(t->in && t->out);
	pfd = (struct pollfd){.fd = from[0], .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_non_null(fgets(line, sizeof(line), t->out));
	assert_int_equal(sscanf(line, "READY %u %u %llu", &t->qpn, &t->rkey, &addr), 3);
	t->addr = addr;
	t->ctx = t_open_dev();
	t->pd = ibv_alloc_pd(t->ctx);
	t->cq = ibv_create_cq(t->ctx, 64, NULL, NULL, 0);
	assert_true(t->pd && t->cq);
	ia = t_rc_attr(t->cq, 16, 16, 1);
	t->qp = ibv_create_qp(t->pd, &ia);
	assert_non_null(t->qp);
	t->buf = mmap(NULL, 2 * SH_MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(t->buf != MAP_FAILED);
	t->mr = ibv_reg_mr(t->pd, t->buf, 2 * SH_MB, T_ACCESS_ALL);
	assert_non_null(t->mr);
	peer_cmd(t, "CONNECT %u\n", t->qp->qp_num);
	t_connect_qp(t->qp, t->qpn, T_ACCESS_ALL, 7);
	return t;
}

/* WRITE @n bytes of pattern @seed at @off of the target's MR; returns the status. */
static int
peer_write(struct peer *t, uint32_t off, uint32_t n, unsigned int seed, uint64_t wr_id)
{
	struct ibv_wc wc;

	fill(t->buf, n, seed);
	assert_int_equal(t_post(t->qp, IBV_WR_RDMA_WRITE, t->buf, n, t->mr->lkey, t->addr + off,
				t->rkey, IBV_SEND_SIGNALED, wr_id),
			 0);
	wc = t_wait_wc(t->cq);
	assert_int_equal(wc.wr_id, wr_id);
	return wc.status;
}

/* Release our side of a target (already gone, or told to quit). */
static void
peer_free(struct peer *t)
{
	ibv_destroy_qp(t->qp);
	ibv_dereg_mr(t->mr);
	munmap(t->buf, 2 * SH_MB);
	ibv_destroy_cq(t->cq);
	ibv_dealloc_pd(t->pd);
	ibv_close_device(t->ctx);
	fclose(t->in);
	fclose(t->out);
	free(t);
}

/*
 * A memfd MR of another process: WRITEs of 8 bytes and 1 MiB land, a READ
 * brings them back, and once the target deregistered it the rkey fails.
 */
static void
test_peer_shareable(void **state)
{
	struct peer *t = peer_start();
	int st;

	(void)state;
	assert_int_equal(peer_write(t, 0, 8, 1, 1), IBV_WC_SUCCESS);
	peer_cmd(t, "CHECK 0 8 1\n");
	assert_int_equal(peer_write(t, 8192, SH_MB, 2, 2), IBV_WC_SUCCESS);
	peer_cmd(t, "CHECK 8192 %u 2\n", SH_MB);
	memset(t->buf + SH_MB, 0, SH_MB);
	assert_int_equal(t_post(t->qp, IBV_WR_RDMA_READ, t->buf + SH_MB, SH_MB, t->mr->lkey,
				t->addr + 8192, t->rkey, IBV_SEND_SIGNALED, 3),
			 0);
	assert_int_equal(t_wait_wc(t->cq).status, IBV_WC_SUCCESS);
	assert_memory_equal(t->buf + SH_MB, t->buf, SH_MB);
	peer_cmd(t, "DEREG\n");
	assert_int_equal(peer_write(t, 0, 8, 3, 4), IBV_WC_REM_ACCESS_ERR);
	peer_cmd(t, "CHECK 0 8 1\n");
	fprintf(t->in, "quit\n");
	fflush(t->in);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	peer_free(t);
}

/*
 * A target killed after the initiator mapped its memfd MR: a WRITE posted
 * once it is dead does not complete successfully (the mapping still works,
 * but the responder is gone), as with memory reached through the kernel.
 * The WRITE is built with the extended post interface, whose
 * ibv_wr_start() holds the QP from before the kill: the progress thread
 * cannot have seen the connection close yet when it is posted.
 */
static void
test_peer_killed_shareable(void **state)
{
	struct peer *t = peer_start();
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(t->qp);
	struct ibv_wc wc;
	int i, st;

	(void)state;
	assert_non_null(x);
	for (i = 0; i < 4; i++)
		assert_int_equal(peer_write(t, 64 * i, 8, 5 + i, i), IBV_WC_SUCCESS);
	ibv_wr_start(x);
	assert_int_equal(kill(t->pid, SIGKILL), 0);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	x->wr_id = 9;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, t->rkey, t->addr);
	ibv_wr_set_sge(x, t->mr->lkey, (uintptr_t)t->buf, 8);
	assert_int_equal(ibv_wr_complete(x), 0);
	wc = t_wait_wc(t->cq);
	assert_int_equal(wc.wr_id, 9);
	assert_int_not_equal(wc.status, IBV_WC_SUCCESS);
	peer_free(t);
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
	    cmocka_unit_test_setup_teardown(test_shareable_write_read, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_dereg, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_rereg, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_bounds, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_truncated, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_unmapped, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_stale_unmapped, setup_big, teardown),
	    cmocka_unit_test_setup_teardown(test_shareable_fds, setup_big, teardown),
	    cmocka_unit_test(test_peer_shareable),
	    cmocka_unit_test(test_peer_killed_shareable),
	};

	if (argc > 1 && !strcmp(argv[1], "nosys"))
		return nosys_main();
	if (argc > 1 && !strcmp(argv[1], "target"))
		return target_main();
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
