/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * helpers.h -- building peers, endpoints, connection requests, connections
 * and memory regions through the public API on top of the mocks
 *
 * Include it after <cmocka.h>.
 */

#ifndef UNIT_HELPERS_H
#define UNIT_HELPERS_H 1

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "librpma.h"
#include "mocks.h"

#define H_ADDR "192.168.0.1"
#define H_PORT "7204"

/* the device capability bit of a native atomic write */
#define H_CAP_ATOMIC_WRITE (1ULL << 40)

/* a pointer that no function may write to an output argument */
#define H_SENTINEL ((void *)(uintptr_t)0xdeadbeefUL)

/* the state of a test: a peer and the leak baseline taken after it */
struct h_state {
	struct rpma_peer *peer;
	long allocs;
	int objs;
};

/* h_allocs -- how many allocation calls have been made since the reset */
static inline int
h_allocs(void)
{
	return mock_calls("malloc") + mock_calls("calloc") + mock_calls("realloc");
}

/* h_peer_new -- a peer on the mock device, with or without native atomic write */
static inline struct rpma_peer *
h_peer_new(bool native_atomic_write)
{
	struct ibv_device_attr_ex attr;
	struct rpma_peer *peer = NULL;

	memset(&attr, 0, sizeof(attr));
	attr.orig_attr.phys_port_cnt = 1;
	attr.device_cap_flags_ex = native_atomic_write ? H_CAP_ATOMIC_WRITE : 0;
	mock_set_device_attr_ex(&attr);
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), 0);
	assert_non_null(peer);
	return peer;
}

/* h_setup_common -- reset the mocks, create a peer and take the baseline */
static inline int
h_setup_common(void **state, bool native_atomic_write)
{
	static struct h_state st;

	mock_reset();
	st.peer = h_peer_new(native_atomic_write);
	st.allocs = mock_alloc_live();
	st.objs = mock_objects_live();
	*state = &st;
	return 0;
}

/* h_setup -- a peer without native atomic write */
static inline int
h_setup(void **state)
{
	return h_setup_common(state, false);
}

/* h_setup_native -- a peer whose device writes atomically */
static inline int
h_setup_native(void **state)
{
	return h_setup_common(state, true);
}

/* h_teardown -- delete the peer; nothing else may be left */
static inline int
h_teardown(void **state)
{
	struct h_state *st = *state;

	assert_int_equal(rpma_peer_delete(&st->peer), 0);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	return 0;
}

/* h_assert_baseline -- only the peer is alive */
static inline void
h_assert_baseline(const struct h_state *st)
{
	assert_int_equal(mock_alloc_live(), st->allocs);
	assert_int_equal(mock_objects_live(), st->objs);
}

/* h_req_active -- an outgoing connection request */
static inline struct rpma_conn_req *
h_req_active(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_new(peer, H_ADDR, H_PORT, cfg, &req), 0);
	assert_non_null(req);
	return req;
}

/* h_ep_new -- a listening endpoint */
static inline struct rpma_ep *
h_ep_new(struct rpma_peer *peer)
{
	struct rpma_ep *ep = NULL;

	assert_int_equal(rpma_ep_listen(peer, H_ADDR, H_PORT, &ep), 0);
	assert_non_null(ep);
	return ep;
}

/* h_req_passive -- an incoming connection request carrying pdata */
static inline struct rpma_conn_req *
h_req_passive(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, const void *pdata, uint8_t len)
{
	struct rpma_conn_req *req = NULL;

	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, pdata, len);
	assert_int_equal(rpma_ep_next_conn_req(ep, cfg, &req), 0);
	assert_non_null(req);
	return req;
}

/* h_conn_active -- a connection made by a client without private data */
static inline struct rpma_conn *
h_conn_active(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req = h_req_active(peer, cfg);
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_null(req);
	assert_non_null(conn);
	return conn;
}

/* h_conn_delete -- delete a connection that must succeed */
static inline void
h_conn_delete(struct rpma_conn **conn)
{
	assert_int_equal(rpma_conn_delete(conn), 0);
	assert_null(*conn);
}

/* h_mr_reg -- a local region over buf */
static inline struct rpma_mr_local *
h_mr_reg(struct rpma_peer *peer, void *buf, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_reg(peer, buf, size, usage, &mr), 0);
	assert_non_null(mr);
	return mr;
}

/* h_mr_remote -- a remote region made from a descriptor */
static inline struct rpma_mr_remote *
h_mr_remote(uint64_t addr, uint64_t size, uint32_t rkey, int usage)
{
	struct rpma_mr_remote *mr = NULL;
	uint8_t desc[21];

	for (int i = 0; i < 8; i++) {
		desc[i] = (uint8_t)(addr >> (8 * i));
		desc[8 + i] = (uint8_t)(size >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		desc[16 + i] = (uint8_t)(rkey >> (8 * i));
	desc[20] = (uint8_t)usage;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	assert_non_null(mr);
	return mr;
}

/* h_cfg_new -- a connection configuration */
static inline struct rpma_conn_cfg *
h_cfg_new(void)
{
	struct rpma_conn_cfg *cfg = NULL;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	return cfg;
}

#endif /* UNIT_HELPERS_H */
