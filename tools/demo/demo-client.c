/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * demo-client.c -- the client of `make run`: writes N records into the
 * server's persistent region, making every batch of them persistent with
 * rpma_flush(RPMA_FLUSH_TYPE_PERSISTENT), then reads every record back and
 * verifies it, and prints the throughput of both phases.
 *
 * usage: demo-client [-n RECORDS] [-s RECORD_SIZE] [-b BATCH] [-q DEPTH] ADDR PORT
 *
 *   -n  how many records to write (default 16384)
 *   -s  the size of a record in bytes, a multiple of 8 (default 4096)
 *   -b  how many records one persistent flush covers (default 16)
 *   -q  how many batches may be in flight, flushes not yet completed
 *       (default 8); the read phase keeps DEPTH * BATCH reads in flight
 *
 * Exit codes: 0 all records verified, 1 an error, 2 bad arguments, 3 the
 * connection was rejected or found no server (the caller may try again).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "demo.h"

#define EXIT_NOT_CONNECTED 3

/* how many completions one poll takes at most */
#define WC_BATCH 32

/* an operation's context: the record or batch number, shifted, and a tag */
#define CTX_WRITE      0
#define CTX_FLUSH      1
#define CTX_READ       2
#define CTX(n, tag)    ((const void *)(uintptr_t)(((uint64_t)(n) << 2) | (tag)))
#define CTX_NUM(wr_id) ((wr_id) >> 2)
#define CTX_TAG(wr_id) ((wr_id)&3)

/* what the client was asked to do */
struct params {
	const char *addr;
	const char *port;
	unsigned long records;
	unsigned long rec_size;
	unsigned long batch;
	unsigned long depth;
};

/* the connection and the regions the phases use */
struct client {
	struct params p;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *src;  /* the local slots: write source, read destination */
	struct rpma_mr_remote *dst; /* the server's region */
	char *slots;
	size_t nslots;
};

/*
 * rpma_fail -- print which librpma call failed and why; returns -1.
 */
static int
rpma_fail(const char *what, int ret)
{
	const char *msg = rpma_errormsg();

	if (ret == RPMA_E_PROVIDER)
		fprintf(stderr, "client: %s failed: %s (%s%serrno: %s)\n", what, rpma_err_2str(ret),
			msg, msg[0] ? "; " : "", strerror(errno));
	else
		fprintf(stderr, "client: %s failed: %s%s%s%s\n", what, rpma_err_2str(ret),
			msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
	return -1;
}

/*
 * ctx_2str -- what kind of operation a completion's wr_id belongs to.
 */
static const char *
ctx_2str(uint64_t wr_id)
{
	switch (CTX_TAG(wr_id)) {
	case CTX_WRITE:
		return "the write of record";
	case CTX_FLUSH:
		return "the persistent flush of batch";
	case CTX_READ:
		return "the read of record";
	default:
		return "an unknown operation";
	}
}

/*
 * reap -- take at least one completion from cq, waiting if there is none;
 * fails on a completion with an error. *got says how many are in wc.
 */
static int
reap(struct rpma_cq *cq, struct ibv_wc *wc, int *got)
{
	int ret;

	for (;;) {
		ret = rpma_cq_get_wc(cq, WC_BATCH, wc, got);
		if (ret == 0)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			return rpma_fail("rpma_cq_get_wc()", ret);
		ret = rpma_cq_wait(cq);
		if (ret)
			return rpma_fail("rpma_cq_wait()", ret);
	}

	for (int i = 0; i < *got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "client: %s %" PRIu64 " failed: %s\n",
				ctx_2str(wc[i].wr_id), CTX_NUM(wc[i].wr_id),
				ibv_wc_status_str(wc[i].status));
			return -1;
		}
		/* a flush is an RDMA read of a few bytes after the writes */
		if (wc[i].opcode != IBV_WC_RDMA_READ) {
			fprintf(stderr,
				"client: unexpected completion opcode %d for %s %" PRIu64 "\n",
				(int)wc[i].opcode, ctx_2str(wc[i].wr_id), CTX_NUM(wc[i].wr_id));
			return -1;
		}
	}
	return 0;
}

