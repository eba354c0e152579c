/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a buffer of ordinary (volatile) memory holding a
 * string for clients to read: its descriptor goes to each client in the
 * private data of the acceptance. 03-read-to-persistent's clients read from
 * the same server, which is therefore written once, in
 * common/common-read-server.c: it registers the buffer with
 * RPMA_MR_USAGE_READ_SRC (common_region_expose()) and accepts every client
 * with the region's descriptor.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include "common-read-server.h"

/*
 * main -- run the read server.
 */
int
main(int argc, char *argv[])
{
	return common_read_server_main(argc, argv);
}
