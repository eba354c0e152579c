/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * heartbeat.h -- liveness of a connection's peer. Any message received
 * proves the peer alive. When it has been silent for an interval, a
 * HEARTBEAT is due (one per interval of silence, answered by
 * HEARTBEAT_REPLY); when it has been silent for interval x misses (that
 * many heartbeats unanswered), the peer is declared lost. Time is given
 * by the caller in milliseconds of a monotonic clock, so that the logic
 * is testable without waiting.
 *
 * ASSUMPTIONS
 * A struct rpmaf__proto_heartbeat belongs to the connection's owner thread.
 */

#ifndef RPMAF_PROTO_HEARTBEAT_H
#define RPMAF_PROTO_HEARTBEAT_H

#include <stdint.h>

/* what rpmaf__proto_heartbeat_tick() asks the caller to do */
enum rpmaf__proto_hb_action {
	RPMAF__PROTO_HB_NONE, /* nothing yet */
	RPMAF__PROTO_HB_SEND, /* send a HEARTBEAT now */
	RPMAF__PROTO_HB_LOST, /* the peer is lost: close the connection */
};

struct rpmaf__proto_heartbeat {
	uint64_t interval_ms; /* 0: no heartbeats, never lost */
	uint32_t misses;
	uint64_t last_rx_ms; /* when the peer was last heard from */
	uint64_t last_hb_ms; /* when the last HEARTBEAT was due (or the start) */
};

/* rpmaf__proto_heartbeat_init -- start watching a peer at now_ms */
void rpmaf__proto_heartbeat_init(struct rpmaf__proto_heartbeat *h, uint32_t interval_ms,
				 uint32_t misses, uint64_t now_ms);

/* rpmaf__proto_heartbeat_received -- a message (any) came from the peer at now_ms */
void rpmaf__proto_heartbeat_received(struct rpmaf__proto_heartbeat *h, uint64_t now_ms);

/*
 * rpmaf__proto_heartbeat_tick -- what to do at now_ms; SEND also records
 * that the heartbeat was sent.
 */
enum rpmaf__proto_hb_action rpmaf__proto_heartbeat_tick(struct rpmaf__proto_heartbeat *h,
							uint64_t now_ms);

/*
 * rpmaf__proto_heartbeat_next -- the time at which the next tick may ask
 * for something (UINT64_MAX without heartbeats): the timer to arm.
 */
uint64_t rpmaf__proto_heartbeat_next(const struct rpmaf__proto_heartbeat *h);

#endif /* RPMAF_PROTO_HEARTBEAT_H */
