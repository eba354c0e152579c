/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- a persistent key-value store on the framework: the server.
 *
 * What it teaches: a real service is a region and a few handlers. The
 * server exports one file-backed region, "kv", holding a hash table
 * (kv.h), readable by the clients and by nobody else writable: clients get
 * with one-sided RDMA reads of the table, which cost the server no CPU,
 * and put and delete through calls, which this server's handlers serve
 * with the CPU. A handler changes its bucket under the version protocol of
 * kv.h and makes it durable with rpmaf_server_region_persist() before it
 * answers: a put that was answered survives a crash. The file is the
 * store: started again on it, the server finds the table (and repairs the
 * buckets a crash left half written: their put was never answered).
 *
 * usage: server ADDR PORT FILE [NBUCKETS [DELAY_US]]
 *   FILE is created (header page + NBUCKETS x 256 bytes; default 4096
 *   buckets) or opened with the table it holds; NBUCKETS is then ignored.
 *   DELAY_US (default 0) makes each bucket change pause that long half
 *   way, so that gets racing a put meet half-written buckets often: the
 *   test uses it to show that the version check is what keeps a get from
 *   returning them.
 * Prints "server: listening on ADDR:PORT"; drains on SIGINT or SIGTERM.
 * Exit status: 0 after a drain, 1 when it cannot start.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>
#include <rpmaf.h>

#include "kv.h"

/* one worker: the handlers then never wait for each other's lock */
static const char Cfg[] = "workers: {count: 1, polling: adaptive}\n"
			  "queues: {messages: {size: 1K}}\n"
			  "listen: {address: \"%s\", port: %s, max_connections: 16}\n"
			  "regions:\n"
			  "  - name: " KV_REGION "\n"
			  "    size: %zu\n"
			  "    backing: {file: \"%s\", create: true}\n"
			  "    usage: [read]\n"
			  "log: {level: warning}\n";

/* the store */
struct kv {
	struct rpmaf_server *srv;
	struct kv_hdr *hdr; /* the region's memory (rpmaf_server_region_ptr()) */
	struct kv_bucket *tab;
	uint64_t nbuckets;
	unsigned delay_us;    /* a pause in the middle of each bucket change (DELAY_US) */
	pthread_mutex_t lock; /* serializes the changes of the table (puts, deletes) */
	atomic_ulong puts, dels;
};

/* persist -- make [p, p + len) of the region durable */
static int
persist(struct kv *kv, const void *p, size_t len)
{
	return rpmaf_server_region_persist(kv->srv, KV_REGION,
					   (size_t)((const char *)p - (const char *)kv->hdr), len);
}

/*
 * bucket_set -- change bucket b to state with key and value under the
 * version protocol (kv.h), then persist it. Under kv->lock.
 */
static int
bucket_set(struct kv *kv, struct kv_bucket *b, uint32_t state, const char *key, size_t klen,
	   const void *value, size_t vlen)
{
	uint64_t v = b->version & ~1ull;
	struct kv_bucket nb = {.version = v + 2, .state = state};

	nb.klen = (uint16_t)klen;
	nb.vlen = (uint16_t)vlen;
	memcpy(nb.key, key, klen);
	if (vlen)
		memcpy(nb.value, value, vlen);
	nb.csum = kv_csum(&nb);
	/* odd first: a reader that sees it, or a mix with it, reads again */
	atomic_store_explicit((_Atomic uint64_t *)&b->version, v + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	if (kv->delay_us) { /* half a change, a pause, the other half: a window readers hit */
		memcpy(&b->csum, &nb.csum, KV_BUCKET_SIZE / 2);
		usleep(kv->delay_us);
	}
	memcpy(&b->csum, &nb.csum, KV_BUCKET_SIZE - sizeof(nb.version));
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&b->version, v + 2, memory_order_relaxed);
	return persist(kv, b, KV_BUCKET_SIZE);
}

/*
 * find -- the bucket holding key (*found true), or the one a put of it
 * would take (the first deleted or empty one on its probe); NULL when the
 * probe is full. Under kv->lock.
 */
