/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a message ping-pong: send a counter,
 * receive it back incremented by the server, send that again, for ROUNDS
 * rounds; the counter ends equal to the number of rounds.
 *
 * The clients of 09, 12 and 13 play the same game and differ only in how
 * they wait, so the ping side is written once, in
 * common/common-messages.c: it connects with the number of rounds in the
 * private data and for each round posts the receive of the pong with
 * rpma_recv() before the ping goes out with rpma_send(), then waits for both
 * completions on the connection's CQ.
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
