/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_keys.c -- every key of the configuration: its default, a value set
 * in the file reaching its field, every spelling a type accepts, and the
 * exact message for a value of the wrong type or out of range.
 */

#include "config_test.h"

#include <stdlib.h>
#include <string.h>

/* defaults -- an empty mapping gives every documented default */
static void
defaults(void **state)
{
	struct rpmaf_cfg *c = load_ok("{}");

	(void)state;
	assert_int_equal(c->workers.count, 1);
	assert_int_equal(c->workers.ncpus, 0);
	assert_null(c->workers.cpus);
	assert_int_equal(c->workers.polling, RPMAF_POLLING_ADAPTIVE);
	assert_int_equal(c->workers.spin_us, 50);
	assert_int_equal(c->workers.batch, 16);
	assert_int_equal(c->queues.sq, 64);
	assert_int_equal(c->queues.rq, 0);  /* a shared receive queue by default */
	assert_int_equal(c->queues.cq, 64); /* auto: 1 connection per worker x sq 64 */
	assert_int_equal(c->queues.rcq, 0);
	assert_int_equal(c->queues.srq_rq, 16);	 /* auto: 1 x credits 16 */
	assert_int_equal(c->queues.srq_rcq, 16); /* auto: srq.rq */
	assert_int_equal(c->queues.inline_size, 64);
	assert_int_equal(c->queues.msg_size, 4096);
	assert_int_equal(c->queues.msg_credits, 16);
	assert_false(c->listen.enabled);
	assert_null(c->listen.address);
	assert_int_equal(c->listen.port, 7204);
	assert_int_equal(c->listen.backlog, 128);
	assert_int_equal(c->listen.max_connections, 64);
	assert_int_equal(c->ntargets, 0);
	assert_null(c->targets);
	assert_int_equal(c->nregions, 0);
	assert_null(c->regions);
	assert_int_equal(c->timeouts.connect_ms, 5000);
	assert_int_equal(c->timeouts.operation_ms, 10000);
	assert_int_equal(c->timeouts.heartbeat_interval_ms, 1000);
	assert_int_equal(c->timeouts.heartbeat_misses, 3);
	assert_int_equal(c->reconnect.initial_ms, 100);
	assert_int_equal(c->reconnect.max_ms, 10000);
	assert_true(c->reconnect.multiplier == 2.0);
	assert_true(c->reconnect.jitter == 0.2);
	assert_null(c->auth.key_file);
	assert_int_equal(c->log.level, RPMAF_LOG_NOTICE);
	assert_null(c->log.file);
	assert_null(c->stats.file);
	assert_int_equal(c->stats.interval_ms, 0);
	assert_false(c->rpmem.enabled);
	assert_null(c->rpmem.poolset_dir);
	assert_int_equal(c->rpmem.persistence, RPMAF_PERSIST_AUTO);
	assert_false(c->rpmem.direct_write);
	assert_int_equal(c->rpmem.max_lanes, 1024);
	assert_int_equal(c->conns_per_worker, 1);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* entry defaults: a target and a region with only what is required */
static void
entry_defaults(void **state)
{
	struct rpmaf_cfg *c = load_ok("targets: [{name: a, address: 1.2.3.4}]\n"
				      "regions: [{name: r, size: 4K}]\n");

	(void)state;
	assert_int_equal(c->ntargets, 1);
	assert_string_equal(c->targets[0].name, "a");
	assert_string_equal(c->targets[0].address, "1.2.3.4");
	assert_int_equal(c->targets[0].port, 7204);
	assert_int_equal(c->targets[0].connections, 1);
	assert_int_equal(c->nregions, 1);
	assert_string_equal(c->regions[0].name, "r");
	assert_int_equal(c->regions[0].size, 4096);
	assert_int_equal(c->regions[0].backing, RPMAF_BACKING_ANONYMOUS);
	assert_null(c->regions[0].path);
	assert_false(c->regions[0].create);
	assert_int_equal(c->regions[0].usage,
			 RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH);
	assert_int_equal(c->regions[0].persistence, RPMAF_PERSIST_AUTO);
	assert_false(c->regions[0].direct_write);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

static const char Every_key[] = "workers:\n"
				"  count: 3\n"
				"  cpus: [2, 0, 1]\n"
				"  polling: adaptive\n"
				"  spin_us: 7\n"
				"  batch: 5\n"
				"queues:\n"
				"  sq: 100\n"
				"  cq: 5000\n"
				"  srq:\n"
				"    rq: 2000\n"
				"    rcq: 2100\n"
				"  inline: 128\n"
				"  messages:\n"
				"    size: 8K\n"
				"    credits: 10\n"
				"listen:\n"
				"  address: 10.1.2.3\n"
				"  port: 9000\n"
				"  backlog: 17\n"
				"  max_connections: 100\n"
				"targets:\n"
				"  - name: t-1\n"
				"    address: host.example\n"
				"    port: 9001\n"
				"    connections: 5\n"
				"  - name: t.2\n"
				"    address: \"::1\"\n"
				"regions:\n"
				"  - name: r_a\n"
				"    size: 2M\n"
				"    backing: anonymous\n"
				"    usage: [write, read]\n"
				"    persistence: auto\n"
				"    direct_write: false\n"
				"  - name: r_b\n"
				"    size: 12288\n"
				"    backing: {file: /pmem/b, create: true}\n"
				"    usage: [flush]\n"
				"    persistence: apm\n"
				"    direct_write: true\n"
				"timeouts:\n"
				"  connect_ms: 11\n"
				"  operation_ms: 12\n"
				"  heartbeat_interval_ms: 0\n"
				"  heartbeat_misses: 13\n"
				"reconnect:\n"
				"  initial_ms: 14\n"
				"  max_ms: 15\n"
				"  multiplier: 1.25\n"
				"  jitter: 0.5\n"
				"auth:\n"
				"  key_file: /etc/key\n"
				"log:\n"
				"  level: debug\n"
				"  file: /var/log/x.log\n"
				"stats:\n"
				"  file: 'stats file.json'\n"
				"  interval_ms: 16\n"
				"rpmem:\n"
				"  poolset_dir: /pools\n"
				"  persistence: gpspm\n"
				"  direct_write: true\n"
				"  max_lanes: 17\n";

/* every_key_sections -- each key of the sections reaches its field */
static void
every_key_sections(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c = load_ok_opts(Every_key, &opts);

	(void)state;
	assert_int_equal(c->workers.count, 3);
	assert_int_equal(c->workers.ncpus, 3);
	assert_int_equal(c->workers.cpus[0], 2);
	assert_int_equal(c->workers.cpus[1], 0);
	assert_int_equal(c->workers.cpus[2], 1);
	assert_int_equal(c->workers.polling, RPMAF_POLLING_ADAPTIVE);
	assert_int_equal(c->workers.spin_us, 7);
	assert_int_equal(c->workers.batch, 5);
	assert_int_equal(c->queues.sq, 100);
	assert_int_equal(c->queues.cq, 5000);
	assert_int_equal(c->queues.srq_rq, 2000);
	assert_int_equal(c->queues.srq_rcq, 2100);
	assert_int_equal(c->queues.rq, 0);
	assert_int_equal(c->queues.rcq, 0);
	assert_int_equal(c->queues.inline_size, 128);
	assert_int_equal(c->queues.msg_size, 8192);
	assert_int_equal(c->queues.msg_credits, 10);
	assert_true(c->listen.enabled);
	assert_string_equal(c->listen.address, "10.1.2.3");
	assert_int_equal(c->listen.port, 9000);
	assert_int_equal(c->listen.backlog, 17);
	assert_int_equal(c->listen.max_connections, 100);
	assert_int_equal(c->timeouts.connect_ms, 11);
	assert_int_equal(c->timeouts.operation_ms, 12);
	assert_int_equal(c->timeouts.heartbeat_interval_ms, 0);
	assert_int_equal(c->timeouts.heartbeat_misses, 13);
	assert_int_equal(c->reconnect.initial_ms, 14);
	assert_int_equal(c->reconnect.max_ms, 15);
	assert_true(c->reconnect.multiplier == 1.25);
	assert_true(c->reconnect.jitter == 0.5);
	assert_string_equal(c->auth.key_file, "/etc/key");
	assert_int_equal(c->log.level, RPMAF_LOG_DEBUG);
	assert_string_equal(c->log.file, "/var/log/x.log");
	assert_string_equal(c->stats.file, "stats file.json");
	assert_int_equal(c->stats.interval_ms, 16);
	assert_true(c->rpmem.enabled);
	assert_string_equal(c->rpmem.poolset_dir, "/pools");
	assert_int_equal(c->rpmem.persistence, RPMAF_PERSIST_GPSPM);
	assert_true(c->rpmem.direct_write);
	assert_int_equal(c->rpmem.max_lanes, 17);
	/* (100 + 5 + 1) connections over 3 workers */
	assert_int_equal(c->conns_per_worker, 36);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* every_key_lists -- each key of targets[] and regions[] reaches its field */
static void
every_key_lists(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c = load_ok_opts(Every_key, &opts);
	const struct rpmaf_cfg_region *r;

	(void)state;
	assert_int_equal(c->ntargets, 2);
	assert_string_equal(c->targets[0].name, "t-1");
	assert_string_equal(c->targets[0].address, "host.example");
	assert_int_equal(c->targets[0].port, 9001);
	assert_int_equal(c->targets[0].connections, 5);
	assert_string_equal(c->targets[1].name, "t.2");
	assert_string_equal(c->targets[1].address, "::1");
	assert_int_equal(c->nregions, 2);
	r = &c->regions[0];
	assert_string_equal(r->name, "r_a");
	assert_int_equal(r->size, 2 << 20);
	assert_int_equal(r->backing, RPMAF_BACKING_ANONYMOUS);
	assert_int_equal(r->usage, RPMAF_USAGE_READ | RPMAF_USAGE_WRITE);
	assert_int_equal(r->persistence, RPMAF_PERSIST_AUTO);
	assert_false(r->direct_write);
	r = &c->regions[1];
	assert_string_equal(r->name, "r_b");
	assert_int_equal(r->size, 12288);
	assert_int_equal(r->backing, RPMAF_BACKING_FILE);
	assert_string_equal(r->path, "/pmem/b");
	assert_true(r->create);
	assert_int_equal(r->usage, RPMAF_USAGE_FLUSH);
	assert_int_equal(r->persistence, RPMAF_PERSIST_APM);
	assert_true(r->direct_write);
	rpmaf_cfg_delete(&c);
}

/* enums -- every value of every enum key */
static void
enums(void **state)
{
	static const char *const polling[] = {"busy", "adaptive", "event"};
	static const char *const level[] = {"error", "warning", "notice", "info", "debug"};
	static const char *const persist[] = {"auto", "apm", "gpspm"};
	struct rpmaf_cfg *c;

	(void)state;
	for (int i = 0; i < 3; i++) {
		c = load_ok(fmt("workers: {polling: %s}", polling[i]));
		assert_int_equal(c->workers.polling, i);
		/* spin_us applies to adaptive polling only */
		assert_int_equal(c->workers.spin_us, i == RPMAF_POLLING_ADAPTIVE ? 50 : 0);
		expect_roundtrip(c);
		rpmaf_cfg_delete(&c);
	}
	for (int i = 0; i < 5; i++) {
		c = load_ok(fmt("log: {level: %s}", level[i]));
		assert_int_equal(c->log.level, i);
		rpmaf_cfg_delete(&c);
	}
	for (int i = 0; i < 3; i++) {
		c = load_ok(fmt("listen: {address: a}\nrpmem: {poolset_dir: /, persistence: %s,"
				" direct_write: true}",
				persist[i]));
		assert_int_equal(c->rpmem.persistence, i);
		rpmaf_cfg_delete(&c);
		c = load_ok(fmt("regions: [{name: r, size: 4K, persistence: %s, direct_write: true,"
				" backing: {file: /dev/null}}]",
				persist[i]));
		assert_int_equal(c->regions[0].persistence, i);
		rpmaf_cfg_delete(&c);
	}
}

/* spellings -- booleans, sizes, numbers and strings in every accepted form */
static void
spellings(void **state)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} sizes[] = {{"4096", 4096},	   {"8K", 8192},       {"8KiB", 8192},
		     {"3M", 3 << 20},	   {"3MiB", 3 << 20},  {"1G", 1ull << 30},
		     {"1GiB", 1ull << 30}, {"1T", 1ull << 40}, {"1TiB", 1ull << 40}};
	static const char *const yes[] = {"true", "True", "TRUE"};
	static const char *const no[] = {"false", "False", "FALSE"};
	struct rpmaf_cfg *c;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		c = load_ok(fmt("regions: [{name: r, size: %s}]", sizes[i].text));
		assert_int_equal(c->regions[0].size, sizes[i].bytes);
		expect_roundtrip(c);
		rpmaf_cfg_delete(&c);
	}
	for (int i = 0; i < 3; i++) {
		c = load_ok(
		    fmt("rpmem: {poolset_dir: /, direct_write: %s}\nlisten: {address: a}", yes[i]));
		assert_true(c->rpmem.direct_write);
		rpmaf_cfg_delete(&c);
		c = load_ok(
		    fmt("rpmem: {poolset_dir: /, direct_write: %s}\nlisten: {address: a}", no[i]));
		assert_false(c->rpmem.direct_write);
		rpmaf_cfg_delete(&c);
	}
	c = load_ok("reconnect: {multiplier: 15e-1, jitter: 0.000001}\n"
		    "log: {file: \"/tmp/a\\\"b\\\\c\\u00e9\\u0085\"}\n");
	assert_true(c->reconnect.multiplier == 1.5);
	assert_true(c->reconnect.jitter == 0.000001);
	assert_string_equal(c->log.file, "/tmp/a\"b\\c\xc3\xa9\xc2\x85");
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* one range case: the override, and what follows "--set OVERRIDE: " in the message */
struct range_case {
	const char *base;
	const char *set;
	const char *msg;
};

#define INT_RANGE(path, v, lo, hi)                                                                 \
	{                                                                                          \
		"{}", path "=" #v,                                                                 \
		    path ": \"" #v "\" is out of range (an integer from " #lo " to " #hi ")"       \
	}
#define LIST_RANGE(base, path, v, lo, hi)                                                          \
	{                                                                                          \
		base, path "=" #v,                                                                 \
		    path ": \"" #v "\" is out of range (an integer from " #lo " to " #hi ")"       \
	}
#define AUTO_RANGE(path, v, lo, hi)                                                                \
	{                                                                                          \
		"{}", path "=" #v,                                                                 \
		    path ": \"" #v "\" is out of range (auto or an integer from " #lo " to " #hi   \
			 ")"                                                                       \
	}

static const char Target[] = "targets: [{name: a, address: b}]";
static const char Region[] = "regions: [{name: a, size: 4K}]";

static const struct range_case Ranges[] = {
    INT_RANGE("workers.count", 0, 1, 256),
    INT_RANGE("workers.count", 257, 1, 256),
    INT_RANGE("workers.spin_us", 0, 1, 1000000),
    INT_RANGE("workers.spin_us", 1000001, 1, 1000000),
    INT_RANGE("workers.batch", 0, 1, 1024),
    INT_RANGE("workers.batch", 1025, 1, 1024),
    INT_RANGE("queues.sq", 0, 1, 32768),
    INT_RANGE("queues.sq", 32769, 1, 32768),
    AUTO_RANGE("queues.rq", 0, 1, 32768),
    AUTO_RANGE("queues.rq", 32769, 1, 32768),
    AUTO_RANGE("queues.cq", 0, 1, 4194304),
    AUTO_RANGE("queues.cq", 4194305, 1, 4194304),
    AUTO_RANGE("queues.rcq", 0, 1, 4194304),
    AUTO_RANGE("queues.rcq", 4194305, 1, 4194304),
    AUTO_RANGE("queues.srq.rq", 32769, 0, 32768),
    AUTO_RANGE("queues.srq.rcq", 0, 1, 4194304),
    AUTO_RANGE("queues.srq.rcq", 4194305, 1, 4194304),
    INT_RANGE("queues.inline", 1025, 0, 1024),
    INT_RANGE("queues.messages.credits", 2, 3, 1024),
    INT_RANGE("queues.messages.credits", 1025, 3, 1024),
    INT_RANGE("listen.port", 0, 1, 65535),
    INT_RANGE("listen.port", 65536, 1, 65535),
    INT_RANGE("listen.backlog", 0, 1, 65535),
    INT_RANGE("listen.backlog", 65536, 1, 65535),
    INT_RANGE("listen.max_connections", 0, 1, 65536),
    INT_RANGE("listen.max_connections", 65537, 1, 65536),
    LIST_RANGE(Target, "targets[0].port", 0, 1, 65535),
    LIST_RANGE(Target, "targets[0].port", 65536, 1, 65535),
    LIST_RANGE(Target, "targets[0].connections", 0, 1, 1024),
    LIST_RANGE(Target, "targets[0].connections", 1025, 1, 1024),
    INT_RANGE("timeouts.connect_ms", 0, 1, 3600000),
    INT_RANGE("timeouts.connect_ms", 3600001, 1, 3600000),
    INT_RANGE("timeouts.operation_ms", 0, 1, 3600000),
    INT_RANGE("timeouts.operation_ms", 3600001, 1, 3600000),
    INT_RANGE("timeouts.heartbeat_interval_ms", 3600001, 0, 3600000),
    INT_RANGE("timeouts.heartbeat_misses", 0, 1, 100),
    INT_RANGE("timeouts.heartbeat_misses", 101, 1, 100),
    INT_RANGE("reconnect.initial_ms", 0, 1, 3600000),
    INT_RANGE("reconnect.initial_ms", 3600001, 1, 3600000),
    INT_RANGE("reconnect.max_ms", 0, 1, 3600000),
    INT_RANGE("reconnect.max_ms", 3600001, 1, 3600000),
    INT_RANGE("stats.interval_ms", 86400001, 0, 86400000),
    INT_RANGE("rpmem.max_lanes", 0, 1, 65535),
    INT_RANGE("rpmem.max_lanes", 65536, 1, 65535),
    INT_RANGE("workers.count", -1, 1, 256),
    INT_RANGE("workers.count", 99999999999999999999999, 1, 256),
    {"{}", "workers.cpus=[1024]",
     "workers.cpus[0]: \"1024\" is out of range (an integer from 0 to 1023)"},
    {"{}", "queues.messages.size=63",
     "queues.messages.size: \"63\" is out of range (a size from 256 to 1M: bytes or K, M, G, "
     "T)"},
    {"{}", "queues.messages.size=1025K",
     "queues.messages.size: \"1025K\" is out of range (a size from 256 to 1M: bytes or K, M, G, "
     "T)"},
    {Region, "regions[0].size=0",
     "regions[0].size: \"0\" is out of range (a size from 4K to 1T, a multiple of 4K: bytes or "
     "K, M, G, T)"},
    {Region, "regions[0].size=2T",
     "regions[0].size: \"2T\" is out of range (a size from 4K to 1T, a multiple of 4K: bytes or "
     "K, M, G, T)"},
    {Region, "regions[0].size=20000000T",
     "regions[0].size: \"20000000T\" is out of range (a size from 4K to 1T, a multiple of 4K: "
     "bytes or K, M, G, T)"},
    {Region, "regions[0].size=6K",
     "regions[0].size: \"6K\" is not a multiple of 4K (a size from 4K to 1T, a multiple of 4K: "
     "bytes or K, M, G, T)"},
    {"{}", "reconnect.multiplier=0.5",
     "reconnect.multiplier: \"0.5\" is out of range (a number from 1 to 10)"},
    {"{}", "reconnect.multiplier=10.01",
     "reconnect.multiplier: \"10.01\" is out of range (a number from 1 to 10)"},
    {"{}", "reconnect.multiplier=1e999",
     "reconnect.multiplier: \"1e999\" is out of range (a number from 1 to 10)"},
    {"{}", "reconnect.jitter=1.5",
     "reconnect.jitter: \"1.5\" is out of range (a number from 0 to 1)"},
};

/* ranges -- each bounded key refuses the value just beyond each end, with the range */
static void
ranges(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(Ranges) / sizeof(Ranges[0]); i++)
		expect_err_set(Ranges[i].base, Ranges[i].set, RPMAF_E_CONFIG,
			       fmt("--set %s: %s", Ranges[i].set, Ranges[i].msg));
}

