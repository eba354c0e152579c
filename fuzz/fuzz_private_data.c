/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_private_data.c -- the handling of the private data of an incoming
 * connection request, as the connection manager delivers it in an event.
 * The first input byte is the length field the event claims, the second
 * tells whether the data pointer is set, the rest is the data. Properties:
 * accepted data is an exact copy, of the claimed length; rejected data
 * returns RPMA_E_INVAL and allocates nothing; validation of outgoing data
 * accepts exactly what fits the transport's limits.
 */

#include <string.h>

#include "fuzz_common.h"
#include "private_data.h"

/* LLVMFuzzerTestOneInput -- one event's private data */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_conn_private_data pdata = {(void *)0x1, 0x5a};
	struct rdma_cm_event event;
	uint8_t buf[256];

	if (size < 2)
		return 0;
	rpma_log_set_function(fuzz_quiet_log);

	uint8_t claimed = data[0];
	bool has_ptr = data[1] & 1;
	size_t avail = size - 2;

	/* the connection manager's buffer always holds the claimed length */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, data + 2, avail < sizeof(buf) ? avail : sizeof(buf));

	memset(&event, 0, sizeof(event));
	event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event.param.conn.private_data = has_ptr ? buf : NULL;
	event.param.conn.private_data_len = claimed;

	long before = Fuzz_live_allocations;
	int ret = rpma__private_data_store(&event, &pdata);

	if (ret) {
		fuzz_assert(ret == RPMA_E_INVAL);
		fuzz_assert(!has_ptr && claimed != 0);
		fuzz_assert(pdata.ptr == (void *)0x1 && pdata.len == 0x5a);
		fuzz_assert(Fuzz_live_allocations == before);
	} else if (!has_ptr || claimed == 0) {
		fuzz_assert(pdata.ptr == NULL && pdata.len == 0);
		fuzz_assert(Fuzz_live_allocations == before);
	} else {
		fuzz_assert(pdata.len == claimed);
		fuzz_assert(memcmp(pdata.ptr, buf, claimed) == 0);
		fuzz_assert(Fuzz_live_allocations == before + 1);

		/* what a peer sent may be sent on only where the transport allows it */
		fuzz_assert(rpma__private_data_validate(&pdata) == 0);
		int v = rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_CONNECT_MAX);

		fuzz_assert((v == 0) == (claimed <= RPMA_PRIVATE_DATA_CONNECT_MAX));
		v = rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_ACCEPT_MAX);
		fuzz_assert((v == 0) == (claimed <= RPMA_PRIVATE_DATA_ACCEPT_MAX));
		rpma__private_data_delete(&pdata);
		fuzz_assert(pdata.ptr == NULL && pdata.len == 0);
		fuzz_assert(Fuzz_live_allocations == before);
	}
	return 0;
}
