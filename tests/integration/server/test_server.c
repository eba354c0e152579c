// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_server.c -- the server of librpmaf (server/) and the control
 * channel (ctl/) over softrdma, in one process: a server with its own
 * workers, and test clients on a second set of workers, each speaking the
 * control protocol through a ctl channel (or raw bytes, for the hostile
 * ones). Ports 19000 to 19499: 12 from 19000 + 12 x (pid % 40), one per server.
 */

#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "rpmaf.h"

#include "../../../ctl/ctl.h"
#include "../../../proto/list.h"
#include "../../../proto/session.h"
#include "../../../workers/worker.h"

#define KEY_HEX	 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define BAD_HEX	 "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define MSG_SIZE 1024
#define NKEEP	 64
#define WAIT_MS	 5000

static struct rpma_peer *Peer;
static char Dir[64];
static unsigned Port = 19000 + (unsigned)0;
static unsigned Max_conns = 8; /* listen.max_connections of the next server */

/* ------------------------------------------------------------ the client */

/* one client connection, run on the client workers' thread */
struct cli {
	struct rpmaf_workers *ws;
	struct rpmaf_worker *w;
	struct rpmaf_wconn *wconn;
	struct rpma_conn *conn;
	struct rpmaf__ctl ctl;
	struct rpmaf__proto_client sess;
	struct rpmaf__proto_key key;
	struct rpmaf_work work;
	bool use_key, silent, no_hello;
	atomic_int established, ready, closed, failed, rma_done, sent, deleted;
	pthread_mutex_t lock; /* guards the messages kept below */
	uint8_t kept[NKEEP][MSG_SIZE];
	uint32_t kept_len[NKEEP];
	int nkept;
	/* what main asks the worker to send */
	struct rpmaf__proto_msg out;
	uint8_t raw[MSG_SIZE];
	size_t raw_len;
	uint64_t next_req;
};

/* keep -- a copy of what the server sent, for the test to look at */
static void
keep(struct cli *c, const void *buf, size_t len)
{
	pthread_mutex_lock(&c->lock);
	if (c->nkept < NKEEP && len <= MSG_SIZE) {
		memcpy(c->kept[c->nkept], buf, len);
		c->kept_len[c->nkept++] = (uint32_t)len;
	}
	pthread_mutex_unlock(&c->lock);
}

/* send_auth_or_ready -- after HELLO_REPLY: authenticate, or ready */
static int
handshake(struct cli *c, const struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_msg out;
	int ret = rpmaf__proto_client_recv(&c->sess, m, NULL);

	if (ret) {
		keep(c, c->ctl.rbuf, RPMAF__PROTO_HDR_SIZE + m->hdr.body_len);
		return 0;
	}
	if (m->hdr.type == RPMAF__PROTO_T_HELLO_REPLY) {
		if (rpmaf__ctl_start(&c->ctl, m->body.hello_reply.credits,
				     m->body.hello_reply.max_msg_size, m->body.hello_reply.version))
			return RPMAF_E_PROTO;
		if (!c->silent)
			(void)rpmaf__ctl_heartbeat_start(&c->ctl,
							 m->body.hello_reply.hb_interval_ms,
							 m->body.hello_reply.hb_misses);
		if (c->sess.state == RPMAF__PROTO_CLI_NEED_AUTH) {
			if (rpmaf__proto_client_auth(&c->sess, 2, &out))
				return RPMAF_E_PROTO;
			return rpmaf__ctl_send(&c->ctl, &out);
		}
	}
	if (c->sess.state == RPMAF__PROTO_CLI_READY)
		atomic_store(&c->ready, 1);
	return 0;
}

/* c_on_msg -- the handshake, then everything is kept for the test */
static int
c_on_msg(struct rpmaf__ctl *ctl, const struct rpmaf__proto_msg *m, void *ctx)
{
	struct cli *c = ctx;

	(void)ctl;
	if (!atomic_load(&c->ready))
		return handshake(c, m);
	keep(c, c->ctl.rbuf, RPMAF__PROTO_HDR_SIZE + m->hdr.body_len);
	return 0;
}

/* cli_close -- on the client worker: close the connection and finish the channel */
static void
cli_close(struct cli *c)
{
	if (c->wconn)
		(void)rpmaf_wconn_close(&c->wconn);
	rpmaf__ctl_fini(&c->ctl);
	atomic_store(&c->closed, 1);
}

/* c_on_fail -- the channel failed: close */
static void
c_on_fail(struct rpmaf__ctl *ctl, int code, void *ctx)
{
	struct cli *c = ctx;

	(void)ctl;
	(void)code;
	atomic_store(&c->failed, 1);
	cli_close(c);
}

static const struct rpmaf__ctl_ops C_ops = {c_on_msg, NULL, c_on_fail};

/* w_recv -- bind, then the channel; a silent client drops everything once ready */
static int
w_recv(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *buf, void *ctx)
{
	struct cli *c = ctx;

	if (!c->ctl.wconn)
		rpmaf__ctl_bind(&c->ctl, wconn);
	if (c->silent && atomic_load(&c->ready))
		return RPMAF_RECV_DONE;
	return rpmaf__ctl_recv(&c->ctl, wc, buf);
}

/* w_wc -- the channel's sends, else a write or a raw send of the test */
static void
w_wc(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *ctx)
{
	struct cli *c = ctx;
	void *buf = (void *)(uintptr_t)wc->wr_id;

	(void)wconn;
	if (!atomic_load(&c->closed) && rpmaf__ctl_on_wc(&c->ctl, wc))
		return;
	if (buf == (void *)1)
		atomic_store(&c->rma_done, wc->status == IBV_WC_SUCCESS ? 1 : -1);
	else if (buf)
		(void)rpmaf_worker_buf_put(c->w, buf);
}

/* w_event -- established: HELLO; closed: note it */
static void
w_event(struct rpmaf_wconn *wconn, int event, void *ctx)
{
	struct cli *c = ctx;
	struct rpmaf__proto_params own = {.max_msg_size = MSG_SIZE, .credits = 8};
	struct rpmaf__proto_msg out;

	(void)wconn;
	if (event == RPMA_CONN_ESTABLISHED) {
		atomic_store(&c->established, 1);
		if (!c->no_hello) {
			(void)rpmaf__proto_client_hello(&c->sess, &own, 1, &out);
			(void)rpmaf__ctl_send(&c->ctl, &out);
		}
		return;
	}
	if (!atomic_load(&c->closed))
		cli_close(c);
}

static const struct rpmaf_wconn_ops W_ops = {w_wc, w_recv, w_event};

/* c_attach -- on the client worker: the channel and the connection */
static void
c_attach(struct rpmaf_worker *w, void *arg)
{
	struct cli *c = arg;

	if (rpmaf__ctl_init(&c->ctl, w, 8, MSG_SIZE, 16, &C_ops, c, &c->ws->log, "test-client") ||
	    rpmaf_worker_attach(w, c->conn, &W_ops, c, &c->wconn))
		atomic_store(&c->failed, 1);
	else if (!c->ctl.wconn)
		rpmaf__ctl_bind(&c->ctl, c->wconn);
}

/* c_send -- on the client worker: send c->out through the channel */
static void
c_send(struct rpmaf_worker *w, void *arg)
{
	struct cli *c = arg;

	(void)w;
	atomic_store(&c->sent, atomic_load(&c->closed) ? -1 : rpmaf__ctl_send(&c->ctl, &c->out));
	if (!atomic_load(&c->sent))
		atomic_store(&c->sent, 1);
}

