/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * schema.c -- the table of keys and the defaults. doc/CONFIG.md documents
 * every entry; tests/unit/config checks that it does.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "schema.h"

#define KEY(nm, ty, st, fld) .name = nm, .type = RPMAF__CFG_T_##ty, .offset = offsetof(st, fld)
#define RANGE(lo, hi)	     .min = lo, .max = hi
#define NO_COUNT	     .count_offset = RPMAF__CFG_NONE
#define END                                                                                        \
	{                                                                                          \
		.name = NULL                                                                       \
	}

#define KIB	(1ull << 10)
#define MIB	(1ull << 20)
#define TIB	(1ull << 40)
#define HOUR_MS 3600000
#define DAY_MS	86400000

static const char *const Polling_names[] = {"busy", "adaptive", "event", NULL};
static const char *const Persistence_names[] = {"auto", "apm", "gpspm", NULL};
static const char *const Usage_names[] = {"read", "write", "flush", NULL};
static const char *const Level_names[] = {"error", "warning", "notice", "info", "debug", NULL};
static const char *const Backing_names[] = {"anonymous", NULL};

/* omit_spin -- spin_us means nothing without adaptive polling */
static bool
omit_spin(const void *base)
{
	return ((const struct rpmaf_cfg_workers *)base)->polling != RPMAF_POLLING_ADAPTIVE;
}

/* omit_conn_rq -- a connection's own receive queue and its CQ exist only without an SRQ */
static bool
omit_conn_rq(const void *base)
{
	return ((const struct rpmaf_cfg_queues *)base)->srq_rq != 0;
}

/* omit_srq_rcq -- the SRQ's completion queue exists only with an SRQ */
static bool
omit_srq_rcq(const void *base)
{
	return ((const struct rpmaf_cfg_queues *)base)->srq_rq == 0;
}

#define WORKERS struct rpmaf_cfg_workers
static const struct rpmaf__cfg_key Workers_keys[] = {
    {KEY("count", U32, WORKERS, count), RANGE(1, 256)},
    {KEY("cpus", CPUS, WORKERS, cpus), RANGE(0, 1023), .count_offset = offsetof(WORKERS, ncpus)},
    {KEY("polling", ENUM, WORKERS, polling), .names = Polling_names},
    {KEY("spin_us", U32, WORKERS, spin_us), RANGE(1, 1000000), .omit = omit_spin},
    {KEY("batch", U32, WORKERS, batch), RANGE(1, 1024)},
    END,
};

#define QUEUES struct rpmaf_cfg_queues
static const struct rpmaf__cfg_key Srq_keys[] = {
    {KEY("rq", U32_AUTO, QUEUES, srq_rq), RANGE(0, 32768)},
    {KEY("rcq", U32_AUTO, QUEUES, srq_rcq), RANGE(1, 4194304), .omit = omit_srq_rcq},
    END,
};

static const struct rpmaf__cfg_key Messages_keys[] = {
    {KEY("size", SIZE, QUEUES, msg_size), RANGE(256, MIB)},
    {KEY("credits", U32, QUEUES, msg_credits), RANGE(3, 1024)},
    END,
};

static const struct rpmaf__cfg_key Queues_keys[] = {
    {KEY("sq", U32, QUEUES, sq), RANGE(1, 32768)},
    {KEY("rq", U32_AUTO, QUEUES, rq), RANGE(1, 32768), .omit = omit_conn_rq},
    {KEY("cq", U32_AUTO, QUEUES, cq), RANGE(1, 4194304)},
    {KEY("rcq", U32_AUTO, QUEUES, rcq), RANGE(1, 4194304), .omit = omit_conn_rq},
    {.name = "srq", .type = RPMAF__CFG_T_SECTION, .offset = 0, .keys = Srq_keys, NO_COUNT},
    {KEY("inline", U32, QUEUES, inline_size), RANGE(0, 1024)},
    {.name = "messages",
     .type = RPMAF__CFG_T_SECTION,
     .offset = 0,
     .keys = Messages_keys,
     NO_COUNT},
    END,
};

