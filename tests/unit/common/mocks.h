/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks.h -- control API of the libibverbs / librdmacm / allocator mocks
 *
 * Every unit test is linked with the tests/unit/common/ sources instead of
 * -libverbs -lrdmacm and with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free.
 *
 * Conventions:
 * - Every mocked function is identified by its name as a string, e.g.
 *   "rdma_connect", "ibv_reg_mr", "ibv_post_send", "malloc". The ops reached
 *   through the inline functions of <infiniband/verbs.h> use the name of the
 *   inline function: "ibv_post_send", "ibv_post_recv", "ibv_post_srq_recv",
 *   "ibv_poll_cq", "ibv_req_notify_cq", "ibv_query_device_ex",
 *   "ibv_advise_mr", "ibv_query_port", and the struct ibv_qp_ex callbacks
 *   "ibv_wr_start", "ibv_wr_complete", ... (the short form "wr_start" is
 *   accepted as an alias).
 * - A name that is not mocked makes the calling test fail (typo guard).
 * - A failing mock behaves like the real function: it returns NULL and sets
 *   errno, or returns -1 and sets errno (all of librdmacm, ibv_get_cq_event),
 *   or returns the error code itself (functions documented by rdma-core as
 *   "returns errno on failure": ibv_dealloc_pd, ibv_dereg_mr,
 *   ibv_destroy_*, ibv_query_device, ibv_query_port, ibv_fork_init,
 *   ibv_close_device, ibv_post_*, ibv_req_notify_cq, ibv_query_device_ex,
 *   ibv_advise_mr, ibv_wr_complete). ibv_poll_cq returns -err.
 *   A failing destroy call does NOT free its object (as the real one).
 * - Fake objects are allocated with __real_malloc(), so they never show in
 *   mock_alloc_live(); the matching destroy call frees them.
 * - Functions taking a fake object (destroy calls, ibv_qp_to_qp_ex, every
 *   rdma_* call taking an id, a channel or an event) fail the test when
 *   given anything else (NULL, a destroyed object, an object of another
 *   kind): double destroys are caught. Destroying a CQ that a live fake QP
 *   still completes on fails the test too (the kernel refuses it with
 *   EBUSY): a CQ shared by connections must outlive their QPs.
 * - There is one queue of completions, of completion-channel events and
 *   of CM events each, shared by all CQs / channels.
 * - The mocks are not thread-safe except the allocator wrappers.
 * - In test code the compiler may fold or elide allocations (gcc turns
 *   realloc(NULL, n) into malloc(n) and drops free(NULL) even at -O0;
 *   clang -O2 removes unused malloc/free pairs); this does not affect the
 *   library, whose allocations escape.
 *
 * PITFALL (rdma-core >= 33 <infiniband/verbs.h>): ibv_reg_mr() is a macro
 * that calls the ibv_reg_mr symbol only when the access flags are a
 * compile-time constant; with a run-time access value (as in librpma) it
 * calls ibv_reg_mr_iova2(). Arm/count "ibv_reg_mr_iova2" in that case (or
 * arm both names). mock_last_reg_mr_access and
 * mock_reg_mr_eopnotsupp_without_odp() apply to both entry points.
 * Likewise ibv_query_device_ex() falls back to ibv_query_device() when the
 * op fails with EOPNOTSUPP or ENOSYS.
 */

#ifndef MOCKS_H
#define MOCKS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/*
 * mock_reset -- reset every injected failure, queue, counter, captured
 * argument and option; call it in each test's setup. Fake objects that are
 * still alive stay valid (they are not freed).
 */
void mock_reset(void);

/*
 * mock_test_setup / mock_test_teardown -- the cmocka setup and teardown most
 * unit tests share: start from a clean mock state, end with no allocation
 * and no fake provider object left behind.
 */
int mock_test_setup(void **state);
int mock_test_teardown(void **state);

/*
 * mock_fail -- make the next call of the named function fail with err
 * (same as mock_fail_nth(func, 1, err))
 */
void mock_fail(const char *func, int err);

/*
 * mock_fail_nth -- make the nth call (1 = the next one) from now of the
 * named function fail; err is the errno it sets (for functions returning an
 * errno, the value they return). Several failures may be armed at once,
 * also for the same function. Functions returning void cannot be armed.
 */
void mock_fail_nth(const char *func, int nth, int err);

