/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a message ping-pong with a server that
 * receives through a shared receive queue: send a counter, receive it back
 * incremented by the server, send that again, for ROUNDS rounds; the
 * counter ends equal to the number of rounds. The SRQ is the server's
 * business only: the client is the one of 08-messages-ping-pong
 * (common_ping_main() in common/common-messages.c).
 *
 * usage: client ADDR PORT [ROUNDS]
 */

#include "common-messages.h"

/*
 * main -- play the plain ping-pong.
 */
int
main(int argc, char *argv[])
{
	return common_ping_main(argc, argv, NULL);
}