/* range_ends -- both ends of the ranges are accepted */
static void
range_ends(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	c = load_ok("workers: {count: 256, spin_us: 1000000, batch: 1}\n"
		    "queues: {sq: 32768, inline: 1024, messages: {size: 1M, credits: 3}}\n"
		    "timeouts: {connect_ms: 3600000, heartbeat_misses: 100}\n"
		    "reconnect: {initial_ms: 1, max_ms: 3600000, multiplier: 10, jitter: 1}\n"
		    "stats: {interval_ms: 86400000}\n");
	assert_int_equal(c->workers.count, 256);
	assert_int_equal(c->workers.spin_us, 1000000);
	assert_int_equal(c->queues.sq, 32768);
	assert_int_equal(c->queues.inline_size, 1024);
	assert_int_equal(c->queues.msg_size, 1 << 20);
	assert_int_equal(c->queues.cq, 32768);
	assert_true(c->reconnect.multiplier == 10.0);
	assert_true(c->reconnect.jitter == 1.0);
	assert_int_equal(c->stats.interval_ms, 86400000);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
	/* sq's own low end (1) is below credits' (3), which sq must hold */
	c = load_ok("workers: {count: 1, spin_us: 1, batch: 1}\nqueues: {sq: 3, inline: 0, "
		    "messages: {size: "
		    "256, credits: 3}}\ntimeouts: {heartbeat_interval_ms: 0}\n"
		    "reconnect: {multiplier: 1, jitter: 0}\nregions: [{name: r, size: 1T}]\n"
		    "listen: {address: a, port: 65535, max_connections: 1}\n");
	assert_int_equal(c->queues.sq, 3);
	assert_int_equal(c->queues.msg_size, 256);
	assert_int_equal(c->regions[0].size, 1ull << 40);
	assert_int_equal(c->listen.port, 65535);
	assert_true(c->reconnect.jitter == 0.0);
	rpmaf_cfg_delete(&c);
}

