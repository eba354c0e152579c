/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_rules.c -- the rules between keys and against the device limits:
 * "auto" sizes, sizes too small with the arithmetic in the message, unique
 * names and files, persistence that can work, the limits a caller gives.
 */

#include "config_test.h"

#include <string.h>

#define LISTEN "listen: {address: 1.2.3.4}\n"
#define WHY_LISTEN64                                                                               \
	"64 connections per worker = ceil((listen.max_connections 64 + targets[].connections 0) "  \
	"/ "                                                                                       \
	"workers.count 1)"

/* auto_sizes -- every "auto" size resolved from the connections per worker */
static void
auto_sizes(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	/* (64 + 3 + 2) connections over 2 workers: 35 per worker */
	c = load_ok(LISTEN "workers: {count: 2}\nqueues: {sq: 10, messages: {credits: 3}}\n"
			   "targets: [{name: a, address: b, connections: 3}, {name: b, address: b, "
			   "connections: 2}]\n");
	assert_int_equal(c->conns_per_worker, 35);
	assert_int_equal(c->queues.cq, 350);
	assert_int_equal(c->queues.srq_rq, 105);
	assert_int_equal(c->queues.srq_rcq, 105);
	assert_int_equal(c->queues.rq, 0);
	assert_int_equal(c->queues.rcq, 0);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
	/* without a shared receive queue: rq = credits, rcq = connections x rq */
	c = load_ok(LISTEN "queues: {srq: {rq: 0}, messages: {credits: 4}}\n");
	assert_int_equal(c->queues.srq_rq, 0);
	assert_int_equal(c->queues.srq_rcq, 0);
	assert_int_equal(c->queues.rq, 4);
	assert_int_equal(c->queues.rcq, 256);
	assert_int_equal(c->queues.cq, 4096);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
	/* explicit sizes at their minimum are fine */
	c = load_ok(LISTEN "queues: {cq: 4096, srq: {rq: 1024, rcq: 1024}}\n");
	assert_int_equal(c->queues.cq, 4096);
	rpmaf_cfg_delete(&c);
	c = load_ok(LISTEN "queues: {rq: 16, rcq: 1024, srq: {rq: 0}}\n");
	assert_int_equal(c->queues.rcq, 1024);
	rpmaf_cfg_delete(&c);
}

/* too_small -- each size below what may be outstanding, with the sum that says why */
static void
too_small(void **state)
{
	(void)state;
	expect_err(
	    "queues:\n  cq: 100\n" LISTEN, RPMAF_E_CONFIG,
	    "t.yaml:2:7: queues.cq: 100 cannot hold what may be outstanding (at least 4096 = "
	    "64 connections per worker × queues.sq 64; " WHY_LISTEN64 ")");
	expect_err(
	    "workers: {count: 2}\nqueues: {cq: 100, sq: 50}\n"
	    "targets: [{name: a, address: b, connections: 3}, {name: b, address: b, "
	    "connections: 2}]\n",
	    RPMAF_E_CONFIG,
	    "t.yaml:2:14: queues.cq: 100 cannot hold what may be outstanding (at least 150 = 3 "
	    "connections per worker × queues.sq 50; 3 connections per worker = "
	    "ceil((targets[].connections 5) / workers.count 2))");
	expect_err(
	    "queues: {cq: 10}", RPMAF_E_CONFIG,
	    "t.yaml:1:14: queues.cq: 10 cannot hold what may be outstanding (at least 64 = 1 "
	    "connection per worker × queues.sq 64; 1 connection per worker, the least, with "
	    "no listen section and no targets)");
	expect_err(LISTEN "queues: {srq: {rq: 100}}", RPMAF_E_CONFIG,
		   "t.yaml:2:20: queues.srq.rq: 100 cannot hold what may be outstanding (at least "
		   "1024 = 64 connections per worker × queues.messages.credits 16; " WHY_LISTEN64
		   ")");
	expect_err(
	    "queues: {srq: {rq: 16, rcq: 10}}", RPMAF_E_CONFIG,
	    "t.yaml:1:29: queues.srq.rcq: 10 cannot hold what may be outstanding (at least 16 "
	    "= queues.srq.rq 16)");
	expect_err("queues: {rq: 8, srq: {rq: 0}}", RPMAF_E_CONFIG,
		   "t.yaml:1:14: queues.rq: 8 cannot hold what may be outstanding (at least 16 = "
		   "queues.messages.credits 16)");
	expect_err(
	    LISTEN "queues: {rcq: 1000, srq: {rq: 0}}", RPMAF_E_CONFIG,
	    "t.yaml:2:15: queues.rcq: 1000 cannot hold what may be outstanding (at least 1024 "
	    "= 64 connections per worker × queues.rq 16; " WHY_LISTEN64 ")");
	expect_err("queues: {sq: 8}", RPMAF_E_CONFIG,
		   "t.yaml:1:1: queues.messages.credits: 16 is more than queues.sq 8 (at most 8: "
		   "each message in flight holds a send queue entry)");
	expect_err("workers: {batch: 100}\nqueues: {cq: 64}", RPMAF_E_CONFIG,
		   "t.yaml:1:18: workers.batch: 100 is more than queues.cq 64 (at most 64: a poll "
		   "cannot take more than a completion queue holds)");
	/* the same rule, the value from an override */
	expect_err_set(LISTEN, "queues.cq=10", RPMAF_E_CONFIG,
		       "--set queues.cq=10: queues.cq: 10 cannot hold what may be outstanding (at "
		       "least 4096 = 64 connections per worker × queues.sq 64; " WHY_LISTEN64 ")");
}