/* c_send_raw -- on the client worker: post c->raw as is, credits or not */
static void
c_send_raw(struct rpmaf_worker *w, void *arg)
{
	struct cli *c = arg;
	struct rpma_mr_local *mr;
	size_t off;
	void *buf;

	if (atomic_load(&c->closed) || rpmaf_worker_buf_get(w, &buf)) {
		atomic_store(&c->sent, -1);
		return;
	}
	memcpy(buf, c->raw, c->raw_len);
	(void)rpmaf_worker_buf_mr(w, buf, &mr, &off);
	if (rpmaf_wconn_admit(c->wconn, 1) ||
	    rpma_send(c->conn, mr, off, c->raw_len, RPMA_F_COMPLETION_ALWAYS, buf)) {
		(void)rpmaf_worker_buf_put(w, buf);
		atomic_store(&c->sent, -1);
		return;
	}
	atomic_store(&c->sent, 1);
}

/* wait_flag -- wait up to ms for *f to become non-zero; its value */
static int
wait_flag(atomic_int *f, int ms)
{
	for (int i = 0; i < ms && !atomic_load(f); i++)
		usleep(1000);
	return atomic_load(f);
}

/* client_cfg -- a client-side configuration: one worker for conns connections */
static struct rpmaf_cfg *
client_cfg(unsigned conns)
{
	struct rpmaf_cfg *cfg = NULL;
	char text[256];

	snprintf(text, sizeof(text),
		 "workers: {count: 1, polling: event}\n"
		 "queues: {sq: 16, messages: {size: 1024, credits: 8}}\n"
		 "targets: [{name: s, address: 127.0.0.1, connections: %u}]\n"
		 "log: {level: error}\n",
		 conns);
	assert_int_equal(rpmaf_cfg_load_buffer("client", text, strlen(text), NULL, &cfg, NULL), 0);
	return cfg;
}

/*
 * client_start_n -- the client side's workers for conns connections (the
 * configuration is only read by rpmaf_workers_new)
 */
static struct rpmaf_workers *
client_start_n(unsigned conns)
{
	struct rpmaf_cfg *ccfg = client_cfg(conns);
	struct rpmaf_workers *cws;

	assert_int_equal(rpmaf_workers_new(ccfg, Peer, &cws), 0);
	rpmaf_cfg_delete(&ccfg);
	return cws;
}

/* client_start -- the client side's workers for 4 connections */
static struct rpmaf_workers *
client_start(void)
{
	return client_start_n(4);
}

/* cli_new -- connect a client (hello and auth when ready is wanted) */
static struct cli *
cli_new(struct rpmaf_workers *ws, const char *hex, bool silent, bool want_ready, bool no_hello)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct rpma_conn_cfg *ccfg = NULL;
	struct rpma_conn_req *req = NULL;
	uint8_t nonce[RPMAF__PROTO_NONCE_SIZE];
	char port[16];

	assert_non_null(c);
	pthread_mutex_init(&c->lock, NULL);
	c->ws = ws;
	c->silent = silent;
	c->no_hello = no_hello;
	c->next_req = 100;
	if (hex) {
		assert_int_equal(rpmaf__proto_key_parse("key", hex, strlen(hex), &c->key, NULL), 0);
		c->use_key = true;
	}
	assert_int_equal(rpmaf__proto_auth_nonce(nonce), 0);
	assert_int_equal(
	    rpmaf__proto_client_init(&c->sess, hex ? &c->key : NULL, "tester", nonce, NULL), 0);
	assert_int_equal(rpmaf_workers_least_loaded(ws, &c->w), 0);
	assert_int_equal(rpma_conn_cfg_new(&ccfg), 0);
	assert_int_equal(rpmaf_worker_conn_cfg(c->w, ccfg), 0);
	snprintf(port, sizeof(port), "%u", Port);
	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, port, ccfg, &req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &c->conn), 0);
	(void)rpma_conn_cfg_delete(&ccfg);
	assert_int_equal(rpmaf_worker_submit(c->w, &c->work, c_attach, c), 0);
	for (int t = 0; t < WAIT_MS && !atomic_load(&c->established) && !atomic_load(&c->closed);
	     t++)
		usleep(1000);
	assert_true(atomic_load(&c->established) || atomic_load(&c->closed));
	if (want_ready)
		assert_int_equal(wait_flag(&c->ready, WAIT_MS), 1);
	return c;
}

/* c_close -- on the client worker: close the connection if it is open */
static void
c_close(struct rpmaf_worker *w, void *arg)
{
	struct cli *c = arg;

	(void)w;
	if (!atomic_load(&c->closed)) {
		if (c->wconn)
			(void)rpmaf_wconn_close(&c->wconn);
		rpmaf__ctl_fini(&c->ctl);
		atomic_store(&c->closed, 1);
	}
	atomic_store(&c->deleted, 1);
}