/*
 * mock_calls -- how many times the named function was called since the
 * last reset (failed calls included)
 */
int mock_calls(const char *func);

/*
 * mock_alloc_fail_nth -- make the nth call (1 = the next one) from now of
 * malloc/calloc/realloc (counted together) return NULL with errno ENOMEM.
 * Several may be armed at once.
 */
void mock_alloc_fail_nth(int nth);

/*
 * mock_alloc_live -- number of allocations made through malloc/calloc/
 * realloc since the last reset which are not freed yet (leak check).
 * Memory allocated before the reset or not through the wrappers (e.g.
 * inside libc by strdup) is ignored, also when freed.
 */
long mock_alloc_live(void);

/*
 * mock_objects_live -- number of fake objects (pd, mr, cq, channels, srq,
 * qp, cm ids, cm events, addrinfo, device lists) created since the last
 * reset which are not destroyed yet (leak check of provider objects)
 */
int mock_objects_live(void);

/*
 * mock_ibv_context -- the device context every mock returns: a struct
 * verbs_context (abi_compat = __VERBS_ABI_IS_EXTENDED,
 * sz = sizeof(struct verbs_context)) whose ops (post_send, post_recv,
 * post_srq_recv, poll_cq, req_notify_cq) and verbs ops (query_device_ex,
 * advise_mr, query_port) point at mocks. A test may change its fields;
 * mock_reset() rebuilds it.
 */
struct ibv_context *mock_ibv_context(void);

/*
 * mock_set_device_attr_ex -- device attributes reported by
 * ibv_query_device_ex (and orig_attr by ibv_query_device); NULL restores
 * the default: phys_port_cnt 1, no ODP, device_cap_flags_ex 0
 */
void mock_set_device_attr_ex(const struct ibv_device_attr_ex *attr);

/*
 * mock_set_port_attr -- port attributes reported by ibv_query_port; NULL
 * restores the default (IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET,
 * IBV_MTU_4096)
 */
void mock_set_port_attr(const struct ibv_port_attr *attr);

/*
 * mock_cq_push_wc -- queue a completion; ibv_poll_cq(cq, n, wc) returns up
 * to n queued ones in order (from any CQ), 0 when the queue is empty
 */
void mock_cq_push_wc(const struct ibv_wc *wc);

/*
 * mock_cq_poll_ret_once -- make the next ibv_poll_cq return ret (e.g. -1
 * for a provider error, or n > asked); when ret > 0 at most
 * min(ret, asked) queued completions are dequeued into the array
 */
void mock_cq_poll_ret_once(int ret);

/*
 * mock_comp_event_push -- queue a completion-channel event:
 * ibv_get_cq_event returns them in order (*cq = cq,
 * *cq_context = cq->cq_context); when empty it fails with errno EAGAIN
 */
void mock_comp_event_push(struct ibv_cq *cq);

/*
 * mock_cm_push_event -- queue a CM event: rdma_get_cm_event returns them in
 * order, whatever channel it is called on; event->id is id, except for
 * RDMA_CM_EVENT_CONNECT_REQUEST where event->listen_id is id and event->id
 * is a new fake id (verbs = mock_ibv_context(), channel = id's channel),
 * created now (see mock_cm_last_req_id()) and to be freed with
 * rdma_destroy_id. pdata/len are copied into the event
 * (param.conn.private_data is NULL when len == 0). When the queue is empty
 * rdma_get_cm_event fails with errno EAGAIN.
 */
void mock_cm_push_event(enum rdma_cm_event_type type, struct rdma_cm_id *id, const void *pdata,
			uint8_t len);

/*
 * mock_cm_last_req_id -- the id created by the last mock_cm_push_event of a
 * CONNECT_REQUEST (NULL after reset), to push its following events
 */
struct rdma_cm_id *mock_cm_last_req_id(void);

/*
 * mock_cm_bind_no_device -- when on, rdma_bind_addr() and rdma_resolve_addr()
 * leave the id without a device (id->verbs NULL), as binding to an address
 * no RDMA device serves does. mock_reset() turns it off.
 */
void mock_cm_bind_no_device(bool on);

/*
 * mock_cm_last_event -- the event returned by the last successful
 * rdma_get_cm_event (NULL after reset), e.g. to acknowledge an event whose
 * rdma_ack_cm_event was made to fail (a failing ack keeps the event alive)
 */