/*
 * expect_ctx -- check that a completion is the one expected next: one
 * connection's operations complete in the order they were posted, which the
 * reuse of the slots relies on.
 */
static int
expect_ctx(const struct ibv_wc *wc, uint64_t num, unsigned tag)
{
	if (wc->wr_id == (uint64_t)(uintptr_t)CTX(num, tag))
		return 0;
	fprintf(stderr,
		"client: completions out of order: expected %s %" PRIu64 ", got %s %" PRIu64 "\n",
		ctx_2str(tag), num, ctx_2str(wc->wr_id), CTX_NUM(wc->wr_id));
	return -1;
}

/*
 * print_rate -- print the throughput of a phase.
 */
static void
print_rate(const char *phase, unsigned long records, size_t rec_size, double secs)
{
	double bytes = (double)records * (double)rec_size;

	printf("client: %s: %lu records, %.0f bytes in %.3f s: %.1f MB/s, %.0f records/s\n", phase,
	       records, bytes, secs, bytes / 1e6 / secs, (double)records / secs);
}

/*
 * write_phase -- write every record, BATCH records per persistent flush, with
 * up to DEPTH flushes in flight; a batch's slots are refilled only after its
 * flush completed, i.e. after its writes are persistent on the server.
 */
static int
write_phase(struct client *c)
{
	const struct params *p = &c->p;
	unsigned long nbatches = (p->records + p->batch - 1) / p->batch;
	unsigned long done = 0, inflight = 0;
	struct ibv_wc wc[WC_BATCH];
	int ret, got;

	printf("client: writing %lu records of %lu bytes, %lu per persistent flush, up to %lu "
	       "flushes in flight\n",
	       p->records, p->rec_size, p->batch, p->depth);
	double t0 = demo_now();

	for (unsigned long b = 0; b < nbatches || inflight > 0;) {
		if (b < nbatches && inflight < p->depth) {
			unsigned long first = b * p->batch;
			unsigned long count = p->records - first;
			size_t slot0 = (b % p->depth) * p->batch;

			if (count > p->batch)
				count = p->batch;
			for (unsigned long k = 0; k < count; k++) {
				size_t off = (slot0 + k) * p->rec_size;

				demo_record_fill(c->slots + off, first + k, p->rec_size);
				ret = rpma_write(c->conn, c->dst, (first + k) * p->rec_size, c->src,
						 off, p->rec_size, RPMA_F_COMPLETION_ON_ERROR,
						 CTX(first + k, CTX_WRITE));
				if (ret)
					return rpma_fail("rpma_write()", ret);
			}
			ret = rpma_flush(c->conn, c->dst, first * p->rec_size, count * p->rec_size,
					 RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS,
					 CTX(b, CTX_FLUSH));
			if (ret)
				return rpma_fail("rpma_flush()", ret);
			b++;
			inflight++;
			continue;
		}
		if (reap(c->cq, wc, &got))
			return -1;
		for (int i = 0; i < got; i++) {
			if (expect_ctx(&wc[i], done, CTX_FLUSH))
				return -1;
			done++;
			inflight--;
		}
	}

	print_rate("write+flush", p->records, p->rec_size, demo_now() - t0);
	return 0;
}

/*
 * read_phase -- read every record back into the slots, DEPTH * BATCH reads in
 * flight, and verify each one as its read completes; *verified counts the
 * good ones.
 */
