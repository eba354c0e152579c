/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_utils.c -- the calls that ask the device directly, checked against
 * what the device itself answers through libibverbs: finding the context for
 * 127.0.0.1 (local and remote), On-Demand Paging capability, rpma_mr_advise()
 * and its mapping of the device's error, memory region registration and
 * descriptors, a peer and an endpoint on the device.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

/* 127.0.0.1 gives a usable context, as a local and as a remote address */
static void
test_get_ibv_context(void **state)
{
	(void)state;
	struct ibv_context *local = NULL, *remote = NULL;
	struct ibv_device_attr attr;

	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &local),
			 0);
	assert_non_null(local);
	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &remote),
			 0);
	assert_non_null(remote);
	/* both name one working device */
	assert_string_equal(ibv_get_device_name(local->device),
			    ibv_get_device_name(remote->device));
	assert_int_equal(ibv_query_device(local, &attr), 0);
	assert_true(attr.max_qp > 0);
	assert_int_equal(ibv_query_device(remote, &attr), 0);

	/* the context stays valid: asked again, the same device */
	struct ibv_context *again = NULL;

	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &again),
			 0);
	assert_string_equal(ibv_get_device_name(again->device), ibv_get_device_name(local->device));
}

/* what cannot be resolved is RPMA_E_PROVIDER, bad arguments RPMA_E_INVAL */
static void
test_get_ibv_context_errors(void **state)
{
	(void)state;
	struct ibv_context *ctx = NULL;

	/* an address that belongs to no local interface */
	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_PROVIDER);
	assert_null(ctx);
	assert_int_equal(
	    rpma_utils_get_ibv_context("no.such.host.invalid", RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx),
	    RPMA_E_PROVIDER);
	assert_null(ctx);
	assert_int_equal(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_INVAL);
	assert_int_equal(
	    rpma_utils_get_ibv_context(T_ADDR, (enum rpma_util_ibv_context_type)7, &ctx),
	    RPMA_E_INVAL);
	assert_null(ctx);
}

/* the ODP answer is the device's: RC send, recv, write, read and atomics */
static void
test_odp_capable(void **state)
{
	(void)state;
	struct ibv_context *ctx;
	struct ibv_device_attr_ex attr;
	int capable = -1;

	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), 0);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(ctx, &capable), 0);
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(ibv_query_device_ex(ctx, NULL, &attr), 0);

	uint32_t rc_needed = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			     IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC;
	int expected = (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
		       (attr.odp_caps.per_transport_caps.rc_odp_caps & rc_needed) == rc_needed;

	print_message("the device is %sODP capable\n", expected ? "" : "not ");
	assert_int_equal(capable, expected);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(NULL, &capable), RPMA_E_INVAL);
}

/*
 * rpma_mr_advise() gives the device's answer for the same advice on the same
 * memory, mapped as documented: 0, EOPNOTSUPP -> RPMA_E_NOSUPP, EINVAL or
 * EFAULT -> RPMA_E_INVAL, anything else -> RPMA_E_PROVIDER (errno set)
 */