/* cli_delete -- disconnect and free */
static void
cli_delete(struct cli *c)
{
	(void)rpmaf_worker_submit(c->w, &c->work, c_close, c);
	assert_int_equal(wait_flag(&c->deleted, WAIT_MS), 1);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* cli_send -- send out through the channel (req_id given) */
static void
cli_send(struct cli *c, struct rpmaf__proto_msg *m)
{
	m->hdr.version = c->sess.version ? c->sess.version : 1;
	c->out = *m;
	atomic_store(&c->sent, 0);
	assert_int_equal(rpmaf_worker_submit(c->w, &c->work, c_send, c), 0);
	assert_int_equal(wait_flag(&c->sent, WAIT_MS), 1);
}

/* cli_raw -- send raw bytes, past the channel */
static int
cli_raw(struct cli *c, const void *raw, size_t len)
{
	memcpy(c->raw, raw, len);
	c->raw_len = len;
	atomic_store(&c->sent, 0);
	assert_int_equal(rpmaf_worker_submit(c->w, &c->work, c_send_raw, c), 0);
	return wait_flag(&c->sent, WAIT_MS);
}

/* cli_wait -- the first kept message of type (req_id when not 0), decoded into m */
static int
cli_wait(struct cli *c, unsigned type, uint64_t req_id, struct rpmaf__proto_msg *m, uint8_t *copy)
{
	for (int t = 0; t < WAIT_MS; t++) {
		pthread_mutex_lock(&c->lock);
		for (int i = 0; i < c->nkept; i++) {
			struct rpmaf__proto_msg d;

			if (rpmaf__proto_msg_decode(c->kept[i], c->kept_len[i], &d, NULL) ||
			    d.hdr.type != type || (req_id && d.hdr.req_id != req_id))
				continue;
			memcpy(copy, c->kept[i], c->kept_len[i]);
			(void)rpmaf__proto_msg_decode(copy, c->kept_len[i], m, NULL);
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
		pthread_mutex_unlock(&c->lock);
		usleep(1000);
	}
	return -1;
}

/* ------------------------------------------------------------ the server */

struct srv {
	struct rpmaf_cfg *cfg;
	struct rpmaf_workers *ws;
	struct rpmaf_server *s;
	char log[128];
	char file[128];
};

/*
 * the server of the test running, copied as srv_start() makes it: a test
 * whose assertion fails leaves its server running, whose lock on
 * region.pmem made every later test's server fail (RPMAF_E_BUSY);
 * leftover() deletes it after the test
 */
static struct srv Live;

/* echo -- handler 7: the request back */
static int
echo(uint32_t id, const void *req, size_t len, void *reply, size_t max, size_t *rlen, void *arg)
{
	(void)id;
	(void)arg;
	if (len > max)
		return -1;
	memcpy(reply, req, len);
	*rlen = len;
	return 0;
}

/* echo_later -- handler 15 (a call answered later, announced idempotent): the request back */
static void
echo_later(struct rpmaf_call *call, uint32_t id, const void *req, size_t len, void *arg)
{
	(void)id;
	(void)arg;
	(void)rpmaf_call_reply(call, 0, req, len);
}

/* failing -- handler 9: always fails */
static int
failing(uint32_t id, const void *req, size_t len, void *reply, size_t max, size_t *rlen, void *arg)
{
	(void)id;
	(void)req;
	(void)len;
	(void)reply;
	(void)max;
	(void)rlen;
	(void)arg;
	return -42;
}

/*
 * durable -- handler 11: write the request at offset 8192 of region "pm" with
 * the server's CPU and persist it before answering (arg: the struct srv)
 */
static int
durable(uint32_t id, const void *req, size_t len, void *reply, size_t max, size_t *rlen, void *arg)
{
	struct srv *s = arg;
	void *ptr;
	size_t size;
	int ret;

	(void)id;
	if ((ret = rpmaf_server_region_ptr(s->s, "pm", &ptr, &size)) || len > 4096)
		return ret ? ret : -1;
	memcpy((char *)ptr + 8192, req, len);
	ret = rpmaf_server_region_persist(s->s, "pm", 8192, len);
	*rlen = (size_t)snprintf(reply, max, "%d", ret);
	return 0;
}

/* srv_cfg -- load a server configuration with extra text */
static struct rpmaf_cfg *
srv_cfg(struct srv *s, const char *extra, unsigned flags)
{
	char text[2048];
	struct rpmaf_cfg_opts opts = {.flags = flags};
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_cfg_err err;

	snprintf(s->log, sizeof(s->log), "%s/server.log", Dir);
	snprintf(s->file, sizeof(s->file), "%s/region.pmem", Dir);
	snprintf(text, sizeof(text),
		 "workers: {count: 2, polling: event}\n"
		 "queues: {sq: 16, messages: {size: 1024, credits: 8}}\n"
		 "listen: {address: 127.0.0.1, port: %u, max_connections: %u}\n"
		 "auth: {key_file: %s/key}\n"
		 "log: {level: debug, file: %s}\n"
		 "%s",
		 Port, Max_conns, Dir, s->log, extra);
	if (rpmaf_cfg_load_buffer("server", text, strlen(text), &opts, &cfg, &err))
		fail_msg("config: %s", err.msg);
	return cfg;
}

/* srv_start -- a running server of extra configuration text on a fresh port */
static void
srv_start(struct srv *s, const char *extra)
{
	memset(s->log, 0, sizeof(s->log));
	s->ws = NULL;
	s->s = NULL;
	Port++;
	s->cfg = srv_cfg(s, extra, 0);
	Live = *s;
	assert_int_equal(rpmaf_workers_new(s->cfg, Peer, &s->ws), 0);
	Live = *s;
	assert_int_equal(rpmaf_server_new(s->cfg, Peer, s->ws, &s->s), 0);
	Live = *s;
	assert_int_equal(rpmaf_server_handler_add(s->s, 7, echo, NULL), 0);
	assert_int_equal(rpmaf_server_handler_add(s->s, 9, failing, NULL), 0);
	assert_int_equal(rpmaf_server_handler_add(s->s, 11, durable, s), 0);
	assert_int_equal(rpmaf_server_call_handler_add_flags(s->s, 15, echo_later, NULL,
							     RPMAF_HANDLER_IDEMPOTENT),
			 0);
	assert_int_equal(
	    rpmaf_server_handler_add_flags(s->s, 13, echo, NULL, RPMAF_HANDLER_IDEMPOTENT), 0);
	assert_int_equal(rpmaf_server_start(s->s), 0);
	assert_int_equal(rpmaf_server_port(s->s), Port);
}

/* srv_end_ret -- delete the server and its workers; rpmaf_server_delete()'s code */
static int
srv_end_ret(struct srv *s)
{
	int ret = rpmaf_server_delete(&s->s);

	if (Live.cfg == s->cfg)
		memset(&Live, 0, sizeof(Live));
	assert_int_equal(rpmaf_workers_delete(&s->ws), 0);
	rpmaf_cfg_delete(&s->cfg);
	return ret;
}

/*
 * leftover -- after each test: the server a failed test left (Live) is
 * deleted, so that the tests after it start theirs (its failure is the
 * test's own, reported already)
 */
static int
leftover(void **state)
{
	(void)state;
	if (!Live.cfg)
		return 0;
	fprintf(stderr, "test_server: the failed test's server (port %u) deleted\n", Port);
	if (Live.s)
		(void)rpmaf_server_delete(&Live.s);
	if (Live.ws)
		(void)rpmaf_workers_delete(&Live.ws);
	rpmaf_cfg_delete(&Live.cfg);
	memset(&Live, 0, sizeof(Live));
	return 0;
}

/* srv_end -- delete the server and its workers */
static void
srv_end(struct srv *s)
{
	assert_int_equal(srv_end_ret(s), 0);
}

/* log_has -- the server's log holds text */
static bool
log_has(const struct srv *s, const char *text)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(s->log, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* log_match -- a line of the server's log matches the extended regular expression re */
static bool
log_match(const struct srv *s, const char *re)
{
	char line[1024];
	bool found = false;
	regex_t rx;
	FILE *f;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	f = fopen(s->log, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = regexec(&rx, line, 0, NULL, 0) == 0;
	}
	if (f)
		fclose(f);
	regfree(&rx);
	return found;
}

/* log_count -- the lines of the server's log that match the extended regular expression re */
static int
log_count(const struct srv *s, const char *re)
{
	char line[1024];
	int n = 0;
	regex_t rx;
	FILE *f;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	f = fopen(s->log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += regexec(&rx, line, 0, NULL, 0) == 0;
	}
	if (f)
		fclose(f);
	regfree(&rx);
	return n;
}

/* stats -- the server's counters */
static struct rpmaf_server_stats
stats(const struct srv *s)
{
	struct rpmaf_server_stats st;

	assert_int_equal(rpmaf_server_get_stats(s->s, &st), 0);
	return st;
}

/*
 * count_wait -- the counter at offset off of the server's stats once it
 * reaches want (or after WAIT_MS): the server counts a request as it
 * answers it, so the client may hold the reply a moment before the count
 */
static uint64_t
count_wait(const struct srv *s, size_t off, uint64_t want)
{
	uint64_t v = 0;

	for (int t = 0; t < WAIT_MS; t++) {
		struct rpmaf_server_stats st = stats(s);

		memcpy(&v, (const char *)&st + off, sizeof(v));
		if (v >= want)
			break;
		usleep(1000);
	}
	return v;
}

static const char Regions[] = "regions:\n"
			      "  - {name: anon, size: 64K}\n"
			      "  - {name: pm, size: 64K, backing: {file: %s/region.pmem, create: "
			      "true}, persistence: gpspm}\n"
			      "timeouts: {heartbeat_interval_ms: %u, heartbeat_misses: 2}\n";

/* start_std -- the standard server: two regions */
static void
start_std(struct srv *s, unsigned hb_ms)
{
	char extra[512];

	snprintf(extra, sizeof(extra), Regions, Dir, hb_ms);
	srv_start(s, extra);
}

/* lookup -- REGION_LOOKUP_REQ of name; the reply's status and entry */
static uint32_t
lookup(struct cli *c, const char *name, struct rpmaf__proto_region *e, uint8_t *copy)
{
	struct rpmaf__proto_msg m = {.hdr.type = RPMAF__PROTO_T_REGION_LOOKUP_REQ};
	uint64_t id = ++c->next_req;

	m.hdr.req_id = id;
	m.body.lookup_req.name = name;
	m.body.lookup_req.name_len = (uint8_t)strlen(name);
	cli_send(c, &m);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_REGION_LOOKUP_REPLY, id, &m, copy), 0);
	*e = m.body.lookup_reply.region;
	return m.body.lookup_reply.status;
}

/* c_write -- on the client worker: write 8 bytes at offset 64 of the remote region */
struct wr {
	struct cli *c;
	struct rpma_mr_remote *dst;
	struct rpma_mr_local *src;
	char *local; /* what src registers (test_change) */
};
static struct wr Wr;
static void
c_write(struct rpmaf_worker *w, void *arg)
{
	struct wr *x = arg;

	(void)w;
	if (rpmaf_wconn_admit(x->c->wconn, 1) ||
	    rpma_write(x->c->conn, x->dst, 64, x->src, 0, 8, RPMA_F_COMPLETION_ALWAYS, (void *)1))
		atomic_store(&x->c->rma_done, -1);
}

/* ------------------------------------------------------------ the tests */

/* hello, auth, a list page, lookups, and a write that lands in the region */
static void
test_list_lookup_write(void **state)
{
	struct srv s;
	struct rpmaf__proto_msg m = {.hdr.type = RPMAF__PROTO_T_REGION_LIST_REQ, .hdr.req_id = 50};
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_region e;
	uint8_t copy[MSG_SIZE];
	char *local;
	void *ptr;
	size_t size;
	int n = 0;

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	cli_send(c, &m);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_REGION_LIST, 50, &m, copy), 0);
	assert_int_equal(m.body.list.total, 2);
	rpmaf__proto_list_iter_init(&it, &m.body.list);
	while (rpmaf__proto_list_next(&it, &e) == 1)
		n++;
	assert_int_equal(n, 2);
	assert_int_equal(lookup(c, "nope", &e, copy), RPMAF__PROTO_S_NOT_FOUND);
	assert_int_equal(lookup(c, "anon", &e, copy), RPMAF__PROTO_S_OK);
	assert_int_equal(e.size, 65536);
	assert_int_equal(e.persist, RPMAF__PROTO_PERSIST_GPSPM);
	assert_int_equal(rpma_mr_remote_from_descriptor(e.desc, e.desc_len, &Wr.dst), 0);
	local = aligned_alloc(4096, 4096);
	memcpy(local, "written!", 8);
	assert_int_equal(rpma_mr_reg(Peer, local, 4096, RPMA_MR_USAGE_WRITE_SRC, &Wr.src), 0);
	Wr.c = c;
	assert_int_equal(rpmaf_worker_submit(c->w, &c->work, c_write, &Wr), 0);
	assert_int_equal(wait_flag(&c->rma_done, WAIT_MS), 1);
	assert_int_equal(rpmaf_server_region_ptr(s.s, "anon", &ptr, &size), 0);
	assert_memory_equal((char *)ptr + 64, "written!", 8);
	assert_int_equal(count_wait(&s, offsetof(struct rpmaf_server_stats, requests), 3), 3);
	cli_delete(c);
	(void)rpma_mr_dereg(&Wr.src);
	(void)rpma_mr_remote_delete(&Wr.dst);
	free(local);
	assert_true(log_has(&s, "authenticated: key proved by tester"));
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* persist -- PERSIST_REQ of (offset, length, generation) on pm; the reply's status */
static uint32_t
persist(struct cli *c, uint64_t off, uint64_t len, uint64_t gen)
{
	struct rpmaf__proto_msg m = {.hdr.type = RPMAF__PROTO_T_PERSIST_REQ};
	uint8_t copy[MSG_SIZE];
	uint64_t id = ++c->next_req;

	m.hdr.req_id = id;
	m.body.persist_req = (struct rpmaf__proto_persist_req){off, len, gen, "pm", 2};
	cli_send(c, &m);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_PERSIST_REPLY, id, &m, copy), 0);
	return m.body.persist_reply.status;
}

