/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.h -- helpers shared by the librpma examples: argument parsing, error
 * reporting, connection set-up and tear-down, waiting for completions and
 * mapping a file with libpmem2.
 */

#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpmem2.h>
#include <librpma.h>

/* exit code of a client whose connection was rejected or found no server */
#define COMMON_EXIT_NOT_CONNECTED 3

/* the size of a memory region descriptor (rpma_mr_get_descriptor_size()) */
#define COMMON_MR_DESC_SIZE 21

/* the size of a peer configuration descriptor */
#define COMMON_PCFG_DESC_SIZE 1

/* what a program was given on its command line */
struct common_args {
	const char *addr;
	const char *port;
	int nextra;   /* how many optional arguments follow ADDR PORT */
	char **extra; /* those arguments */
};

/* a file mapped with libpmem2 */
struct common_pmem {
	int fd;
	struct pmem2_map *map;
	void *addr;
	size_t size;
	pmem2_persist_fn persist;
	char path[4096];
	bool is_tmp; /* a temporary file, unlinked at exit */
};

/*
 * COMMON_CHECK -- run an rpma_* call and end the program with a message when
 * it fails; the message names the call.
 */
#define COMMON_CHECK(call) common_check((call), #call)

void common_init(const char *role, int argc, char *argv[], int max_extra, const char *extra_usage,
		 struct common_args *args);
const char *common_role(void);
void common_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void common_check(int ret, const char *what);
unsigned long common_ulong_arg(const struct common_args *args, int idx, unsigned long dflt,
			       unsigned long min, unsigned long max);
const char *common_str_arg(const struct common_args *args, int idx, const char *dflt);

void *common_alloc(size_t size);

struct rpma_peer *common_peer_new(const char *addr, enum rpma_util_ibv_context_type type);

struct rpma_ep *common_listen(struct rpma_peer *peer, const char *addr, const char *port);
struct rpma_conn_req *common_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg);
struct rpma_conn_req *common_req_new(struct rpma_peer *peer, const struct common_args *args,
				     const struct rpma_conn_cfg *cfg);
struct rpma_conn *common_connect(struct rpma_conn_req **req, const void *pdata, size_t len);
void common_wait_established(struct rpma_conn *conn);

void common_disconnect(struct rpma_conn **conn);
void common_wait_closed(struct rpma_conn **conn);

void common_wait_one(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc);
void common_wait_send_recv(struct rpma_cq *cq, struct ibv_wc *recv_wc);
const char *common_opcode_2str(enum ibv_wc_opcode opcode);

struct rpma_mr_remote *common_remote_mr(const void *desc, size_t len);
void common_mr_descriptor(const struct rpma_mr_local *mr, void *desc);

void common_pmem_map(struct common_pmem *pm, const char *path, size_t size);
void common_pmem_unmap(struct common_pmem *pm);

#endif /* EXAMPLES_COMMON_H */