/* auto_too_large -- an "auto" size beyond the fixed bound */
static void
auto_too_large(void **state)
{
	(void)state;
	expect_err(
	    "workers: {count: 4}\nlisten: {address: a, max_connections: 65536}\n"
	    "queues: {sq: 512, rq: 3, srq: {rq: 0}, messages: {credits: 3}}",
	    RPMAF_E_CONFIG,
	    "t.yaml:3:1: queues.cq: auto gives 8388608 = 16384 connections per worker × "
	    "queues.sq 512; 16384 connections per worker = ceil((listen.max_connections 65536 "
	    "+ targets[].connections 0) / workers.count 4), more than the fixed bound (at "
	    "most 4194304: fewer connections per worker or smaller queues)");
	expect_err("listen: {address: a, max_connections: 65536}\n", RPMAF_E_CONFIG,
		   "t.yaml:1:1: queues.srq.rq: auto gives 1048576 = 65536 connections per worker × "
		   "queues.messages.credits 16; 65536 connections per worker = "
		   "ceil((listen.max_connections 65536 + targets[].connections 0) / workers.count "
		   "1), more than the fixed bound (at most 32768: fewer connections per worker or "
		   "smaller queues)");
}

/* receive_queue_keys -- per-connection receive queues and a shared one exclude each other */
static void
receive_queue_keys(void **state)
{
	(void)state;
	expect_err("queues: {rq: 16}", RPMAF_E_CONFIG,
		   "t.yaml:1:14: queues.rq: set while the workers share a receive queue (leave it "
		   "out, or set queues.srq.rq: 0 to give each connection its own)");
	expect_err("queues: {rcq: 16, srq: {rq: 100}}", RPMAF_E_CONFIG,
		   "t.yaml:1:15: queues.rcq: set while the workers share a receive queue (leave it "
		   "out, or set queues.srq.rq: 0 to give each connection its own)");
	expect_err("queues: {srq: {rq: 0, rcq: 16}}", RPMAF_E_CONFIG,
		   "t.yaml:1:28: queues.srq.rcq: set while queues.srq.rq is 0 (no shared receive "
		   "queue to complete)");
}

/* workers_rules -- CPU list length, spin_us only with adaptive polling */
static void
workers_rules(void **state)
{
	(void)state;
	expect_err("workers: {count: 2, cpus: [1]}", RPMAF_E_CONFIG,
		   "t.yaml:1:21: workers.cpus: has 1 CPU for workers.count 2 (one CPU per worker)");
	expect_err(
	    "workers: {count: 1, cpus: [1, 2]}", RPMAF_E_CONFIG,
	    "t.yaml:1:21: workers.cpus: has 2 CPUs for workers.count 1 (one CPU per worker)");
	expect_err("workers:\n  polling: busy\n  spin_us: 3\n", RPMAF_E_CONFIG,
		   "t.yaml:3:12: workers.spin_us: set while workers.polling is busy (only adaptive "
		   "polling spins)");
	expect_err(
	    "workers: {spin_us: 3, polling: event}", RPMAF_E_CONFIG,
	    "t.yaml:1:20: workers.spin_us: set while workers.polling is event (only adaptive "
	    "polling spins)");
}

