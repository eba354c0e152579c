/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.c -- helpers shared by the integration and multi-threaded tests:
 * the helper server process, bounded waits, connection set-up.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static char Bindir[PATH_MAX];
static unsigned Port_seq;

const char *
t_bindir(void)
{
	if (Bindir[0] == '\0') {
		ssize_t n = readlink("/proc/self/exe", Bindir, sizeof(Bindir) - 1);

		if (n <= 0)
			return ".";
		Bindir[n] = '\0';
		char *slash = strrchr(Bindir, '/');

		if (slash)
			*slash = '\0';
	}
	return Bindir;
}

const char *
t_next_port(char *buf, size_t size)
{
	const char *base_env = getenv("INTEG_BASE_PORT");
	unsigned base = base_env ? (unsigned)atoi(base_env) : 20000;
	/* below the kernel's ephemeral range (32768-60999), so no outgoing
	 * connection of another test holds the port */
	unsigned port = base + (unsigned)(getpid() % 600) * 20 +
			__atomic_fetch_add(&Port_seq, 1, __ATOMIC_RELAXED) % 20;

	snprintf(buf, size, "%u", port);
	return buf;
}

long long
t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
t_srv_exec(struct t_srv *srv, const char *mode, const char *port, const char *const *opts)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/server", t_bindir());
	return t_prog_exec(srv, path, mode, port, opts);
}

int
t_prog_exec(struct t_srv *srv, const char *path, const char *mode, const char *port,
	    const char *const *opts)
{
	const char *argv[32];
	int p[2];
	int n = 0;

	memset(srv, 0, sizeof(*srv));
	srv->pid = -1;
	srv->fd = -1;
	snprintf(srv->port, sizeof(srv->port), "%s", port);

	argv[n++] = path;
	argv[n++] = mode;
	argv[n++] = srv->port;
	for (int i = 0; opts && opts[i] && n < 31; i++)
		argv[n++] = opts[i];
	argv[n] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* the server never outlives the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(p[1], STDOUT_FILENO);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	srv->pid = pid;
	srv->fd = p[0];
	return 0;
}

int
t_srv_start(struct t_srv *srv, const char *mode, const char *const *opts)
{
	char port[16];
	char line[64];

	for (int attempt = 0; attempt < 8; attempt++) {
		if (t_srv_exec(srv, mode, t_next_port(port, sizeof(port)), opts))
			return -1;
		if (t_srv_line(srv, "READY", line, sizeof(line), T_WAIT_MS) == 0)
			return 0;
		/* the port was taken (LISTEN_FAILED) or the server died: next port */
		t_srv_kill(srv);
	}
	return -1;
}