/* GPSPM: persist answered OK, out of range and stale refused; the file keeps the bytes */
static void
test_persist(void **state)
{
	struct srv s;
	struct rpmaf__proto_region e;
	uint8_t copy[MSG_SIZE];
	char got[8] = {0};
	void *ptr;
	size_t size;

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(lookup(c, "pm", &e, copy), RPMAF__PROTO_S_OK);
	assert_int_equal(rpmaf_server_region_ptr(s.s, "pm", &ptr, &size), 0);
	memcpy((char *)ptr + 4096, "durable!", 8);
	assert_int_equal(persist(c, 4096, 8, e.generation), RPMAF__PROTO_S_OK);
	assert_int_equal(persist(c, 65530, 8, e.generation), RPMAF__PROTO_S_OUT_OF_RANGE);
	assert_int_equal(persist(c, 0, 8, e.generation + 1), RPMAF__PROTO_S_STALE);
	assert_int_equal(stats(&s).persists, 1);
	cli_delete(c);
	srv_end(&s);
	int fd = open(s.file, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, got, 8, 4096), 8);
	close(fd);
	assert_memory_equal(got, "durable!", 8);
	unlink(s.file);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* app -- APP_REQ of handler id with payload; the reply's status, payload in out */
static uint32_t
app(struct cli *c, uint32_t id, const char *payload, char *out)
{
	struct rpmaf__proto_msg m = {.hdr.type = RPMAF__PROTO_T_APP_REQ};
	uint8_t copy[MSG_SIZE];
	uint64_t rid = ++c->next_req;

	m.hdr.req_id = rid;
	m.body.app_req.handler_id = id;
	m.body.app_req.payload = (const uint8_t *)payload;
	m.body.app_req.payload_len = strlen(payload);
	cli_send(c, &m);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_APP_REPLY, rid, &m, copy), 0);
	memcpy(out, m.body.app_reply.payload, m.body.app_reply.payload_len);
	out[m.body.app_reply.payload_len] = 0;
	return m.body.app_reply.status;
}

/* an echo handler call, a call of an unknown handler, a handler that fails (logged) */
static void
test_app(void **state)
{
	struct srv s;
	char out[MSG_SIZE];

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(app(c, 7, "hello handler", out), RPMAF__PROTO_S_OK);
	assert_string_equal(out, "hello handler");
	assert_int_equal(app(c, 8, "anyone?", out), RPMAF__PROTO_S_NO_HANDLER);
	assert_int_equal(app(c, 9, "fail, please", out), RPMAF__PROTO_S_APP_FAILED);
	assert_string_equal(out, "");
	assert_int_equal(app(c, 7, "still there", out), RPMAF__PROTO_S_OK);
	assert_string_equal(out, "still there");
	assert_int_equal(count_wait(&s, offsetof(struct rpmaf_server_stats, app_requests), 4), 4);
	assert_true(log_has(&s, "handler 9 failed: -42"));
	cli_delete(c);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* handler_list -- HANDLER_LIST_REQ from start; the reply's type and the message in *m */
static unsigned
handler_list(struct cli *c, uint32_t start, struct rpmaf__proto_msg *m, uint8_t *copy)
{
	struct rpmaf__proto_msg q = {.hdr.type = RPMAF__PROTO_T_HANDLER_LIST_REQ};
	uint64_t id = ++c->next_req;

	q.hdr.req_id = id;
	q.body.handler_list_req.start = start;
	cli_send(c, &q);
	if (cli_wait(c, RPMAF__PROTO_T_HANDLER_LIST, id, m, copy) == 0)
		return RPMAF__PROTO_T_HANDLER_LIST;
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_ERROR, id, m, copy), 0);
	return RPMAF__PROTO_T_ERROR;
}

/*
 * the handlers announced idempotent (13, 15 of 7, 9, 11, 13, 15), in a
 * version 2 session: listed in increasing order, a page past the end
 * empty, one beyond it refused (OUT_OF_RANGE); they answer as any other;
 * flags are checked when the handler is added
 */