static struct kv_bucket *
find(struct kv *kv, const char *key, size_t klen, bool *found)
{
	uint64_t h = kv_hash(key, klen);
	struct kv_bucket *free_b = NULL;

	*found = false;
	for (unsigned i = 0; i < KV_PROBE_MAX; i++) {
		struct kv_bucket *b = &kv->tab[(h + i) % kv->nbuckets];

		if (b->state == KV_USED && b->klen == klen && !memcmp(b->key, key, klen)) {
			*found = true;
			return b;
		}
		if (b->state != KV_USED && !free_b)
			free_b = b;
		if (b->state == KV_EMPTY)
			break;
	}
	return free_b;
}

/* req_parse -- check a put or delete request; its key and value */
static int
req_parse(const void *req, size_t len, bool put, const char **key, size_t *klen, const void **value,
	  size_t *vlen)
{
	struct kv_req r;

	if (len < sizeof(r))
		return RPMAF_E_INVAL;
	memcpy(&r, req, sizeof(r));
	if (!r.klen || r.klen > KV_KEY_MAX || r.vlen > KV_VALUE_MAX || (!put && r.vlen) ||
	    len != sizeof(r) + r.klen + r.vlen)
		return RPMAF_E_INVAL;
	*key = (const char *)req + sizeof(r);
	*klen = r.klen;
	*value = *key + r.klen;
	*vlen = r.vlen;
	return 0;
}

/*
 * handle -- KV_HANDLER_PUT and KV_HANDLER_DEL, on the worker thread: change
 * the table and persist before answering. A put into a full probe fails
 * (RPMAF_E_AGAIN: the client gets RPMAF_E_REMOTE).
 */
static int
handle(uint32_t id, const void *req, size_t req_len, void *reply, size_t reply_max,
       size_t *reply_len, void *arg)
{
	struct kv *kv = arg;
	const char *key;
	const void *value;
	size_t klen, vlen;
	struct kv_bucket *b;
	bool found;
	int ret;

	if (id == KV_HANDLER_PING)
		return 0;
	if ((ret = req_parse(req, req_len, id == KV_HANDLER_PUT, &key, &klen, &value, &vlen)))
		return ret;
	if (id == KV_HANDLER_DEL && reply_max < 1)
		return RPMAF_E_INVAL;
	pthread_mutex_lock(&kv->lock);
	b = find(kv, key, klen, &found);
	if (id == KV_HANDLER_PUT) {
		ret = b ? bucket_set(kv, b, KV_USED, key, klen, value, vlen) : RPMAF_E_AGAIN;
		atomic_fetch_add(&kv->puts, ret == 0);
	} else {
		/* the key stays in the tombstone: nothing but its state matters */
		if (found)
			ret = bucket_set(kv, b, KV_DELETED, key, klen, NULL, 0);
		*(uint8_t *)reply = found;
		*reply_len = 1;
		atomic_fetch_add(&kv->dels, found && ret == 0);
	}
	pthread_mutex_unlock(&kv->lock);
	return ret;
}

/*
 * table_open -- make the table in a new file, or take the one the file
 * holds: buckets left odd or not matching their checksum by a crash become
 * tombstones (the put that was changing them was never answered)
 */
static int
table_open(struct kv *kv, uint64_t nbuckets)
{
	void *ptr;
	size_t rsize;
	uint64_t used = 0, repaired = 0;
	int ret;

	if ((ret = rpmaf_server_region_ptr(kv->srv, KV_REGION, &ptr, &rsize)))
		return ret;
	kv->hdr = ptr;
	kv->tab = (struct kv_bucket *)((char *)ptr + KV_HDR_SIZE);
	if (kv->hdr->magic != KV_MAGIC) {
		kv->hdr->nbuckets = nbuckets;
		kv->hdr->bucket_size = KV_BUCKET_SIZE;
		if ((ret = persist(kv, kv->hdr, sizeof(*kv->hdr))))
			return ret;
		kv->hdr->magic = KV_MAGIC; /* last: a table is made or it is not */
		if ((ret = persist(kv, kv->hdr, sizeof(*kv->hdr))))
			return ret;
	}
	if (kv->hdr->bucket_size != KV_BUCKET_SIZE ||
	    kv->hdr->nbuckets * KV_BUCKET_SIZE + KV_HDR_SIZE > rsize) {
		fprintf(stderr, "server: the file holds a table of another shape\n");
		return RPMAF_E_INVAL;
	}
	kv->nbuckets = kv->hdr->nbuckets;
	for (uint64_t i = 0; i < kv->nbuckets; i++) {
		struct kv_bucket *b = &kv->tab[i];

		if (b->version && !kv_bucket_whole(b)) {
			repaired++;
			if ((ret = bucket_set(kv, b, KV_DELETED, "", 0, NULL, 0)))
				return ret;
		}
		used += b->state == KV_USED;
	}
	printf("server: opened a table of %lu buckets, %lu keys, %lu repaired\n",
	       (unsigned long)kv->nbuckets, (unsigned long)used, (unsigned long)repaired);
	return 0;
}

