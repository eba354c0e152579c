/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * private_data.c -- copying, validating and handing over connection private
 * data. The bytes come from a peer: they are copied exactly as received,
 * never interpreted.
 */

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "private_data.h"

/* see private_data.h */
int
rpma__private_data_store(const struct rdma_cm_event *event, struct rpma_conn_private_data *pdata)
{
	if (event == NULL) {
		RPMA_LOG_ERROR("event is NULL");
		return RPMA_E_INVAL;
	}

	const void *src = event->param.conn.private_data;
	uint8_t len = event->param.conn.private_data_len;

	if (src == NULL && len != 0) {
		RPMA_LOG_ERROR("event carries no private data but a length of %u", len);
		return RPMA_E_INVAL;
	}
	if (src == NULL || len == 0) {
		pdata->ptr = NULL;
		pdata->len = 0;
		return 0;
	}

	void *copy = malloc(len);

	if (copy == NULL) {
		RPMA_LOG_ERROR("cannot allocate %u bytes of private data", len);
		return RPMA_E_NOMEM;
	}
	memcpy(copy, src, len);
	pdata->ptr = copy;
	pdata->len = len;
	return 0;
}

/* see private_data.h */
int
rpma__private_data_validate(const struct rpma_conn_private_data *pdata)
{
	if (pdata == NULL)
		return 0;
	/* as in librpma 1.3: no private data is pdata NULL, never an empty one */
	if (pdata->ptr == NULL || pdata->len == 0) {
		RPMA_LOG_ERROR("private data %p of length %u: give both or pass pdata NULL",
			       pdata->ptr, pdata->len);
		return RPMA_E_INVAL;
	}
	return 0;
}

/* see private_data.h */
int
rpma__private_data_fits(const struct rpma_conn_private_data *pdata, uint8_t max_len)
{
	if (pdata != NULL && pdata->len > max_len) {
		RPMA_LOG_ERROR("private data of %u bytes exceeds the transport's limit of %u",
			       pdata->len, max_len);
		return RPMA_E_INVAL;
	}
	return 0;
}

/* see private_data.h */
void
rpma__private_data_delete(struct rpma_conn_private_data *pdata)
{
	free(pdata->ptr);
	pdata->ptr = NULL;
	pdata->len = 0;
}

/* see private_data.h */
void
rpma__private_data_move(struct rpma_conn_private_data *dst, struct rpma_conn_private_data *src)
{
	*dst = *src;
	src->ptr = NULL;
	src->len = 0;
}