static void
test_handler_list(void **state)
{
	struct rpmaf__proto_msg m;
	uint8_t copy[MSG_SIZE];
	char out[MSG_SIZE];
	uint32_t id, flags;
	struct srv s;

	(void)state;
	start_std(&s, 0);
	assert_int_equal(rpmaf_server_handler_add_flags(s.s, 20, echo, NULL, 0), RPMAF_E_INVAL);
	struct rpmaf_workers *cws = client_start();
	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(c->sess.version, 2);
	assert_int_equal(handler_list(c, 0, &m, copy), RPMAF__PROTO_T_HANDLER_LIST);
	assert_int_equal(m.body.handler_list.total, 2);
	assert_int_equal(m.body.handler_list.count, 2);
	rpmaf__proto_handler_entry(&m.body.handler_list, 0, &id, &flags);
	assert_int_equal(id, 13);
	assert_int_equal(flags, RPMAF__PROTO_HANDLER_IDEMPOTENT);
	rpmaf__proto_handler_entry(&m.body.handler_list, 1, &id, &flags);
	assert_int_equal(id, 15);
	assert_int_equal(handler_list(c, 2, &m, copy), RPMAF__PROTO_T_HANDLER_LIST);
	assert_int_equal(m.body.handler_list.count, 0);
	assert_int_equal(handler_list(c, 3, &m, copy), RPMAF__PROTO_T_ERROR);
	assert_int_equal(m.body.error.status, RPMAF__PROTO_S_OUT_OF_RANGE);
	assert_int_equal(app(c, 13, "idempotent", out), RPMAF__PROTO_S_OK);
	assert_string_equal(out, "idempotent");
	assert_int_equal(app(c, 15, "later", out), RPMAF__PROTO_S_OK);
	assert_string_equal(out, "later");
	cli_delete(c);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
	/* flags the server does not know; a handler already there */
	memset(&s, 0, sizeof(s));
	s.cfg = srv_cfg(&s, "", 0);
	assert_int_equal(rpmaf_workers_new(s.cfg, Peer, &s.ws), 0);
	assert_int_equal(rpmaf_server_new(s.cfg, Peer, s.ws, &s.s), 0);
	assert_int_equal(rpmaf_server_handler_add_flags(s.s, 21, echo, NULL, 2), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_handler_add_flags(s.s, 21, NULL, NULL, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_handler_add_flags(NULL, 21, echo, NULL, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_handler_add_flags(s.s, 21, echo, NULL, 1), 0);
	assert_int_equal(rpmaf_server_call_handler_add_flags(s.s, 21, echo_later, NULL, 1),
			 RPMAF_E_INVAL);
	srv_end(&s);
}

/*
 * rpmaf_server_region_persist(): from a handler (a worker thread: no lock)
 * and from the application's thread; a range beyond the region, an unknown
 * region, NULL and an empty range refused; the file keeps the handler's bytes
 */
static void
test_region_persist(void **state)
{
	struct srv s;
	char out[MSG_SIZE], got[16] = {0};

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(app(c, 11, "kept by handler", out), RPMAF__PROTO_S_OK);
	assert_string_equal(out, "0");
	assert_int_equal(rpmaf_server_region_persist(s.s, "pm", 0, 65536), 0);
	assert_int_equal(rpmaf_server_region_persist(s.s, "anon", 100, 1), 0);
	assert_int_equal(rpmaf_server_region_persist(s.s, "pm", 65530, 8), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_persist(s.s, "pm", SIZE_MAX, 2), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_persist(s.s, "pm", 0, 0), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_persist(s.s, NULL, 0, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_persist(NULL, "pm", 0, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_persist(s.s, "nope", 0, 1), RPMAF_E_NOENT);
	cli_delete(c);
	srv_end(&s);
	int fd = open(s.file, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, got, 15, 8192), 15);
	close(fd);
	assert_string_equal(got, "kept by handler");
	unlink(s.file);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/*
 * a wrong key: ERROR, disconnected, logged with the client's address, port
 * and name; a good client is still served
 */
static void
test_wrong_key(void **state)
{
	struct srv s;
	struct rpmaf__proto_msg m;
	struct rpmaf__proto_region e;
	uint8_t copy[MSG_SIZE];

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *bad = cli_new(cws, BAD_HEX, false, false, false);

	assert_int_equal(cli_wait(bad, RPMAF__PROTO_T_ERROR, 0, &m, copy), 0);
	assert_int_equal(m.body.error.status, RPMAF__PROTO_S_AUTH_FAILED);
	assert_int_equal(wait_flag(&bad->closed, WAIT_MS), 1);
	assert_int_equal(bad->ready, 0);
	struct cli *good = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(lookup(good, "anon", &e, copy), RPMAF__PROTO_S_OK);
	assert_int_equal(stats(&s).auth_failed, 1);
	/* the line names the client: its address and port, and the name it claimed */
	assert_true(log_match(&s, "client #[0-9]+ 127\\.0\\.0\\.1:[0-9]+ \\(worker [0-9]+\\) "
				  "refused \\(AUTH_FAILED\\): .*\\(name \"tester\"\\)$"));
	cli_delete(good);
	cli_delete(bad);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* hostile -- raw messages from a fresh client (after the handshake when ready, else before) */
static void
hostile(struct rpmaf_workers *cws, bool ready, const void *raw, size_t len, int nraw)
{
	struct cli *c = cli_new(cws, KEY_HEX, false, ready, !ready);

	for (int i = 0; i < nraw && !atomic_load(&c->closed); i++)
		(void)cli_raw(c, raw, len);
	assert_int_equal(wait_flag(&c->closed, WAIT_MS), 1);
	cli_delete(c);
}

/* truncated, oversized, out of order, bad magic, credit violations: each disconnected */
static void
test_hostile(void **state)
{
	struct srv s;
	struct rpmaf__proto_msg m = {.hdr = {.version = 1, .type = RPMAF__PROTO_T_REGION_LIST_REQ}};
	struct rpmaf__proto_region e;
	uint8_t buf[MSG_SIZE], copy[MSG_SIZE];
	int len;

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	len = rpmaf__proto_msg_encode(buf, sizeof(buf), &m, NULL);
	assert_true(len > 0);
	hostile(cws, false, buf, (size_t)len, 1);    /* a request before HELLO */
	hostile(cws, true, buf, (size_t)len - 3, 1); /* truncated */
	buf[0] ^= 0xff;
	hostile(cws, true, buf, (size_t)len, 1); /* bad magic */
	buf[0] ^= 0xff;
	memcpy(buf + 12, "\xff\x00\x00\x00", 4);
	hostile(cws, true, buf, (size_t)len, 1); /* credits it cannot owe */
	memset(buf + 12, 0, 4);
	hostile(cws, true, buf, (size_t)len,
		12); /* more requests than credits, no credit returned */
	memset(copy, 0x41, sizeof(copy));
	memcpy(copy, buf, 24);
	hostile(cws, true, copy, sizeof(copy), 1); /* bigger than its body says */
	struct rpmaf_server_stats st = stats(&s);

	assert_true(st.proto_errors >= 5);
	assert_true(log_has(&s, "returns 255 credits it cannot owe"));
	/* the server still serves */
	struct cli *good = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(lookup(good, "anon", &e, copy), RPMAF__PROTO_S_OK);
	cli_delete(good);
	assert_true(log_has(&s, "refused"));
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* a region added and removed: ANNOUNCE with the event and the generation */
static void
test_announce(void **state)
{
	struct srv s;
	struct rpmaf__proto_msg m;
	struct rpmaf__proto_region e;
	uint8_t copy[MSG_SIZE];
	struct rpmaf_cfg_region r = {.name = "extra", .size = 8192, .usage = 7};

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(rpmaf_server_region_add(s.s, &r), 0);
	assert_int_equal(rpmaf_server_region_add(s.s, &r), RPMAF_E_INVAL);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_ANNOUNCE, 0, &m, copy), 0);
	assert_int_equal(m.body.announce.event, RPMAF__PROTO_EV_ADDED);
	/* the table's generation is the change's, from the regions' counter */
	assert_int_equal(m.body.announce.table_generation, m.body.announce.region.generation);
	assert_int_equal(lookup(c, "extra", &e, copy), RPMAF__PROTO_S_OK);
	uint64_t gen = e.generation;

	pthread_mutex_lock(&c->lock);
	c->nkept = 0;
	pthread_mutex_unlock(&c->lock);
	assert_int_equal(rpmaf_server_region_remove(s.s, "extra"), 0);
	assert_int_equal(rpmaf_server_region_remove(s.s, "extra"), RPMAF_E_NOENT);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_ANNOUNCE, 0, &m, copy), 0);
	assert_int_equal(m.body.announce.event, RPMAF__PROTO_EV_REMOVED);
	/* a removal is newer than the generation the client holds */
	assert_true(m.body.announce.region.generation > gen);
	assert_int_equal(m.body.announce.table_generation, m.body.announce.region.generation);
	assert_int_equal(stats(&s).announcements, 2);
	cli_delete(c);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* file_size -- the size of the file at path, -1 when there is none */
static long long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* a change of a region run on a thread of its own: it returns once the clients confirmed it */
struct chg {
	struct srv *s;
	struct rpmaf_cfg_region r;
	pthread_t th;
	atomic_int done; /* 1 once rpmaf_server_region_change() returned */
	int ret;
};

/* chg_main -- the change's thread */
static void *
chg_main(void *arg)
{
	struct chg *c = arg;

	c->ret = rpmaf_server_region_change(c->s->s, &c->r);
	atomic_store(&c->done, 1);
	return NULL;
}

/* chg_start -- start changing region pm of s to size bytes (usage 7) */
static void
chg_start(struct chg *c, struct srv *s, uint64_t size)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->r = (struct rpmaf_cfg_region){.name = "pm",
					 .size = size,
					 .backing = RPMAF_BACKING_FILE,
					 .path = s->file,
					 .create = true,
					 .usage = 7,
					 .persistence = RPMAF_PERSIST_GPSPM};
	assert_int_equal(pthread_create(&c->th, NULL, chg_main, c), 0);
}

/* chg_end -- wait for the change; its return value */
static int
chg_end(struct chg *c)
{
	assert_int_equal(wait_flag(&c->done, WAIT_MS), 1);
	pthread_join(c->th, NULL);
	return c->ret;
}

/* region_json -- whether the server's JSON statistics hold text (a region's counters) */
static bool
region_json(const struct srv *s, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool found;

	assert_non_null(f);
	assert_int_equal(rpmaf_server_stats_write(s->s, RPMAF_STATS_JSON, NULL, f), 0);
	fclose(f);
	found = strstr(buf, text) != NULL;
	free(buf);
	return found;
}

/* old_write -- write 8 bytes of text at offset 64 through Wr.dst; 1 done, -1 failed */
static int
old_write(struct cli *c, const char *text)
{
	memcpy(Wr.local, text, 8);
	atomic_store(&c->rma_done, 0);
	Wr.c = c;
	assert_int_equal(rpmaf_worker_submit(c->w, &c->work, c_write, &Wr), 0);
	return wait_flag(&c->rma_done, WAIT_MS);
}

/*
 * the ANNOUNCE CHANGED of pm, grown from 64 KiB to 128 KiB while a client
 * holds its old descriptor: the change waits for the client's credit; until
 * then a write through the old descriptor lands in the region (the same
 * file pages) and a persist naming the old generation is served; once the
 * client confirmed it the change returns, and the old registration is gone
 */
static void
change_grow(struct srv *s, struct rpmaf_workers *cws)
{
	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);
	struct rpmaf__proto_region e;
	struct rpmaf__proto_msg m;
	uint8_t copy[MSG_SIZE];
	uint64_t g1, g2;
	struct chg ch;
	void *ptr;
	size_t size;

	assert_int_equal(lookup(c, "pm", &e, copy), RPMAF__PROTO_S_OK);
	g1 = e.generation;
	assert_int_equal(rpma_mr_remote_from_descriptor(e.desc, e.desc_len, &Wr.dst), 0);
	assert_int_equal(old_write(c, "before!!"), 1);
	chg_start(&ch, s, 131072);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_ANNOUNCE, 0, &m, copy), 0);
	assert_int_equal(m.body.announce.event, RPMAF__PROTO_EV_CHANGED);
	assert_int_equal(m.body.announce.region.size, 131072);
	assert_true(m.body.announce.region.desc_len > 0);
	g2 = m.body.announce.region.generation;
	assert_true(g2 > g1);
	assert_int_equal(m.body.announce.table_generation, g2);
	/* the client has not returned the announcement's credit: the old registration stays */
	usleep(200000);
	assert_int_equal(atomic_load(&ch.done), 0);
	assert_int_equal(old_write(c, "during!!"), 1);
	assert_int_equal(rpmaf_server_region_ptr(s->s, "pm", &ptr, &size), 0);
	assert_int_equal(size, 131072);
	assert_memory_equal((char *)ptr + 64, "during!!", 8);
	/* a persist of the old generation is served; its message returns the credit */
	assert_int_equal(persist(c, 64, 8, g1), RPMAF__PROTO_S_OK);
	assert_int_equal(chg_end(&ch), 0);
	assert_int_equal(persist(c, 65536, 8, g2), RPMAF__PROTO_S_OK);
	assert_int_equal(persist(c, 65536, 8, g1), RPMAF__PROTO_S_OK);
	assert_int_equal(persist(c, 131070, 8, g1), RPMAF__PROTO_S_OUT_OF_RANGE);
	assert_int_equal(persist(c, 0, 8, g2 + 1), RPMAF__PROTO_S_STALE);
	assert_int_equal(persist(c, 0, 8, g1 - 1), RPMAF__PROTO_S_STALE);
	/* the region's counters went on across the change: 1 lookup, 3 persists of 8 bytes */
	assert_true(region_json(s, "\"pm\":{\"lookups\":1,\"persists\":3,\"persist_bytes\":24,"));
	assert_int_equal(file_size(s->file), 131072);
	/* deregistered once confirmed: the old key fails (and breaks this connection) */
	assert_int_equal(old_write(c, "after!!!"), -1);
	assert_memory_equal((char *)ptr + 64, "during!!", 8);
	cli_delete(c);
	(void)rpma_mr_remote_delete(&Wr.dst);
}