static int
read_phase(struct client *c, unsigned long *verified)
{
	const struct params *p = &c->p;
	unsigned long posted = 0, done = 0, bad = 0;
	struct ibv_wc wc[WC_BATCH];
	int ret, got;

	*verified = 0;
	double t0 = demo_now();

	while (done < p->records) {
		while (posted < p->records && posted - done < c->nslots) {
			size_t off = (posted % c->nslots) * p->rec_size;
			size_t roff = posted * p->rec_size;

			ret = rpma_read(c->conn, c->src, off, c->dst, roff, p->rec_size,
					RPMA_F_COMPLETION_ALWAYS, CTX(posted, CTX_READ));
			if (ret)
				return rpma_fail("rpma_read()", ret);
			posted++;
		}
		if (reap(c->cq, wc, &got))
			return -1;
		for (int i = 0; i < got; i++, done++) {
			if (expect_ctx(&wc[i], done, CTX_READ))
				return -1;

			const char *why = demo_record_check(
			    c->slots + (done % c->nslots) * p->rec_size, done, p->rec_size);

			if (why == NULL) {
				(*verified)++;
			} else if (++bad <= 10) {
				fprintf(stderr, "client: record %lu read back is wrong: %s\n", done,
					why);
			}
		}
	}

	print_rate("read+verify", p->records, p->rec_size, demo_now() - t0);
	return 0;
}

/*
 * apply_peer_cfg -- rebuild the server's peer configuration from its
 * descriptor, say what it declares and apply it to the connection.
 */
static int
apply_peer_cfg(struct rpma_conn *conn, const void *desc, size_t len)
{
	struct rpma_peer_cfg *pcfg;
	bool direct;
	int ret, err = -1;

	ret = rpma_peer_cfg_from_descriptor(desc, len, &pcfg);
	if (ret)
		return rpma_fail("rpma_peer_cfg_from_descriptor()", ret);
	ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
	if (ret) {
		rpma_fail("rpma_peer_cfg_get_direct_write_to_pmem()", ret);
		goto out;
	}
	ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg);
	if (ret) {
		rpma_fail("rpma_conn_apply_remote_peer_cfg()", ret);
		goto out;
	}
	printf("client: the server %s direct write to PMem\n",
	       direct ? "declares" : "does not declare");
	err = 0;
out:
	ret = rpma_peer_cfg_delete(&pcfg);
	if (ret)
		err = rpma_fail("rpma_peer_cfg_delete()", ret);
	return err;
}

/*
 * setup_remote -- take the server's region and peer configuration from the
 * private data of the connection and check that the region fits the run.
 */
static int
setup_remote(struct client *c)
{
	struct rpma_conn_private_data pd;
	size_t size, need = c->p.records * c->p.rec_size;
	int ret, flush_type;

	ret = rpma_conn_get_private_data(c->conn, &pd);
	if (ret)
		return rpma_fail("rpma_conn_get_private_data()", ret);

	const uint8_t *b = pd.ptr;

	if (b == NULL || pd.len < DEMO_PDATA_HDR_SIZE ||
	    pd.len < DEMO_PDATA_HDR_SIZE + b[0] + b[1]) {
		fprintf(stderr, "client: the server's private data (%u bytes) is too short\n",
			(unsigned)pd.len);
		return -1;
	}
	ret = rpma_mr_remote_from_descriptor(b + DEMO_PDATA_HDR_SIZE, b[0], &c->dst);
	if (ret)
		return rpma_fail("rpma_mr_remote_from_descriptor()", ret);
	if (apply_peer_cfg(c->conn, b + DEMO_PDATA_HDR_SIZE + b[0], b[1]))
		return -1;

	ret = rpma_mr_remote_get_size(c->dst, &size);
	if (ret)
		return rpma_fail("rpma_mr_remote_get_size()", ret);
	ret = rpma_mr_remote_get_flush_type(c->dst, &flush_type);
	if (ret)
		return rpma_fail("rpma_mr_remote_get_flush_type()", ret);
	printf("client: the server's region: %zu bytes, %s persistent flush\n", size,
	       flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT ? "supports" : "does not support");
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		return -1;
	if (size < need) {
		fprintf(stderr,
			"client: %lu records of %lu bytes need %zu bytes; the region has %zu\n",
			c->p.records, c->p.rec_size, need, size);
		return -1;
	}
	return 0;
}