/* names_and_files -- target and region names unique, one region per file */
static void
names_and_files(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};

	(void)state;
	expect_err(
	    "targets:\n- {name: a, address: b}\n- {name: c, address: b}\n"
	    "- {name: a, address: d}\n",
	    RPMAF_E_CONFIG,
	    "t.yaml:4:10: targets[2].name: \"a\" is already the name of targets[0] (a name of "
	    "its own for each target)");
	expect_err(
	    "regions:\n- {name: r, size: 4K}\n- {name: r, size: 8K}\n", RPMAF_E_CONFIG,
	    "t.yaml:3:10: regions[1].name: \"r\" is already the name of regions[0] (a name of "
	    "its own for each region)");
	expect_err_opts("regions:\n- {name: r, size: 4K, backing: {file: /p}}\n"
			"- {name: s, size: 8K, backing: {file: /p, create: true}}\n",
			&opts, RPMAF_E_CONFIG,
			"t.yaml:3:39: regions[1].backing.file: \"/p\" is already the file of "
			"regions[0] (a file of its own for each region)");
}

/* persistence -- what the backing and direct_write allow */
static void
persistence(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c;

	(void)state;
	expect_err(
	    "regions: [{name: r, size: 4K, persistence: apm}]", RPMAF_E_CONFIG,
	    "t.yaml:1:44: regions[0].persistence: apm needs a file backing (anonymous memory "
	    "is not persistent: persistence auto, or backing: {file: PATH})");
	expect_err("regions: [{name: r, size: 4K, persistence: gpspm}]", RPMAF_E_CONFIG,
		   "t.yaml:1:44: regions[0].persistence: gpspm needs a file backing (anonymous "
		   "memory is not persistent: persistence auto, or backing: {file: PATH})");
	expect_err(
	    "regions: [{name: r, size: 4K, direct_write: true}]", RPMAF_E_CONFIG,
	    "t.yaml:1:45: regions[0].direct_write: true needs a file backing (anonymous memory "
	    "is not persistent memory)");
	expect_err_opts("regions: [{name: r, size: 4K, backing: {file: /p}, persistence: apm}]",
			&opts, RPMAF_E_CONFIG,
			"t.yaml:1:65: regions[0].persistence: apm needs direct_write: true (APM "
			"relies on remote writes reaching PMem directly; gpspm or auto otherwise)");
	c = load_ok_opts("regions: [{name: r, size: 4K, backing: {file: /p}, persistence: apm, "
			 "direct_write: true}]",
			 &opts);
	assert_int_equal(c->regions[0].persistence, RPMAF_PERSIST_APM);
	rpmaf_cfg_delete(&c);
}

/* misc_rules -- backoff order, the target daemon's needs */
static void
misc_rules(void **state)
{
	(void)state;
	expect_err(
	    "reconnect: {initial_ms: 20000}", RPMAF_E_CONFIG,
	    "t.yaml:1:25: reconnect.initial_ms: 20000 is more than reconnect.max_ms 10000 (at "
	    "most 10000)");
	expect_err("rpmem: {poolset_dir: /}", RPMAF_E_CONFIG,
		   "t.yaml:1:1: rpmem: the target daemon needs a listen section (listen.address to "
		   "accept connections on)");
	expect_err(LISTEN "rpmem: {poolset_dir: /, persistence: apm}", RPMAF_E_CONFIG,
		   "t.yaml:2:38: rpmem.persistence: apm needs rpmem.direct_write: true (APM relies "
		   "on remote writes reaching PMem directly; gpspm or auto otherwise)");
}