/*
 * pm shrunk to 32 KiB: the file is cut back once the client confirmed the
 * change (create: true, the file was the region's size), its first bytes kept
 */
static void
change_shrink(struct srv *s, struct rpmaf_workers *cws)
{
	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);
	struct rpmaf__proto_region e;
	struct rpmaf__proto_msg m;
	uint8_t copy[MSG_SIZE];
	struct chg ch;
	void *ptr;
	size_t size;

	chg_start(&ch, s, 32768);
	assert_int_equal(cli_wait(c, RPMAF__PROTO_T_ANNOUNCE, 0, &m, copy), 0);
	assert_int_equal(m.body.announce.event, RPMAF__PROTO_EV_CHANGED);
	assert_int_equal(m.body.announce.region.size, 32768);
	/* the old mapping, and the file, stay whole until the client confirmed */
	usleep(100000);
	assert_int_equal(atomic_load(&ch.done), 0);
	assert_int_equal(file_size(s->file), 131072);
	assert_int_equal(lookup(c, "pm", &e, copy), RPMAF__PROTO_S_OK);
	assert_int_equal(chg_end(&ch), 0);
	assert_int_equal(e.size, 32768);
	assert_int_equal(file_size(s->file), 32768);
	assert_int_equal(rpmaf_server_region_ptr(s->s, "pm", &ptr, &size), 0);
	assert_int_equal(size, 32768);
	assert_memory_equal((char *)ptr + 64, "during!!", 8);
	cli_delete(c);
}