int
t_srv_line(struct t_srv *srv, const char *prefix, char *line, size_t size, int timeout_ms)
{
	long long deadline = t_now_ms() + timeout_ms;
	size_t plen = strlen(prefix);

	for (;;) {
		char *nl;

		while ((nl = memchr(srv->buf, '\n', srv->len)) != NULL) {
			size_t l = (size_t)(nl - srv->buf);
			int match = l >= plen && memcmp(srv->buf, prefix, plen) == 0;

			if (getenv("INTEG_DEBUG"))
				fprintf(stderr, "server %d: %.*s\n", (int)srv->pid, (int)l,
					srv->buf);

			if (match) {
				size_t c = l < size - 1 ? l : size - 1;

				memcpy(line, srv->buf, c);
				line[c] = '\0';
			}
			memmove(srv->buf, nl + 1, srv->len - l - 1);
			srv->len -= l + 1;
			if (match)
				return 0;
		}
		if (srv->len == sizeof(srv->buf))
			srv->len = 0; /* a line too long: drop it */

		long long left = deadline - t_now_ms();

		if (left <= 0 || srv->fd < 0)
			return -1;
		struct pollfd pfd = {.fd = srv->fd, .events = POLLIN};
		int r = poll(&pfd, 1, (int)left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t got = read(srv->fd, srv->buf + srv->len, sizeof(srv->buf) - srv->len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		srv->len += (size_t)got;
	}
}

int
t_srv_wait(struct t_srv *srv, int timeout_ms)
{
	long long deadline = t_now_ms() + timeout_ms;
	int status;

	if (srv->pid <= 0)
		return -1;
	for (;;) {
		pid_t r = waitpid(srv->pid, &status, WNOHANG);

		if (r == srv->pid)
			break;
		if (r < 0 || t_now_ms() > deadline) {
			t_srv_kill(srv);
			return -1;
		}
		usleep(2000);
	}
	srv->pid = -1;
	if (srv->fd >= 0) {
		close(srv->fd);
		srv->fd = -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void
t_srv_kill(struct t_srv *srv)
{
	char line[256];

	/* with INTEG_DEBUG, show what the server said that nobody read */
	if (getenv("INTEG_DEBUG") && srv->fd >= 0)
		while (t_srv_line(srv, "", line, sizeof(line), 200) == 0)
			;
	if (srv->pid > 0) {
		kill(srv->pid, SIGKILL);
		while (waitpid(srv->pid, NULL, 0) < 0 && errno == EINTR)
			;
		srv->pid = -1;
	}
	if (srv->fd >= 0) {
		close(srv->fd);
		srv->fd = -1;
	}
}

int
t_hex_decode(const char *hex, uint8_t *out, size_t size)
{
	size_t n = 0;

	while (hex[0] && hex[1] && n < size) {
		unsigned v;

		if (sscanf(hex, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return (int)n;
}

struct rpma_peer *
t_peer_new(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	if (rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx))
		return NULL;
	if (rpma_peer_new(ctx, &peer))
		return NULL;
	return peer;
}

int
t_wait_wc(struct rpma_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	long long deadline = t_now_ms() + timeout_ms;

	for (;;) {
		int ret = rpma_cq_get_wc(cq, 1, wc, NULL);

		if (ret != RPMA_E_NO_COMPLETION)
			return ret;
		if (t_now_ms() > deadline)
			return RPMA_E_NO_COMPLETION;
		usleep(100);
	}
}

int
t_wait_event(struct rpma_conn *conn, enum rpma_conn_event *ev, int timeout_ms)
{
	struct pollfd pfd = {.events = POLLIN};
	int ret;

	if ((ret = rpma_conn_get_event_fd(conn, &pfd.fd)))
		return ret;
	long long deadline = t_now_ms() + timeout_ms;

	for (;;) {
		long long left = deadline - t_now_ms();

		if (left < 0)
			return RPMA_E_NO_EVENT;
		int r = poll(&pfd, 1, (int)left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return RPMA_E_NO_EVENT;
		ret = rpma_conn_next_event(conn, ev);
		/* a non-blocking fd may have been woken by something else */
		if (ret != RPMA_E_NO_EVENT)
			return ret;
	}
}

int
t_connect(struct rpma_peer *peer, const char *port, const struct rpma_conn_cfg *cfg,
	  const void *pdata, uint8_t pdata_len, struct rpma_mr_local *recv_mr, size_t recv_off,
	  size_t recv_len, const void *recv_ctx, struct rpma_conn **conn_ptr, uint8_t *srv_pdata)
{
	struct rpma_conn_private_data pd = {.ptr = (void *)pdata, .len = pdata_len};
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev;
	int ret;

	if ((ret = rpma_conn_req_new(peer, T_ADDR, port, cfg, &req)))
		return ret;
	if (recv_mr && (ret = rpma_conn_req_recv(req, recv_mr, recv_off, recv_len, recv_ctx))) {
		(void)rpma_conn_req_delete(&req);
		return ret;
	}
	if ((ret = rpma_conn_req_connect(&req, pdata ? &pd : NULL, &conn)))
		return ret;
	if ((ret = t_wait_event(conn, &ev, T_WAIT_MS)) || ev != RPMA_CONN_ESTABLISHED) {
		if (ret == 0)
			ret = 1000 + (int)ev;
		(void)rpma_conn_delete(&conn);
		return ret;
	}
	if (srv_pdata) {
		if ((ret = rpma_conn_get_private_data(conn, &pd)) || pd.len < T_PD_SIZE) {
			(void)rpma_conn_disconnect(conn);
			(void)rpma_conn_delete(&conn);
			return ret ? ret : RPMA_E_UNKNOWN;
		}
		memcpy(srv_pdata, pd.ptr, T_PD_SIZE);
	}
	*conn_ptr = conn;
	return 0;
}

int
t_close(struct rpma_conn **conn_ptr)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret;

	if (*conn_ptr == NULL)
		return 0;
	ret = rpma_conn_disconnect(*conn_ptr);
	if (ret == 0)
		ret = t_wait_event(*conn_ptr, &ev, T_WAIT_MS);
	if (ret == 0 && ev != RPMA_CONN_CLOSED)
		ret = 1000 + (int)ev;
	int ret2 = rpma_conn_delete(conn_ptr);

	return ret ? ret : ret2;
}

/* t_setup_peer -- arm the alarm and make the peer */
int
t_setup_peer(struct rpma_peer **peer_ptr, unsigned seconds)
{
	alarm(seconds);
	*peer_ptr = t_peer_new();
	return *peer_ptr ? 0 : -1;
}

/* t_setup_region -- the peer and a registered local region */
int
t_setup_region(struct rpma_peer **peer_ptr, unsigned seconds, int usage, uint8_t **local_ptr,
	       struct rpma_mr_local **mr_ptr)
{
	int ret = t_setup_peer(peer_ptr, seconds);

	*local_ptr = aligned_alloc(4096, T_REGION);
	if (ret || !*local_ptr)
		return -1;
	return rpma_mr_reg(*peer_ptr, *local_ptr, T_REGION, usage, mr_ptr);
}

/* t_teardown_region -- undo t_setup_region() */
int
t_teardown_region(struct rpma_peer **peer_ptr, uint8_t **local_ptr, struct rpma_mr_local **mr_ptr)
{
	int ret = rpma_mr_dereg(mr_ptr);

	free(*local_ptr);
	*local_ptr = NULL;
	return ret ? ret : rpma_peer_delete(peer_ptr);
}

/* t_srv_connect -- start an "rma" server and connect to it */
int
t_srv_connect(struct t_srv *srv, const char *const *opts, struct rpma_peer *peer,
	      const struct rpma_conn_cfg *cfg, const void *pdata, uint8_t pdata_len,
	      struct rpma_conn **conn_ptr, uint8_t *srv_pdata)
{
	if (t_srv_start(srv, "rma", opts))
		return -1;
	return t_connect(peer, srv->port, cfg, pdata, pdata_len, NULL, 0, 0, NULL, conn_ptr,
			 srv_pdata);
}

/* t_srv_dump -- the server's final region */
int
t_srv_dump(struct t_srv *srv, uint8_t *dump)
{
	char *line = malloc(T_LINE);
	int ret = -1;

	if (!line)
		return -1;
	if (t_srv_line(srv, "DUMP ", line, T_LINE, T_WAIT_MS) == 0)
		ret = t_hex_decode(line + 5, dump, T_REGION);
	free(line);
	return ret;
}
