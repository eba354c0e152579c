/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-read-server.h -- the server both 02-read-to-volatile and
 * 03-read-to-persistent read from.
 */

#ifndef EXAMPLES_COMMON_READ_SERVER_H
#define EXAMPLES_COMMON_READ_SERVER_H 1

int common_read_server_main(int argc, char *argv[]);

#endif /* EXAMPLES_COMMON_READ_SERVER_H */