/* what a change refuses, with the region exported as before; anonymous memory keeps its bytes */
static void
change_others(struct srv *s)
{
	struct rpmaf_cfg_region r = {.name = "anon", .size = 131072, .usage = 7};
	struct rpmaf_cfg_region f = {.name = "pm",
				     .size = 65536,
				     .backing = RPMAF_BACKING_FILE,
				     .path = s->file,
				     .create = true,
				     .usage = 7};
	void *ptr;
	size_t size;

	assert_int_equal(rpmaf_server_region_change(NULL, &r), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_change(s->s, NULL), RPMAF_E_INVAL);
	r.name = "nope";
	assert_int_equal(rpmaf_server_region_change(s->s, &r), RPMAF_E_NOENT);
	r.name = "anon";
	r.size = 0;
	assert_int_equal(rpmaf_server_region_change(s->s, &r), RPMAF_E_INVAL);
	/* another backing, another persistence: not a change in place */
	r = f;
	r.name = "anon";
	assert_int_equal(rpmaf_server_region_change(s->s, &r), RPMAF_E_INVAL);
	/* apm cannot be durable on this file (page granularity): refused as a new region is */
	f.direct_write = true;
	f.persistence = RPMAF_PERSIST_APM;
	assert_int_equal(rpmaf_server_region_change(s->s, &f), RPMAF_E_INVAL);
	assert_true(log_has(s, "region pm: persistence apm cannot be durable on"));
	f.persistence = RPMAF_PERSIST_AUTO;
	f.direct_write = false;
	f.create = false;
	f.size = 1 << 20; /* a file too short without create */
	assert_int_equal(rpmaf_server_region_change(s->s, &f), RPMAF_E_IO);
	assert_int_equal(file_size(s->file), 32768);
	/* anonymous memory grows with its bytes, no client connected */
	assert_int_equal(rpmaf_server_region_ptr(s->s, "anon", &ptr, &size), 0);
	memcpy((char *)ptr + 65528, "anon end", 8);
	r = (struct rpmaf_cfg_region){.name = "anon", .size = 131072, .usage = 1};
	assert_int_equal(rpmaf_server_region_change(s->s, &r), 0);
	assert_int_equal(rpmaf_server_region_ptr(s->s, "anon", &ptr, &size), 0);
	assert_int_equal(size, 131072);
	assert_memory_equal((char *)ptr + 65528, "anon end", 8);
	assert_int_equal(stats(s).regions, 2);
}

/*
 * rpmaf_server_region_change(): a region grown, then shrunk, announced as
 * CHANGED (never removed and added), the old registration kept until the
 * client confirmed; what a change refuses
 */