/*
 * conn_cfg_new -- a connection configuration whose send and completion
 * queues hold every operation that may be in flight: DEPTH batches of
 * BATCH writes and a flush each.
 */
static int
conn_cfg_new(const struct params *p, struct rpma_conn_cfg **cfg)
{
	uint32_t size = (uint32_t)(p->depth * (p->batch + 1));
	int ret;

	ret = rpma_conn_cfg_new(cfg);
	if (ret)
		return rpma_fail("rpma_conn_cfg_new()", ret);
	ret = rpma_conn_cfg_set_sq_size(*cfg, size);
	if (ret) {
		rpma_fail("rpma_conn_cfg_set_sq_size()", ret);
		goto err;
	}
	ret = rpma_conn_cfg_set_cq_size(*cfg, size);
	if (ret) {
		rpma_fail("rpma_conn_cfg_set_cq_size()", ret);
		goto err;
	}
	return 0;
err:
	(void)rpma_conn_cfg_delete(cfg);
	return -1;
}

/*
 * connect_server -- connect to the server and wait until the connection is
 * established; returns 0, -1 on an error, or EXIT_NOT_CONNECTED when the
 * server rejected the connection or could not be reached.
 */
static int
connect_server(struct client *c, struct rpma_peer *peer)
{
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req;
	enum rpma_conn_event ev;
	int ret, err = -1;

	if (conn_cfg_new(&c->p, &cfg))
		return -1;
	ret = rpma_conn_req_new(peer, c->p.addr, c->p.port, cfg, &req);
	if (ret) {
		rpma_fail("rpma_conn_req_new()", ret);
		goto out;
	}
	ret = rpma_conn_req_connect(&req, NULL, &c->conn);
	if (ret) {
		rpma_fail("rpma_conn_req_connect()", ret);
		goto out;
	}
	ret = rpma_conn_next_event(c->conn, &ev);
	if (ret) {
		rpma_fail("rpma_conn_next_event()", ret);
	} else if (ev != RPMA_CONN_ESTABLISHED) {
		fprintf(stderr, "client: the connection to %s:%s was not established: %s\n",
			c->p.addr, c->p.port, rpma_utils_conn_event_2str(ev));
		if (ev == RPMA_CONN_REJECTED || ev == RPMA_CONN_UNREACHABLE)
			err = EXIT_NOT_CONNECTED;
	} else {
		err = 0;
	}
	if (err) {
		ret = rpma_conn_delete(&c->conn);
		if (ret)
			rpma_fail("rpma_conn_delete()", ret);
	}
out:
	ret = rpma_conn_cfg_delete(&cfg);
	if (ret)
		err = rpma_fail("rpma_conn_cfg_delete()", ret);
	return err;
}

/*
 * disconnect -- close the connection from this side and delete it.
 */
static int
disconnect(struct client *c)
{
	enum rpma_conn_event ev;
	int ret, err = 0;

	ret = rpma_conn_disconnect(c->conn);
	if (ret) {
		err = rpma_fail("rpma_conn_disconnect()", ret);
	} else {
		ret = rpma_conn_next_event(c->conn, &ev);
		if (ret) {
			err = rpma_fail("rpma_conn_next_event()", ret);
		} else if (ev != RPMA_CONN_CLOSED) {
			fprintf(stderr, "client: expected the connection to close, got %s\n",
				rpma_utils_conn_event_2str(ev));
			err = -1;
		}
	}
	ret = rpma_conn_delete(&c->conn);
	if (ret)
		err = rpma_fail("rpma_conn_delete()", ret);
	return err;
}

/*
 * parse_args -- fill p from the command line; returns 0 or 2 (bad usage).
 */
