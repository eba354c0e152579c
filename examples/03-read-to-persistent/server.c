/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a buffer holding a string for clients to read into
 * their persistent memory: its descriptor goes to each client in the
 * private data of the acceptance. Where the bytes land is the client's
 * business only, so this is the server of 02-read-to-volatile
 * (common/common-read-server.c).
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