/* one type case: yaml, and the exact message */
struct type_case {
	const char *yaml;
	const char *msg;
};

static const struct type_case Types[] = {
    {"workers: {count: \"2\"}",
     "t.yaml:1:18: workers.count: found the quoted string \"2\" (an integer from 1 to 256)"},
    {"workers: {count: two}",
     "t.yaml:1:18: workers.count: found \"two\" (an integer from 1 to 256)"},
    {"workers: {count: 2.0}",
     "t.yaml:1:18: workers.count: found \"2.0\" (an integer from 1 to 256)"},
    {"workers: {count: 010}",
     "t.yaml:1:18: workers.count: found \"010\" (an integer from 1 to 256)"},
    {"workers: {count: +2}", "t.yaml:1:18: workers.count: found \"+2\" (an integer from 1 to 256)"},
    {"workers: {count: 0x10}",
     "t.yaml:1:18: workers.count: found \"0x10\" (an integer from 1 to 256)"},
    {"workers: {count: [2]}",
     "t.yaml:1:18: workers.count: found a list (an integer from 1 to 256)"},
    {"workers: {count: {a: 1}}",
     "t.yaml:1:18: workers.count: found a mapping (an integer from 1 to 256)"},
    {"workers: {count: }", "t.yaml:1:18: workers.count: no value (an integer from 1 to 256)"},
    {"workers: {count: ~}", "t.yaml:1:18: workers.count: no value (an integer from 1 to 256)"},
    {"workers: {count: auto}",
     "t.yaml:1:18: workers.count: found \"auto\" (an integer from 1 to 256)"},
    {"queues: {cq: automatic}",
     "t.yaml:1:14: queues.cq: found \"automatic\" (auto or an integer from 1 to 4194304)"},
    {"queues: {messages: {size: 4 K}}",
     "t.yaml:1:27: queues.messages.size: found \"4 K\" (a size from 256 to 1M: bytes or K, M, G, "
     "T)"},
    {"queues: {messages: {size: 4KB}}",
     "t.yaml:1:27: queues.messages.size: found \"4KB\" (a size from 256 to 1M: bytes or K, M, G, "
     "T)"},
    {"queues: {messages: {size: K}}",
     "t.yaml:1:27: queues.messages.size: found \"K\" (a size from 256 to 1M: bytes or K, M, G, T)"},
    {"rpmem: {direct_write: yes}",
     "t.yaml:1:23: rpmem.direct_write: found \"yes\" (true or false)"},
    {"rpmem: {direct_write: 'true'}",
     "t.yaml:1:23: rpmem.direct_write: found the quoted string \"true\" (true or false)"},
    {"reconnect: {jitter: .5}",
     "t.yaml:1:21: reconnect.jitter: found \".5\" (a number from 0 to 1)"},
    {"reconnect: {jitter: 1.}",
     "t.yaml:1:21: reconnect.jitter: found \"1.\" (a number from 0 to 1)"},
    {"reconnect: {jitter: 0x1p-1}",
     "t.yaml:1:21: reconnect.jitter: found \"0x1p-1\" (a number from 0 to 1)"},
    {"reconnect: {jitter: nan}",
     "t.yaml:1:21: reconnect.jitter: found \"nan\" (a number from 0 to 1)"},
    {"reconnect: {jitter: 1e}",
     "t.yaml:1:21: reconnect.jitter: found \"1e\" (a number from 0 to 1)"},
    {"workers: {polling: Busy}",
     "t.yaml:1:20: workers.polling: unknown value \"Busy\" (did you mean busy? one of busy, "
     "adaptive, event)"},
    {"workers: {polling: sleep}",
     "t.yaml:1:20: workers.polling: unknown value \"sleep\" (one of busy, adaptive, event)"},
    {"workers: {polling: [busy]}",
     "t.yaml:1:20: workers.polling: found a list (one of busy, adaptive, event)"},
    {"log: {level: warn}",
     "t.yaml:1:14: log.level: unknown value \"warn\" (one of error, warning, notice, info, debug)"},
    {"log: {level: debgu}",
     "t.yaml:1:14: log.level: unknown value \"debgu\" (did you mean debug? one of error, "
     "warning, notice, info, debug)"},
    {"workers: {cpus: 3}",
     "t.yaml:1:17: workers.cpus: found \"3\" (a list of CPU numbers from 0 to 1023)"},
    {"workers: {cpus: []}",
     "t.yaml:1:17: workers.cpus: an empty list (CPU numbers, one per worker)"},
    {"workers: {count: 2, cpus: [1, 1]}",
     "t.yaml:1:31: workers.cpus[1]: CPU appears twice (each CPU once)"},
    {"workers: {cpus: [a]}",
     "t.yaml:1:18: workers.cpus[0]: found \"a\" (an integer from 0 to 1023)"},
    {"listen: {address: [a]}",
     "t.yaml:1:19: listen.address: found a list (an IPv4 or IPv6 address or a host name)"},
    {"listen: {address: -host}",
     "t.yaml:1:19: listen.address: \"-host\" is not valid (an IPv4 or IPv6 address or a host "
     "name)"},
    {"listen: {address: a..b}",
     "t.yaml:1:19: listen.address: \"a..b\" is not valid (an IPv4 or IPv6 address or a host "
     "name)"},
    {"listen: {address: 1.2.3.999}",
     "t.yaml:1:19: listen.address: \"1.2.3.999\" is not valid (an IPv4 or IPv6 address or a "
     "host name)"},
    {"listen: {address: 'a b'}",
     "t.yaml:1:19: listen.address: \"a b\" is not valid (an IPv4 or IPv6 address or a host "
     "name)"},
    {"listen: {address: ''}",
     "t.yaml:1:19: listen.address: \"\" is not valid (an IPv4 or IPv6 address or a host name)"},
    {"targets: [{name: 'a/b', address: x}]",
     "t.yaml:1:18: targets[0].name: \"a/b\" is not valid (1 to 63 letters, digits, '_', '-' or "
     "'.')"},
    {"targets: [{name: "
     "a123456789012345678901234567890123456789012345678901234567890123, address: x}]",
     "t.yaml:1:18: targets[0].name: "
     "\"a123456789012345678901234567890123456789012345678901234567890123\" is not valid (1 to 63 "
     "letters, digits, '_', '-' or '.')"},
    {"log: {file: \"a\\tb\"}",
     "t.yaml:1:13: log.file: \"a\\x09b\" is not valid (a path of 1 to 4095 bytes)"},
    {"log: {file: \"a\\0b\"}",
     "t.yaml:1:13: log.file: \"a\\x00b\" is not valid (a path of 1 to 4095 bytes)"},
    {"log: {file: ''}", "t.yaml:1:13: log.file: \"\" is not valid (a path of 1 to 4095 bytes)"},
    {"log: {file: }", "t.yaml:1:13: log.file: no value (a path of 1 to 4095 bytes)"},
    {"regions: [{name: r, size: 4K, usage: read}]",
     "t.yaml:1:38: regions[0].usage: found \"read\" (a list of read, write, flush)"},
    {"regions: [{name: r, size: 4K, usage: []}]",
     "t.yaml:1:38: regions[0].usage: an empty list (a list of read, write, flush)"},
    {"regions: [{name: r, size: 4K, usage: [read, raed]}]",
     "t.yaml:1:45: regions[0].usage[1]: unknown value \"raed\" (did you mean read? a list of "
     "read, write, flush)"},
    {"regions: [{name: r, size: 4K, usage: [read, read]}]",
     "t.yaml:1:45: regions[0].usage[1]: appears twice (each value once)"},
    {"regions: [{name: r, size: 4K, backing: anon}]",
     "t.yaml:1:40: regions[0].backing: unknown value \"anon\" (anonymous or a mapping of file, "
     "create)"},
    {"regions: [{name: r, size: 4K, backing: [x]}]",
     "t.yaml:1:40: regions[0].backing: found a list (anonymous or a mapping of file, create)"},
    {"regions: [{name: r, size: 4K, backing: {create: true}}]",
     "t.yaml:1:40: regions[0].backing.file: missing (a path of 1 to 4095 bytes)"},
    {"regions: [{name: r, size: 4K, backing: {file: /x, craete: true}}]",
     "t.yaml:1:51: regions[0].backing.craete: unknown key (did you mean create? one of file, "
     "create)"},
    {"regions: {name: r}",
     "t.yaml:1:10: regions: found a mapping (a list of mappings of name, size, backing, usage, "
     "persistence, direct_write)"},
    {"regions: [r]",
     "t.yaml:1:11: regions[0]: found \"r\" (a mapping of name, size, backing, usage, "
     "persistence, direct_write)"},
    {"targets: [{address: x}]",
     "t.yaml:1:11: targets[0].name: missing (1 to 63 letters, digits, '_', '-' or '.')"},
    {"targets: [{name: x}]",
     "t.yaml:1:11: targets[0].address: missing (an IPv4 or IPv6 address or a host name)"},
    {"regions: [{name: x}]",
     "t.yaml:1:11: regions[0].size: missing (a size from 4K to 1T, a multiple of 4K: bytes or K, "
     "M, G, T)"},
    {"listen: {port: 1}",
     "t.yaml:1:9: listen.address: missing (an IPv4 or IPv6 address or a host name)"},
    {"rpmem: {max_lanes: 1}", "t.yaml:1:8: rpmem.poolset_dir: missing (a path of 1 to 4095 bytes)"},
    {"workers: 4",
     "t.yaml:1:10: workers: found \"4\" (a mapping of count, cpus, polling, spin_us, batch)"},
    {"queues: []",
     "t.yaml:1:9: queues: found a list (a mapping of sq, rq, cq, rcq, srq, inline, messages)"},
    {"auth:", "t.yaml:1:6: auth: no value (a mapping of key_file)"},
    {"- workers",
     "t.yaml:1:1: found a list (a mapping of workers, queues, listen, targets, regions, "
     "timeouts, reconnect, auth, log, stats, rpmem)"},
    {"workers",
     "t.yaml:1:1: found \"workers\" (a mapping of workers, queues, listen, targets, regions, "
     "timeouts, reconnect, auth, log, stats, rpmem)"},
};