static int
parse_args(int argc, char *argv[], struct params *p)
{
	int opt;

	p->records = 16384;
	p->rec_size = 4096;
	p->batch = 16;
	p->depth = 8;
	while ((opt = getopt(argc, argv, "n:s:b:q:")) != -1) {
		int bad;

		switch (opt) {
		case 'n':
			bad = demo_parse_ulong("client", opt, optarg, 1, 1UL << 32, &p->records);
			break;
		case 's':
			bad = demo_parse_ulong("client", opt, optarg, DEMO_MIN_RECORD_SIZE,
					       DEMO_MAX_RECORD_SIZE, &p->rec_size);
			if (!bad && !demo_record_size_ok(p->rec_size)) {
				fprintf(stderr, "client: -s wants a multiple of 8\n");
				bad = 1;
			}
			break;
		case 'b':
			bad = demo_parse_ulong("client", opt, optarg, 1, 1024, &p->batch);
			break;
		case 'q':
			bad = demo_parse_ulong("client", opt, optarg, 1, 1024, &p->depth);
			break;
		default:
			bad = 1;
			break;
		}
		if (bad)
			goto usage;
	}
	if (argc - optind != 2)
		goto usage;
	p->addr = argv[optind];
	p->port = argv[optind + 1];
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n RECORDS] [-s RECORD_SIZE] [-b BATCH] [-q DEPTH] ADDR PORT\n",
		argv[0]);
	return 2;
}

/*
 * main -- connect, write and flush every record, read every record back,
 * verify them, disconnect and tear everything down in reverse order.
 */
int
main(int argc, char *argv[])
{
	struct client c = {0};
	struct ibv_context *dev;
	struct rpma_peer *peer;
	unsigned long verified = 0;
	int ret, err = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_args(argc, argv, &c.p);
	if (ret)
		return ret;

	if (demo_check_librpma("client"))
		return 1;

	c.nslots = c.p.depth * c.p.batch;
	size_t buf_size = c.nslots * c.p.rec_size;
	long page = sysconf(_SC_PAGESIZE);

	ret = posix_memalign((void **)&c.slots, page > 0 ? (size_t)page : 4096, buf_size);
	if (ret) {
		fprintf(stderr, "client: cannot allocate %zu bytes: %s\n", buf_size, strerror(ret));
		return 1;
	}
	memset(c.slots, 0, buf_size);

	ret = rpma_utils_get_ibv_context(c.p.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev);
	if (ret) {
		rpma_fail("rpma_utils_get_ibv_context()", ret);
		goto err_free;
	}
	ret = rpma_peer_new(dev, &peer);
	if (ret) {
		rpma_fail("rpma_peer_new()", ret);
		goto err_free;
	}
	ret = rpma_mr_reg(peer, c.slots, buf_size, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST,
			  &c.src);
	if (ret) {
		rpma_fail("rpma_mr_reg()", ret);
		goto err_peer;
	}

	ret = connect_server(&c, peer);
	if (ret) {
		if (ret == EXIT_NOT_CONNECTED)
			err = EXIT_NOT_CONNECTED;
		goto err_dereg;
	}
	printf("client: connected to %s:%s\n", c.p.addr, c.p.port);
	ret = rpma_conn_get_cq(c.conn, &c.cq);
	if (ret) {
		rpma_fail("rpma_conn_get_cq()", ret);
		goto err_disconnect;
	}
	if (setup_remote(&c))
		goto err_remote;
	if (write_phase(&c))
		goto err_remote;
	if (read_phase(&c, &verified))
		goto err_remote;
	printf("client: verified %lu/%lu records\n", verified, c.p.records);
	if (verified == c.p.records)
		err = 0;

err_remote:
	if (c.dst) {
		ret = rpma_mr_remote_delete(&c.dst);
		if (ret) {
			rpma_fail("rpma_mr_remote_delete()", ret);
			err = 1;
		}
	}
err_disconnect:
	if (disconnect(&c))
		err = 1;
	else
		printf("client: disconnected\n");
err_dereg:
	ret = rpma_mr_dereg(&c.src);
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
err_free:
	free(c.slots);
	return err;
}