/* limits -- every device limit a caller gives, on explicit and on auto sizes */
static void
limits(void **state)
{
	struct rpmaf_cfg_limits lim = {.max_cqe = 1000,
				       .max_qp_wr = 100,
				       .max_srq_wr = 500,
				       .max_inline_data = 64,
				       .max_qp = 70,
				       .max_mr_size = 1 << 20,
				       .ncpus = 2};
	struct rpmaf_cfg_opts opts = {.limits = &lim};
	struct rpmaf_cfg *c;

	(void)state;
	expect_err_limits(
	    "queues: {sq: 101}", &lim,
	    "t.yaml:1:14: queues.sq: 101 is more than the device's max_qp_wr (at most "
	    "100)");
	expect_err_limits("queues: {sq: 100, cq: 1001}", &lim,
			  "t.yaml:1:23: queues.cq: 1001 is more than the device's max_cqe (at most "
			  "1000)");
	expect_err_limits(LISTEN "queues: {sq: 100, messages: {credits: 3}}", &lim,
			  "t.yaml:2:1: queues.cq: auto gives 6400 = 64 connections per worker × "
			  "queues.sq 100; " WHY_LISTEN64
			  ", more than the device's max_cqe (at most "
			  "1000: fewer connections per worker or smaller queues)");
	expect_err_limits(
	    LISTEN, &lim,
	    "t.yaml:1:1: queues.srq.rq: auto gives 1024 = 64 connections per worker × "
	    "queues.messages.credits 16; " WHY_LISTEN64 ", more than the device's "
	    "max_srq_wr (at most 500: fewer connections per worker or smaller queues)");
	expect_err_limits(
	    "queues: {srq: {rq: 501}}", &lim,
	    "t.yaml:1:20: queues.srq.rq: 501 is more than the device's max_srq_wr (at "
	    "most 500)");
	expect_err_limits(
	    "queues: {rq: 101, srq: {rq: 0}}", &lim,
	    "t.yaml:1:14: queues.rq: 101 is more than the device's max_qp_wr (at most "
	    "100)");
	expect_err_limits(
	    "queues: {inline: 65}", &lim,
	    "t.yaml:1:18: queues.inline: 65 is more than the device's max_inline_data "
	    "(at most 64)");
	expect_err_limits(
	    "listen: {address: a, max_connections: 60}\n"
	    "targets: [{name: a, address: b, connections: 11}]",
	    &lim,
	    "t.yaml:1:39: listen.max_connections: 71 connections in all "
	    "(listen.max_connections 60 + targets[].connections 11) exceed the device's "
	    "max_qp (at most 70 connections)");
	expect_err_limits("targets: [{name: a, address: b, connections: 71}]", &lim,
			  "t.yaml:1:1: targets: 71 connections in all (listen.max_connections 0 + "
			  "targets[].connections 71) exceed the device's max_qp (at most 70 "
			  "connections)");
	expect_err_limits(
	    "regions: [{name: r, size: 2M}]", &lim,
	    "t.yaml:1:27: regions[0].size: 2M is more than the device's max_mr_size (at "
	    "most 1M)");
	expect_err_limits(
	    "workers: {count: 2, cpus: [0, 2]}", &lim,
	    "t.yaml:1:31: workers.cpus[1]: CPU 2 is not on this host (a CPU number from "
	    "0 to 1)");
	/* within every limit */
	c = load_ok_opts("workers: {count: 2, cpus: [1, 0]}\nqueues: {sq: 100, inline: 64}\n"
			 "regions: [{name: r, size: 1M}]\n"
			 "targets: [{name: a, address: b, connections: 10}]\n",
			 &opts);
	assert_int_equal(c->queues.cq, 500);
	assert_int_equal(c->queues.srq_rq, 80);
	rpmaf_cfg_delete(&c);
	/* limits above the fixed bounds change nothing */
	lim = (struct rpmaf_cfg_limits){.max_cqe = 1u << 31, .max_qp_wr = 1u << 20};
	expect_err_limits("queues: {cq: 5000000}", &lim,
			  "t.yaml:1:14: queues.cq: \"5000000\" is out of range (auto or an integer "
			  "from 1 to 4194304)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(auto_sizes),     cmocka_unit_test(too_small),
	    cmocka_unit_test(auto_too_large), cmocka_unit_test(receive_queue_keys),
	    cmocka_unit_test(workers_rules),  cmocka_unit_test(names_and_files),
	    cmocka_unit_test(persistence),    cmocka_unit_test(misc_rules),
	    cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