/* types -- a value of the wrong type, or missing, named with its position */
static void
types(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(Types) / sizeof(Types[0]); i++)
		expect_err(Types[i].yaml, RPMAF_E_CONFIG, Types[i].msg);
}

/* long_lists -- more CPUs than workers can be, more entries than a list may have */
static void
long_lists(void **state)
{
	char yaml[8192];
	size_t o;

	(void)state;
	o = (size_t)sprintf(yaml, "workers: {cpus: [");
	for (int i = 0; i < 257; i++)
		o += (size_t)sprintf(yaml + o, "%s%d", i ? "," : "", i);
	sprintf(yaml + o, "]}");
	expect_err(yaml, RPMAF_E_CONFIG,
		   "t.yaml:1:17: workers.cpus: more CPUs than workers can be (at most 256)");
	o = (size_t)sprintf(yaml, "targets: [");
	for (int i = 0; i < 257; i++)
		o += (size_t)sprintf(yaml + o, "%s{}", i ? "," : "");
	sprintf(yaml + o, "]");
	expect_err(yaml, RPMAF_E_CONFIG, "t.yaml:1:10: targets: 257 entries (at most 256)");
	expect_err(
	    "reconnect: {jitter: '0.5'}", RPMAF_E_CONFIG,
	    "t.yaml:1:21: reconnect.jitter: found the quoted string \"0.5\" (a number from 0 "
	    "to 1)");
}