/* serve -- peer, workers, server with its region and handlers, until a signal */
static int
serve(struct kv *kv, struct rpmaf_cfg *cfg, const char *addr, uint64_t nbuckets,
      const sigset_t *sigs)
{
	struct rpma_peer *peer = NULL;
	struct rpmaf_workers *ws = NULL;
	struct ibv_context *dev;
	int ret, sig;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev)) ||
	    (ret = rpma_peer_new(dev, &peer))) {
		fprintf(stderr, "server: no RDMA device at %s: %s\n", addr, rpma_err_2str(ret));
		return 1;
	}
	if ((ret = rpmaf_workers_new(cfg, peer, &ws)) ||
	    (ret = rpmaf_server_new(cfg, peer, ws, &kv->srv)) || (ret = table_open(kv, nbuckets)) ||
	    (ret = rpmaf_server_handler_add(kv->srv, KV_HANDLER_PUT, handle, kv)) ||
	    (ret = rpmaf_server_handler_add(kv->srv, KV_HANDLER_DEL, handle, kv)) ||
	    (ret = rpmaf_server_handler_add(kv->srv, KV_HANDLER_PING, handle, kv)) ||
	    (ret = rpmaf_server_start(kv->srv))) {
		fprintf(stderr, "server: cannot start: %s\n", rpmaf_err_str(ret));
		goto out;
	}
	printf("server: listening on %s:%u\n", addr, rpmaf_server_port(kv->srv));
	fflush(stdout);
	sigwait(sigs, &sig);
	if ((ret = rpmaf_server_stop(kv->srv, cfg->timeouts.operation_ms)))
		fprintf(stderr, "server: drain: %s\n", rpmaf_err_str(ret));
	printf("server: %lu puts, %lu deletes\n", atomic_load(&kv->puts), atomic_load(&kv->dels));
out:
	rpmaf_server_delete(&kv->srv); /* persists and unmaps the file */
	rpmaf_workers_delete(&ws);
	rpma_peer_delete(&peer);
	return ret ? 1 : 0;
}

int
main(int argc, char *argv[])
{
	struct kv kv = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_cfg_err err;
	unsigned long long nb = KV_NBUCKETS_DEF;
	sigset_t sigs;
	char text[8192], *end;
	int ret, len;

	if (argc < 4 || argc > 6 ||
	    (argc >= 5 && ((nb = strtoull(argv[4], &end, 10)) < KV_PROBE_MAX || *end ||
			   nb > (1ull << 24) || nb % 16)) ||
	    (argc == 6 &&
	     ((kv.delay_us = (unsigned)strtoul(argv[5], &end, 10)) > 1000000 || *end))) {
		fprintf(stderr,
			"usage: %s ADDR PORT FILE [NBUCKETS [DELAY_US]]   (NBUCKETS: a multiple "
			"of 16, %d to 16777216; DELAY_US: at most 1000000)\n",
			argv[0], KV_PROBE_MAX);
		return 1;
	}
	size_t size = KV_HDR_SIZE + (size_t)nb * KV_BUCKET_SIZE;

	len = snprintf(text, sizeof(text), Cfg, argv[1], argv[2], size, argv[3]);
	if (len < 0 || (size_t)len >= sizeof(text)) {
		fprintf(stderr, "server: the arguments are too long\n");
		return 1;
	}
	if (rpmaf_cfg_load_buffer("server", text, (size_t)len, NULL, &cfg, &err)) {
		fprintf(stderr, "server: %s\n", err.msg);
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* before any thread: only sigwait() takes them */
	ret = serve(&kv, cfg, argv[1], nb, &sigs);
	rpmaf_cfg_delete(&cfg);
	return ret;
}