#define LISTEN struct rpmaf_cfg_listen
static const struct rpmaf__cfg_key Listen_keys[] = {
    {KEY("address", HOST, LISTEN, address), RANGE(1, 253), .required = true},
    {KEY("port", U32, LISTEN, port), RANGE(1, 65535)},
    {KEY("backlog", U32, LISTEN, backlog), RANGE(1, 65535)},
    {KEY("max_connections", U32, LISTEN, max_connections), RANGE(1, 65536)},
    END,
};

#define TARGET struct rpmaf_cfg_target
static const struct rpmaf__cfg_key Target_keys[] = {
    {KEY("name", NAME, TARGET, name), RANGE(1, 63), .required = true},
    {KEY("address", HOST, TARGET, address), RANGE(1, 253), .required = true},
    {KEY("port", U32, TARGET, port), RANGE(1, 65535)},
    {KEY("connections", U32, TARGET, connections), RANGE(1, 1024)},
    END,
};

#define REGION struct rpmaf_cfg_region
static const struct rpmaf__cfg_key Backing_keys[] = {
    {KEY("file", PATH, REGION, path), RANGE(1, 4095), .required = true},
    {KEY("create", BOOL, REGION, create)},
    END,
};

static const struct rpmaf__cfg_key Region_keys[] = {
    {KEY("name", NAME, REGION, name), RANGE(1, 63), .required = true},
    {KEY("size", SIZE, REGION, size), RANGE(4 * KIB, TIB), .align = 4 * KIB, .required = true},
    {KEY("backing", BACKING, REGION, backing), .names = Backing_names, .keys = Backing_keys},
    {KEY("usage", FLAGS, REGION, usage), .names = Usage_names},
    {KEY("persistence", ENUM, REGION, persistence), .names = Persistence_names},
    {KEY("direct_write", BOOL, REGION, direct_write)},
    END,
};

#define TIMEOUTS struct rpmaf_cfg_timeouts
static const struct rpmaf__cfg_key Timeouts_keys[] = {
    {KEY("connect_ms", U32, TIMEOUTS, connect_ms), RANGE(1, HOUR_MS)},
    {KEY("operation_ms", U32, TIMEOUTS, operation_ms), RANGE(1, HOUR_MS)},
    {KEY("heartbeat_interval_ms", U32, TIMEOUTS, heartbeat_interval_ms), RANGE(0, HOUR_MS)},
    {KEY("heartbeat_misses", U32, TIMEOUTS, heartbeat_misses), RANGE(1, 100)},
    END,
};

#define RECONNECT struct rpmaf_cfg_reconnect
static const struct rpmaf__cfg_key Reconnect_keys[] = {
    {KEY("initial_ms", U32, RECONNECT, initial_ms), RANGE(1, HOUR_MS)},
    {KEY("max_ms", U32, RECONNECT, max_ms), RANGE(1, HOUR_MS)},
    {KEY("multiplier", FLOAT, RECONNECT, multiplier), .fmin = 1.0, .fmax = 10.0},
    {KEY("jitter", FLOAT, RECONNECT, jitter), .fmin = 0.0, .fmax = 1.0},
    END,
};

static const struct rpmaf__cfg_key Auth_keys[] = {
    {KEY("key_file", PATH, struct rpmaf_cfg_auth, key_file), RANGE(1, 4095)},
    END,
};

static const struct rpmaf__cfg_key Log_keys[] = {
    {KEY("level", ENUM, struct rpmaf_cfg_log, level), .names = Level_names},
    {KEY("file", PATH, struct rpmaf_cfg_log, file), RANGE(1, 4095)},
    END,
};

static const struct rpmaf__cfg_key Stats_keys[] = {
    {KEY("file", PATH, struct rpmaf_cfg_stats, file), RANGE(1, 4095)},
    {KEY("interval_ms", U32, struct rpmaf_cfg_stats, interval_ms), RANGE(0, DAY_MS)},
    /* a member of struct rpmaf_cfg added after stats (rpmaf.h): its offset from the section */
    {.name = "prometheus_file",
     .type = RPMAF__CFG_T_PATH,
     .offset =
	 offsetof(struct rpmaf_cfg, stats_prometheus_file) - offsetof(struct rpmaf_cfg, stats),
     RANGE(1, 4095)},
    END,
};