static void
test_mr_advise(void **state)
{
	(void)state;
	struct ibv_context *ctx;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	size_t size = 8192;
	uint8_t *buf = aligned_alloc(4096, size);

	assert_non_null(buf);
	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), 0);
	assert_int_equal(rpma_peer_new(ctx, &peer), 0);
	assert_int_equal(rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_READ_SRC, &mr), 0);

	/* the device's own answer */
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	assert_non_null(pd);
	struct ibv_mr *imr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_REMOTE_READ);

	assert_non_null(imr);
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 4096, .lkey = imr->lkey};
	int dev = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH,
				&sge, 1);

	assert_int_equal(ibv_dereg_mr(imr), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);

	errno = 0;
	int ret = rpma_mr_advise(mr, 0, 4096, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				 IBV_ADVISE_MR_FLAG_FLUSH);

	print_message("ibv_advise_mr() -> %d, rpma_mr_advise() -> %s\n", dev, rpma_err_2str(ret));
	if (dev == 0) {
		assert_int_equal(ret, 0);
	} else {
		if (dev == EOPNOTSUPP || dev == ENOTSUP)
			assert_int_equal(ret, RPMA_E_NOSUPP);
		else if (dev == EINVAL || dev == EFAULT)
			assert_int_equal(ret, RPMA_E_INVAL);
		else
			assert_int_equal(ret, RPMA_E_PROVIDER);
		assert_int_equal(errno, dev);
	}

	/* refused before the device is asked */
	assert_int_equal(rpma_mr_advise(mr, 4096, 8192, IBV_ADVISE_MR_ADVICE_PREFETCH, 0),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 0, IBV_ADVISE_MR_ADVICE_PREFETCH, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 64, 99, 0), RPMA_E_INVAL);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	free(buf);
}

/*
 * a registered region reports its address and size and describes itself in
 * 21 bytes that rebuild a remote region of the same size and flush usages;
 * the device refuses to register memory that is not there
 */
static void
test_mr_reg_and_descriptor(void **state)
{
	(void)state;
	struct rpma_peer *peer = t_peer_new();
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rmr;
	uint8_t desc[T_MR_DESC];
	size_t size = 0;
	void *ptr = NULL;
	int ft = 0;
	uint8_t *buf = aligned_alloc(4096, 8192);

	assert_non_null(peer);
	assert_non_null(buf);
	assert_int_equal(rpma_mr_reg(peer, buf + 100, 5000,
				     RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
				     &mr),
			 0);
	assert_int_equal(rpma_mr_get_ptr(mr, &ptr), 0);
	assert_ptr_equal(ptr, buf + 100);
	assert_int_equal(rpma_mr_get_size(mr, &size), 0);
	assert_int_equal(size, 5000);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, &size), 0);
	assert_int_equal(size, T_MR_DESC);
	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), 0);
	assert_int_equal(rpma_mr_remote_get_size(rmr, &size), 0);
	assert_int_equal(size, 5000);
	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, &ft), 0);
	assert_int_equal(ft, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_null(mr);

	/* memory that is not mapped */
	assert_int_equal(
	    rpma_mr_reg(peer, (void *)(uintptr_t)0x1000, 4096, RPMA_MR_USAGE_READ_SRC, &mr),
	    RPMA_E_PROVIDER);
	assert_null(mr);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
	free(buf);
}

/* an endpoint binds and reports a port taken twice as RPMA_E_PROVIDER */
static void
test_ep_listen(void **state)
{
	(void)state;
	struct rpma_peer *peer = t_peer_new();
	struct rpma_ep *ep = NULL, *ep2 = NULL;
	char port[16];
	int fd = -1;

	assert_non_null(peer);
	for (int i = 0; i < 8 && !ep; i++)
		(void)rpma_ep_listen(peer, T_ADDR, t_next_port(port, sizeof(port)), &ep);
	assert_non_null(ep);
	assert_int_equal(rpma_ep_get_fd(ep, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(rpma_ep_listen(peer, T_ADDR, port, &ep2), RPMA_E_PROVIDER);
	assert_null(ep2);
	assert_int_equal(rpma_ep_listen(peer, "192.0.2.1", port, &ep2), RPMA_E_PROVIDER);
	assert_null(ep2);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_null(ep);
	/* the port is free again */
	assert_int_equal(rpma_ep_listen(peer, T_ADDR, port, &ep), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get_ibv_context),
	    cmocka_unit_test(test_get_ibv_context_errors),
	    cmocka_unit_test(test_odp_capable),
	    cmocka_unit_test(test_mr_advise),
	    cmocka_unit_test(test_mr_reg_and_descriptor),
	    cmocka_unit_test(test_ep_listen),
	};

	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
