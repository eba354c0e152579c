/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.h -- helpers shared by the integration tests, the multi-threaded
 * tests and their helper server: starting the server process and talking to
 * it over a pipe, bounded waits for completions and connection events, the
 * region pattern and the layout of the private data.
 */

#ifndef TESTS_INTEGRATION_COMMON_H
#define TESTS_INTEGRATION_COMMON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <librpma.h>

#define T_ADDR	    "127.0.0.1"
#define T_MR_DESC   21	  /* rpma_mr_get_descriptor_size() */
#define T_PCFG_DESC 1	  /* rpma_peer_cfg_get_descriptor_size() */
#define T_REGION    4096  /* the size of the server's RMA region */
#define T_MSG	    64	  /* the size of one message slot */
#define T_WAIT_MS   10000 /* the bound of every wait for the peer */
#define T_LINE	    16384 /* the longest line the server prints */

/* the server's private data: three region descriptors and its peer cfg */
#define T_PD_MR	     0	/* the RMA region, every usage */
#define T_PD_DEAD    21 /* a region deregistered before the connection */
#define T_PD_NOFLUSH 42 /* a region without the flush usages */
#define T_PD_PCFG    63 /* the peer configuration descriptor */
#define T_PD_SIZE    64

/*
 * what the echo server answers to every message it receives: what its
 * receive completion said, then the first bytes of the received buffer
 */
struct t_echo {
	uint32_t opcode;
	uint32_t status;
	uint32_t byte_len;
	uint32_t with_imm;
	uint32_t imm;
	uint32_t ctx;
	uint8_t data[32];
};

/* the byte at offset i of the server's region before anybody writes to it */
static inline uint8_t
t_pattern(size_t i)
{
	return (uint8_t)(i * 31 + 7);
}

/* a running helper server */
struct t_srv {
	pid_t pid;
	int fd; /* the read end of the pipe from its stdout */
	char port[16];
	char buf[T_LINE * 2];
	size_t len;
};

/* the directory of the running program, to find the helper server */
const char *t_bindir(void);

/* a port for this process: base + pid % 1000 * 20, then the next ones */
const char *t_next_port(char *buf, size_t size);

/*
 * t_srv_start -- exec build/.../server MODE PORT OPTS... with its stdout in a
 * pipe, and wait for its READY line (another port is tried when the port is
 * taken). opts is a NULL-terminated list, may be NULL. 0 or -1.
 */
int t_srv_start(struct t_srv *srv, const char *mode, const char *const *opts);

/*
 * t_srv_exec -- like t_srv_start() but with the port given, and without
 * waiting for any line.
 */
int t_srv_exec(struct t_srv *srv, const char *mode, const char *port, const char *const *opts);

/*
 * t_prog_exec -- like t_srv_exec() but exec the program at path, e.g.
 * "/proc/self/exe" for a test that runs its own peer in another role
 */
int t_prog_exec(struct t_srv *srv, const char *path, const char *mode, const char *port,
		const char *const *opts);

/*
 * t_srv_line -- read the next line starting with prefix (other lines are
 * skipped) into line (without the newline). 0, or -1 on timeout or end.
 */
int t_srv_line(struct t_srv *srv, const char *prefix, char *line, size_t size, int timeout_ms);

/* t_srv_wait -- wait for the server to exit; its exit code, or -1 (killed) */
int t_srv_wait(struct t_srv *srv, int timeout_ms);

/* t_srv_kill -- kill the server with SIGKILL (if alive) and reap it */
void t_srv_kill(struct t_srv *srv);

/* t_hex_decode -- decode hex into out; the number of bytes, or -1 */
int t_hex_decode(const char *hex, uint8_t *out, size_t size);

/* t_peer_new -- a peer on the device serving 127.0.0.1; NULL on failure */
struct rpma_peer *t_peer_new(void);

/*
 * t_wait_wc -- poll the CQ until one completion comes; 0, the error of
 * rpma_cq_get_wc(), or RPMA_E_NO_COMPLETION after timeout_ms
 */
int t_wait_wc(struct rpma_cq *cq, struct ibv_wc *wc, int timeout_ms);

/*
 * t_wait_event -- wait up to timeout_ms for the next connection event;
 * 0, an rpma_conn_next_event() error or RPMA_E_NO_EVENT on timeout
 */
int t_wait_event(struct rpma_conn *conn, enum rpma_conn_event *ev, int timeout_ms);

/* t_now_ms -- a monotonic clock in milliseconds */
long long t_now_ms(void);

/*
 * t_connect -- rpma_conn_req_new() to 127.0.0.1:port, optional receive posted
 * on the request, connect with pdata and wait for RPMA_CONN_ESTABLISHED.
 * The received private data is copied into srv_pdata (T_PD_SIZE bytes) when
 * it is not NULL. 0 or an error code (a connection event is returned as
 * 1000 + event).
 */
int t_connect(struct rpma_peer *peer, const char *port, const struct rpma_conn_cfg *cfg,
	      const void *pdata, uint8_t pdata_len, struct rpma_mr_local *recv_mr, size_t recv_off,
	      size_t recv_len, const void *recv_ctx, struct rpma_conn **conn_ptr,
	      uint8_t *srv_pdata);

/*
 * t_close -- disconnect, wait for RPMA_CONN_CLOSED and delete the
 * connection; 0 or an error code
 */
int t_close(struct rpma_conn **conn_ptr);

/*
 * t_setup_peer -- the common start of a test group: arm an alarm of seconds
 * (a hung test dies) and make the peer (t_peer_new()); 0 or -1
 */
int t_setup_peer(struct rpma_peer **peer_ptr, unsigned seconds);

/*
 * t_setup_region -- t_setup_peer(), then a T_REGION-byte local region,
 * 4096-aligned, registered with usage; 0, -1 or an rpma_mr_reg() error
 */
int t_setup_region(struct rpma_peer **peer_ptr, unsigned seconds, int usage, uint8_t **local_ptr,
		   struct rpma_mr_local **mr_ptr);

/*
 * t_teardown_region -- deregister and free what t_setup_region() made, then
 * delete the peer (not when the deregistration failed); 0 or an error code
 */
int t_teardown_region(struct rpma_peer **peer_ptr, uint8_t **local_ptr,
		      struct rpma_mr_local **mr_ptr);

/*
 * t_srv_connect -- start a server in mode "rma" with opts (t_srv_start())
 * and connect to it (t_connect(), no receive posted); 0 or an error code
 */
int t_srv_connect(struct t_srv *srv, const char *const *opts, struct rpma_peer *peer,
		  const struct rpma_conn_cfg *cfg, const void *pdata, uint8_t pdata_len,
		  struct rpma_conn **conn_ptr, uint8_t *srv_pdata);

/*
 * t_srv_dump -- read the server's DUMP line and decode its region into dump
 * (T_REGION bytes); the number of bytes decoded, or -1
 */
int t_srv_dump(struct t_srv *srv, uint8_t *dump);

#endif /* TESTS_INTEGRATION_COMMON_H */