#define RPMEM struct rpmaf_cfg_rpmem
static const struct rpmaf__cfg_key Rpmem_keys[] = {
    {KEY("poolset_dir", PATH, RPMEM, poolset_dir), RANGE(1, 4095), .required = true},
    {KEY("persistence", ENUM, RPMEM, persistence), .names = Persistence_names},
    {KEY("direct_write", BOOL, RPMEM, direct_write)},
    {KEY("max_lanes", U32, RPMEM, max_lanes), RANGE(1, 65535)},
    END,
};

/* target_init -- the defaults of a new targets[] entry */
static void
target_init(void *elem)
{
	struct rpmaf_cfg_target *t = elem;

	t->port = 7204;
	t->connections = 1;
}

/* region_init -- the defaults of a new regions[] entry */
static void
region_init(void *elem)
{
	struct rpmaf_cfg_region *r = elem;

	r->backing = RPMAF_BACKING_ANONYMOUS;
	r->usage = RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH;
	r->persistence = RPMAF_PERSIST_AUTO;
}

#define CFG struct rpmaf_cfg
#define SECTION(nm, fld, ks)                                                                       \
	.name = nm, .type = RPMAF__CFG_T_SECTION, .offset = offsetof(CFG, fld), .keys = ks
static const struct rpmaf__cfg_key Root_keys[] = {
    {SECTION("workers", workers, Workers_keys), NO_COUNT},
    {SECTION("queues", queues, Queues_keys), NO_COUNT},
    {SECTION("listen", listen, Listen_keys),
     .count_offset = offsetof(struct rpmaf_cfg_listen, enabled)},
    {KEY("targets", LIST, CFG, targets), RANGE(0, 256), .keys = Target_keys,
     .count_offset = offsetof(CFG, ntargets), .elem_size = sizeof(struct rpmaf_cfg_target),
     .init = target_init},
    {KEY("regions", LIST, CFG, regions), RANGE(0, 256), .keys = Region_keys,
     .count_offset = offsetof(CFG, nregions), .elem_size = sizeof(struct rpmaf_cfg_region),
     .init = region_init},
    {SECTION("timeouts", timeouts, Timeouts_keys), NO_COUNT},
    {SECTION("reconnect", reconnect, Reconnect_keys), NO_COUNT},
    {SECTION("auth", auth, Auth_keys), NO_COUNT},
    {SECTION("log", log, Log_keys), NO_COUNT},
    {SECTION("stats", stats, Stats_keys), NO_COUNT},
    {SECTION("rpmem", rpmem, Rpmem_keys),
     .count_offset = offsetof(struct rpmaf_cfg_rpmem, enabled)},
    END,
};

const struct rpmaf__cfg_key rpmaf__cfg_schema = {
    .name = "",
    .type = RPMAF__CFG_T_SECTION,
    .offset = 0,
    .keys = Root_keys,
    NO_COUNT,
};

/* see schema.h */
void
rpmaf__cfg_defaults(struct rpmaf_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers.count = 1;
	cfg->workers.polling = RPMAF_POLLING_ADAPTIVE;
	cfg->workers.spin_us = 50;
	cfg->workers.batch = 16;
	cfg->queues.sq = 64;
	cfg->queues.rq = RPMAF__CFG_AUTO;
	cfg->queues.cq = RPMAF__CFG_AUTO;
	cfg->queues.rcq = RPMAF__CFG_AUTO;
	cfg->queues.srq_rq = RPMAF__CFG_AUTO;
	cfg->queues.srq_rcq = RPMAF__CFG_AUTO;
	cfg->queues.inline_size = 64;
	cfg->queues.msg_size = 4096;
	cfg->queues.msg_credits = 16;
	cfg->listen.port = 7204;
	cfg->listen.backlog = 128;
	cfg->listen.max_connections = 64;
	cfg->timeouts.connect_ms = 5000;
	cfg->timeouts.operation_ms = 10000;
	cfg->timeouts.heartbeat_interval_ms = 1000;
	cfg->timeouts.heartbeat_misses = 3;
	cfg->reconnect.initial_ms = 100;
	cfg->reconnect.max_ms = 10000;
	cfg->reconnect.multiplier = 2.0;
	cfg->reconnect.jitter = 0.2;
	cfg->log.level = RPMAF_LOG_NOTICE;
	cfg->rpmem.persistence = RPMAF_PERSIST_AUTO;
	cfg->rpmem.max_lanes = 1024;
}