/* unknown_keys -- at every level, with the nearest known key when one is close */
static void
unknown_keys(void **state)
{
	(void)state;
	expect_err("worker: {}", RPMAF_E_CONFIG,
		   "t.yaml:1:1: worker: unknown key (did you mean workers? one of workers, queues, "
		   "listen, targets, regions, timeouts, reconnect, auth, log, stats, rpmem)");
	expect_err(
	    "log: {}\nfoo: 1", RPMAF_E_CONFIG,
	    "t.yaml:2:1: foo: unknown key (one of workers, queues, listen, targets, regions, "
	    "timeouts, reconnect, auth, log, stats, rpmem)");
	expect_err("workers:\n  count: 1\n  cont: 2\n", RPMAF_E_CONFIG,
		   "t.yaml:3:3: workers.cont: unknown key (did you mean count? one of count, cpus, "
		   "polling, spin_us, batch)");
	expect_err("queues: {srq: {rqc: 1}}", RPMAF_E_CONFIG,
		   "t.yaml:1:16: queues.srq.rqc: unknown key (did you mean rq? one of rq, rcq)");
	expect_err(
	    "queues: {mesages: {}}", RPMAF_E_CONFIG,
	    "t.yaml:1:10: queues.mesages: unknown key (did you mean messages? one of sq, rq, "
	    "cq, rcq, srq, inline, messages)");
	expect_err("targets: [{name: a, address: b, conections: 2}]", RPMAF_E_CONFIG,
		   "t.yaml:1:33: targets[0].conections: unknown key (did you mean connections? one "
		   "of name, address, port, connections)");
	expect_err("timeouts: {heartbeat_intervall_ms: 1}", RPMAF_E_CONFIG,
		   "t.yaml:1:12: timeouts.heartbeat_intervall_ms: unknown key (did you mean "
		   "heartbeat_interval_ms? one of connect_ms, operation_ms, heartbeat_interval_ms, "
		   "heartbeat_misses)");
	expect_err("reconnect: {maxms: 1}", RPMAF_E_CONFIG,
		   "t.yaml:1:13: reconnect.maxms: unknown key (did you mean max_ms? one of "
		   "initial_ms, max_ms, multiplier, jitter)");
	expect_err("auth: {key: /k}", RPMAF_E_CONFIG,
		   "t.yaml:1:8: auth.key: unknown key (one of key_file)");
	expect_err(
	    "log: {\"le.vel\": 1}", RPMAF_E_CONFIG,
	    "t.yaml:1:7: log.\"le.vel\": unknown key (did you mean level? one of level, file)");
	expect_err(
	    "stats: {\"\\x01\": 1}", RPMAF_E_CONFIG,
	    "t.yaml:1:9: stats.\"\\x01\": unknown key (one of file, interval_ms, prometheus_file)");
	expect_err("rpmem: {lanes: 1}", RPMAF_E_CONFIG,
		   "t.yaml:1:9: rpmem.lanes: unknown key (one of poolset_dir, persistence, "
		   "direct_write, max_lanes)");
	expect_err("listen: {adress: a}", RPMAF_E_CONFIG,
		   "t.yaml:1:10: listen.adress: unknown key (did you mean address? one of address, "
		   "port, backlog, max_connections)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(entry_defaults),
	    cmocka_unit_test(every_key_sections),
	    cmocka_unit_test(every_key_lists),
	    cmocka_unit_test(enums),
	    cmocka_unit_test(spellings),
	    cmocka_unit_test(ranges),
	    cmocka_unit_test(range_ends),
	    cmocka_unit_test(types),
	    cmocka_unit_test(unknown_keys),
	    cmocka_unit_test(long_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