struct rdma_cm_event *mock_cm_last_event(void);

/*
 * mock_reg_mr_eopnotsupp_without_odp -- when true, ibv_reg_mr and
 * ibv_reg_mr_iova2 without IBV_ACCESS_ON_DEMAND fail with EOPNOTSUPP
 */
void mock_reg_mr_eopnotsupp_without_odp(bool on);

/*
 * mock_qpx_no_atomic_write -- when true, the qp_ex given by
 * ibv_qp_to_qp_ex has wr_atomic_write == NULL
 */
void mock_qpx_no_atomic_write(bool on);

/*
 * Captured arguments (zeroed by mock_reset):
 * - the last work requests posted by ibv_post_send / ibv_post_recv /
 *   ibv_post_srq_recv: deep copies of the first WR and of its first SGE;
 *   .sg_list points at the captured SGE (NULL if none), .next is NULL;
 *   mock_posted_send_wrs / mock_posted_recv_wrs count every WR of every
 *   successful list
 */
extern struct ibv_send_wr mock_last_send_wr;
extern struct ibv_sge mock_last_send_sge;
extern struct ibv_recv_wr mock_last_recv_wr;
extern struct ibv_sge mock_last_recv_sge;
extern int mock_posted_send_wrs;
extern int mock_posted_recv_wrs;

/*
 * - the conn_param given to rdma_connect / rdma_accept; its private data is
 *   copied to mock_last_pdata (and .private_data points there); rdma_reject
 *   copies its private data there too; mock_last_pdata_len is its length
 */
extern struct rdma_conn_param mock_last_conn_param;
extern unsigned char mock_last_pdata[256];
extern uint8_t mock_last_pdata_len;

/* - access flags of the last ibv_reg_mr / ibv_reg_mr_iova2 call */
extern int mock_last_reg_mr_access;

/*
 * - the MR returned by the last successful ibv_reg_mr / ibv_reg_mr_iova2
 *   call (NULL after reset), e.g. to deregister a region whose
 *   ibv_dereg_mr was made to fail (a failing dereg keeps the MR alive)
 */
extern struct ibv_mr *mock_last_reg_mr;

/* - cqe of the last ibv_create_cq, attributes of the last ibv_create_srq,
 *   sum of the nevents given to ibv_ack_cq_events, the CQ of the last
 *   ibv_ack_cq_events and of the last successful ibv_req_notify_cq */
extern int mock_last_cq_cqe;
extern struct ibv_srq_init_attr mock_last_srq_init_attr;
extern unsigned int mock_cq_events_acked;
extern struct ibv_cq *mock_last_acked_cq;
extern struct ibv_cq *mock_last_notified_cq;

/* - copy of the attributes given to the last rdma_create_qp_ex (or
 *   rdma_create_qp, converted) call */
extern struct ibv_qp_init_attr_ex mock_last_qp_init_attr;

/* - arguments of the last ibv_advise_mr call */
extern enum ibv_advise_mr_advice mock_last_advise;
extern uint32_t mock_last_advise_flags;
extern struct ibv_sge mock_last_advise_sge;

/* - the last ibv_wr_atomic_write: rkey, remote_addr and the 8 bytes */
struct mock_atomic_write {
	uint32_t rkey;
	uint64_t remote_addr;
	uint8_t data[8];
	uint64_t wr_id;
	unsigned int wr_flags;
};
extern struct mock_atomic_write mock_last_atomic_write;

/* - the last qp_ex operation (wr_rdma_write, wr_rdma_read, wr_send or
 *   wr_atomic_write): op is its name ("ibv_wr_rdma_write", ...) */
struct mock_qpx_wr {
	const char *op;
	uint64_t wr_id;
	unsigned int wr_flags;
	uint32_t rkey;
	uint64_t remote_addr;
};
extern struct mock_qpx_wr mock_last_qpx_wr;

/* - the last ibv_wr_set_sge (lkey, addr, length) and
 *   ibv_wr_set_inline_data (addr, length) */
extern struct ibv_sge mock_last_qpx_sge;
extern void *mock_last_qpx_inline_addr;
extern size_t mock_last_qpx_inline_len;

/* the qp_num of every fake QP */
#define MOCK_QP_NUM 0x1234
/* the lkey/rkey of every fake MR */
#define MOCK_LKEY 0x11
#define MOCK_RKEY 0x22

#endif /* MOCKS_H */