static void
test_change(void **state)
{
	struct srv s;

	(void)state;
	start_std(&s, 0);
	struct rpmaf_workers *cws = client_start();

	Wr.local = aligned_alloc(4096, 4096);
	assert_int_equal(rpma_mr_reg(Peer, Wr.local, 4096, RPMA_MR_USAGE_WRITE_SRC, &Wr.src), 0);
	change_grow(&s, cws);
	change_shrink(&s, cws);
	change_others(&s);
	(void)rpma_mr_dereg(&Wr.src);
	free(Wr.local);
	Wr.local = NULL;
	srv_end(&s);
	unlink(s.file);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* log_wait -- wait (WAIT_MS) until n lines of the server's log match re; how many do */
static int
log_wait(const struct srv *s, const char *re, int n)
{
	for (int t = 0; t < WAIT_MS && log_count(s, re) < n; t++)
		usleep(1000);
	return log_count(s, re);
}

/*
 * 20 clients that connect and disconnect make one summary line each way at
 * notice, not one line per client (those are at debug), and none is lost; 3
 * left when the server stops make one more, said so
 */
static void
test_churn(void **state)
{
	struct cli *c[20];
	struct srv s;
	char log[128];

	(void)state;
	/* the log of this server only: the servers before appended to the same file */
	snprintf(log, sizeof(log), "%s/server.log", Dir);
	(void)unlink(log);
	Max_conns = 24;
	start_std(&s, 0);
	Max_conns = 8;
	struct rpmaf_workers *cws = client_start_n(24);

	for (int i = 0; i < 20; i++)
		c[i] = cli_new(cws, KEY_HEX, false, true, false);
	for (int i = 0; i < 20; i++)
		cli_delete(c[i]);
	assert_int_equal(log_wait(&s,
				  "notice: server: 20 clients disconnected in [0-9.]+ s "
				  "\\(20 by the client\\)$",
				  1),
			 1);
	assert_int_equal(log_count(&s, "notice: server: 20 clients connected in [0-9.]+ s$"), 1);
	assert_int_equal(log_count(&s, "clients? (dis)?connected in"), 2);
	assert_int_equal(log_count(&s, "debug: server: client #[0-9]+ .* closed: disconnected "
				       "by the client$"),
			 20);
	assert_int_equal(log_count(&s, "warning"), 0);
	assert_int_equal(stats(&s).lost, 0);
	for (int i = 0; i < 3; i++)
		c[i] = cli_new(cws, KEY_HEX, false, true, false);
	assert_int_equal(rpmaf_server_stop(s.s, 1000), 0);
	assert_int_equal(log_count(&s, "notice: server: 3 clients disconnected in [0-9.]+ s \\(3 "
				       "as the server stopped\\)$"),
			 1);
	for (int i = 0; i < 3; i++)
		cli_delete(c[i]);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* a client that answers no heartbeat is disconnected after interval x misses */
static void
test_heartbeat(void **state)
{
	struct srv s;
	long long t0;

	(void)state;
	start_std(&s, 100);
	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, true, true, false);

	t0 = t_now_ms();
	assert_int_equal(wait_flag(&c->closed, WAIT_MS), 1);
	assert_true(t_now_ms() - t0 >= 150);
	assert_true(stats(&s).lost >= 1);
	assert_true(log_has(&s, "silent"));
	cli_delete(c);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/*
 * listen.max_connections 2 and four clients: two are served, the other
 * two refused (counted as rejected, logged); the two still work
 */
static void
test_max_connections(void **state)
{
	struct srv s;
	struct cli *c[4];
	struct rpmaf__proto_region e;
	uint8_t copy[MSG_SIZE];
	int ready = 0, refused = 0;

	(void)state;
	Max_conns = 2;
	start_std(&s, 0);
	Max_conns = 8;
	struct rpmaf_workers *cws = client_start();

	for (int i = 0; i < 4; i++)
		c[i] = cli_new(cws, KEY_HEX, false, false, false);
	for (int i = 0; i < 4; i++) {
		for (int t = 0;
		     t < WAIT_MS && !atomic_load(&c[i]->ready) && !atomic_load(&c[i]->closed); t++)
			usleep(1000);
		ready += atomic_load(&c[i]->ready) && !atomic_load(&c[i]->closed);
		refused += atomic_load(&c[i]->closed);
	}
	assert_int_equal(ready, 2);
	assert_int_equal(refused, 2);
	struct rpmaf_server_stats st = stats(&s);

	assert_int_equal(st.accepted, 2);
	assert_int_equal(st.rejected, 2);
	assert_int_equal(st.connections, 2);
	assert_true(log_has(&s, "listen.max_connections (2) reached"));
	for (int i = 0; i < 4; i++)
		if (!atomic_load(&c[i]->closed))
			assert_int_equal(lookup(c[i], "anon", &e, copy), RPMAF__PROTO_S_OK);
	for (int i = 0; i < 4; i++)
		cli_delete(c[i]);
	srv_end(&s);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* start on a port already taken: RPMAF_E_RDMA, nothing listens; stop drains */
static void
test_port_taken_and_stop(void **state)
{
	struct srv a, b;

	(void)state;
	start_std(&a, 0);
	b.cfg = srv_cfg(&b, "", 0);
	assert_int_equal(rpmaf_workers_new(b.cfg, Peer, &b.ws), 0);
	assert_int_equal(rpmaf_server_new(b.cfg, Peer, b.ws, &b.s), 0);
	assert_int_equal(rpmaf_server_start(b.s), RPMAF_E_RDMA);
	assert_int_equal(rpmaf_server_port(b.s), 0);
	assert_int_equal(rpmaf_server_delete(&b.s), 0);
	assert_int_equal(rpmaf_workers_delete(&b.ws), 0);
	rpmaf_cfg_delete(&b.cfg);

	struct rpmaf_workers *cws = client_start();

	struct cli *c = cli_new(cws, KEY_HEX, false, true, false);

	assert_int_equal(rpmaf_server_stop(a.s, 1000), 0);
	assert_int_equal(wait_flag(&c->closed, WAIT_MS), 1);
	assert_int_equal(stats(&a).connections, 0);
	cli_delete(c);
	srv_end(&a);
	unlink(a.file);
	assert_int_equal(rpmaf_workers_delete(&cws), 0);
}

/* a missing region file without create: RPMAF_E_IO and nothing left behind */
static void
test_missing_file(void **state)
{
	struct srv s;
	char extra[512], other[160];
	struct stat st;

	(void)state;
	snprintf(other, sizeof(other), "%s/made.pmem", Dir);
	snprintf(extra, sizeof(extra),
		 "regions:\n  - {name: a, size: 8K, backing: {file: %s, create: true}}\n"
		 "  - {name: b, size: 8K, backing: {file: %s/missing.pmem}}\n",
		 other, Dir);
	s.cfg = srv_cfg(&s, extra, RPMAF_CFG_NO_FILE_CHECKS);
	assert_int_equal(rpmaf_workers_new(s.cfg, Peer, &s.ws), 0);
	s.s = NULL;
	assert_int_equal(rpmaf_server_new(s.cfg, Peer, s.ws, &s.s), RPMAF_E_IO);
	assert_null(s.s);
	assert_int_equal(stat(other, &st), -1);
	assert_int_equal(rpmaf_workers_delete(&s.ws), 0);
	rpmaf_cfg_delete(&s.cfg);
}

/* srv_new -- a server of extra configuration text, made but not started; its rpmaf_server_new() */
static int
srv_new(struct srv *s, const char *extra)
{
	s->cfg = srv_cfg(s, extra, 0);
	assert_int_equal(rpmaf_workers_new(s->cfg, Peer, &s->ws), 0);
	s->s = NULL;
	return rpmaf_server_new(s->cfg, Peer, s->ws, &s->s);
}

/*
 * one region file, two servers of one process: the second is refused
 * (RPMAF_E_BUSY, logged with the file and the holder) without touching
 * the file, at its making and at run time; a removal releases the lock
 * and the file can be exported again
 */
static void
test_region_lock(void **state)
{
	struct srv a, b;
	char extra[512], text[256];
	struct rpmaf_cfg_region again = {
	    .name = "again", .size = 65536, .usage = 7, .backing = RPMAF_BACKING_FILE};
	void *ptr;
	size_t size;

	(void)state;
	start_std(&a, 0);
	assert_int_equal(rpmaf_server_region_ptr(a.s, "pm", &ptr, &size), 0);
	memcpy(ptr, "first's", 8);
	/* a bigger region on the same file: the file must not be extended */
	snprintf(extra, sizeof(extra),
		 "regions:\n  - {name: pm, size: 128K, backing: {file: %s, create: true}}\n",
		 a.file);
	assert_int_equal(srv_new(&b, extra), RPMAF_E_BUSY);
	assert_null(b.s);
	assert_int_equal(file_size(a.file), 65536);
	assert_memory_equal(ptr, "first's", 8);
	snprintf(text, sizeof(text), "%s is in use: another server of this process (pid %d)",
		 a.file, (int)getpid());
	assert_true(log_has(&a, text));
	/* a second name for the file in the first server: refused too */
	again.path = a.file;
	assert_int_equal(rpmaf_server_region_add(a.s, &again), RPMAF_E_BUSY);
	assert_int_equal(stats(&a).regions, 2);
	/* removed at run time: the lock goes with it, another server exports the file */
	assert_int_equal(rpmaf_server_region_remove(a.s, "pm"), 0);
	assert_int_equal(rpmaf_server_new(b.cfg, Peer, b.ws, &b.s), 0);
	assert_int_equal(rpmaf_server_region_add(a.s, &again), RPMAF_E_BUSY);
	assert_int_equal(srv_end_ret(&b), 0);
	/* and back to the first: registered again */
	assert_int_equal(rpmaf_server_region_add(a.s, &again), 0);
	assert_int_equal(rpmaf_server_region_ptr(a.s, "again", &ptr, &size), 0);
	assert_memory_equal(ptr, "first's", 8);
	srv_end(&a);
	unlink(a.file);
}

/*
 * a start that fails (the port taken) leaves behind no region file the
 * server created, and a file that was there as it was (cut back to its
 * size, its bytes kept)
 */
static void
test_failed_start_undo(void **state)
{
	struct srv a, b;
	char extra[512], made[160], kept[160], got[8] = {0};
	int fd;

	(void)state;
	start_std(&a, 0);
	snprintf(made, sizeof(made), "%s/made.pmem", Dir);
	snprintf(kept, sizeof(kept), "%s/kept.pmem", Dir);
	fd = open(kept, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "precious", 8, 4096), 8);
	assert_int_equal(ftruncate(fd, 8192), 0);
	close(fd);
	snprintf(extra, sizeof(extra),
		 "regions:\n  - {name: made, size: 16K, backing: {file: %s, create: true}}\n"
		 "  - {name: kept, size: 16K, backing: {file: %s, create: true}}\n",
		 made, kept);
	assert_int_equal(srv_new(&b, extra), 0);
	assert_int_equal(file_size(made), 16384);
	assert_int_equal(file_size(kept), 16384);
	assert_int_equal(rpmaf_server_start(b.s), RPMAF_E_RDMA);
	srv_end(&b);
	assert_int_equal(file_size(made), -1);
	assert_int_equal(file_size(kept), 8192);
	fd = open(kept, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, got, 8, 4096), 8);
	close(fd);
	assert_memory_equal(got, "precious", 8);
	unlink(kept);
	srv_end(&a);
}

/* setup -- the peer, a directory with the key */
static int
setup(void **state)
{
	char path[128];
	int fd;

	(void)state;
	Port = 19000 + (unsigned)(getpid() % 40) * 12;
	snprintf(Dir, sizeof(Dir), "/tmp/rpmaf-server-test.XXXXXX");
	if (!mkdtemp(Dir) || t_setup_peer(&Peer, 300))
		return -1;
	snprintf(path, sizeof(path), "%s/key", Dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0 || write(fd, KEY_HEX "\n", 65) != 65)
		return -1;
	close(fd);
	return 0;
}

/* teardown -- the peer and the directory */
static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	(void)rpma_peer_delete(&Peer);
	if (getenv("SERVER_TEST_KEEP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", Dir);
	return system(cmd) ? -1 : 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_list_lookup_write, leftover),
	    cmocka_unit_test_teardown(test_persist, leftover),
	    cmocka_unit_test_teardown(test_app, leftover),
	    cmocka_unit_test_teardown(test_handler_list, leftover),
	    cmocka_unit_test_teardown(test_region_persist, leftover),
	    cmocka_unit_test_teardown(test_wrong_key, leftover),
	    cmocka_unit_test_teardown(test_hostile, leftover),
	    cmocka_unit_test_teardown(test_announce, leftover),
	    cmocka_unit_test_teardown(test_change, leftover),
	    cmocka_unit_test_teardown(test_churn, leftover),
	    cmocka_unit_test_teardown(test_heartbeat, leftover),
	    cmocka_unit_test_teardown(test_max_connections, leftover),
	    cmocka_unit_test_teardown(test_port_taken_and_stop, leftover),
	    cmocka_unit_test_teardown(test_missing_file, leftover),
	    cmocka_unit_test_teardown(test_region_lock, leftover),
	    cmocka_unit_test_teardown(test_failed_start_undo, leftover),
	};

	if (getenv("SERVER_TESTS"))
		cmocka_set_test_filter(getenv("SERVER_TESTS"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