/* see schema.h */
char *
rpmaf__cfg_size_str(uint64_t bytes, char *buf, size_t size)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (i < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, size, "%" PRIu64, bytes);
	else
		snprintf(buf, size, "%" PRIu64 "%c", bytes, suffix[i]);
	return buf;
}

/* names_join -- "a, b, c" of NULL-terminated names into buf */
static void
names_join(const char *const *names, const char *prefix, char *buf, size_t size)
{
	size_t o = (size_t)snprintf(buf, size, "%s", prefix);

	for (size_t i = 0; names[i] && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", names[i]);
}

/* keys_join -- "a, b, c" of the names of keys into buf */
static void
keys_join(const struct rpmaf__cfg_key *keys, const char *prefix, char *buf, size_t size)
{
	const char *names[32];

	rpmaf__cfg_key_names(keys, names, sizeof(names) / sizeof(names[0]));
	names_join(names, prefix, buf, size);
}

/* see schema.h */
void
rpmaf__cfg_key_names(const struct rpmaf__cfg_key *keys, const char **names, size_t n)
{
	size_t i = 0;

	for (; keys[i].name && i + 1 < n; i++)
		names[i] = keys[i].name;
	names[i] = NULL;
}

/* key_expected_size -- the text of a SIZE key */
static void
key_expected_size(const struct rpmaf__cfg_key *key, char *buf, size_t size)
{
	char lo[32], hi[32], al[32];

	rpmaf__cfg_size_str(key->min, lo, sizeof(lo));
	rpmaf__cfg_size_str(key->max, hi, sizeof(hi));
	if (key->align)
		snprintf(buf, size, "a size from %s to %s, a multiple of %s: bytes or K, M, G, T",
			 lo, hi, rpmaf__cfg_size_str(key->align, al, sizeof(al)));
	else
		snprintf(buf, size, "a size from %s to %s: bytes or K, M, G, T", lo, hi);
}

/* see schema.h */
char *
rpmaf__cfg_key_expected(const struct rpmaf__cfg_key *key, char *buf, size_t size)
{
	switch (key->type) {
	case RPMAF__CFG_T_SECTION:
		keys_join(key->keys, "a mapping of ", buf, size);
		break;
	case RPMAF__CFG_T_LIST:
		keys_join(key->keys, "a list of mappings of ", buf, size);
		break;
	case RPMAF__CFG_T_U32:
		snprintf(buf, size, "an integer from %" PRIu64 " to %" PRIu64, key->min, key->max);
		break;
	case RPMAF__CFG_T_U32_AUTO:
		snprintf(buf, size, "auto or an integer from %" PRIu64 " to %" PRIu64, key->min,
			 key->max);
		break;
	case RPMAF__CFG_T_SIZE:
		key_expected_size(key, buf, size);
		break;
	case RPMAF__CFG_T_BOOL:
		snprintf(buf, size, "true or false");
		break;
	case RPMAF__CFG_T_ENUM:
		names_join(key->names, "one of ", buf, size);
		break;
	case RPMAF__CFG_T_FLAGS:
		names_join(key->names, "a list of ", buf, size);
		break;
	case RPMAF__CFG_T_FLOAT:
		snprintf(buf, size, "a number from %g to %g", key->fmin, key->fmax);
		break;
	case RPMAF__CFG_T_NAME:
		snprintf(buf, size, "1 to %" PRIu64 " letters, digits, '_', '-' or '.'", key->max);
		break;
	case RPMAF__CFG_T_HOST:
		snprintf(buf, size, "an IPv4 or IPv6 address or a host name");
		break;
	case RPMAF__CFG_T_PATH:
		snprintf(buf, size, "a path of 1 to %" PRIu64 " bytes", key->max);
		break;
	case RPMAF__CFG_T_CPUS:
		snprintf(buf, size, "a list of CPU numbers from %" PRIu64 " to %" PRIu64, key->min,
			 key->max);
		break;
	case RPMAF__CFG_T_BACKING:
		keys_join(key->keys, "anonymous or a mapping of ", buf, size);
		break;
	}
	return buf;
}
