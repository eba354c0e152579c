/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * heartbeat.c -- when to send a heartbeat, and when a silent peer is lost.
 */

#include "heartbeat.h"

/* see heartbeat.h */
void
rpmaf__proto_heartbeat_init(struct rpmaf__proto_heartbeat *h, uint32_t interval_ms, uint32_t misses,
			    uint64_t now_ms)
{
	*h = (struct rpmaf__proto_heartbeat){
	    .interval_ms = interval_ms,
	    .misses = misses ? misses : 1,
	    .last_rx_ms = now_ms,
	    .last_hb_ms = now_ms,
	};
}

/* see heartbeat.h */
void
rpmaf__proto_heartbeat_received(struct rpmaf__proto_heartbeat *h, uint64_t now_ms)
{
	if (now_ms > h->last_rx_ms)
		h->last_rx_ms = now_ms;
}

/* hb_since -- milliseconds from then to now, 0 if the clock is behind */
static uint64_t
hb_since(uint64_t then, uint64_t now)
{
	return now > then ? now - then : 0;
}

/* see heartbeat.h */
enum rpmaf__proto_hb_action
rpmaf__proto_heartbeat_tick(struct rpmaf__proto_heartbeat *h, uint64_t now_ms)
{
	uint64_t silent = hb_since(h->last_rx_ms, now_ms);

	if (h->interval_ms == 0)
		return RPMAF__PROTO_HB_NONE;
	if (silent >= h->interval_ms * h->misses)
		return RPMAF__PROTO_HB_LOST;
	if (silent >= h->interval_ms && hb_since(h->last_hb_ms, now_ms) >= h->interval_ms) {
		h->last_hb_ms = now_ms;
		return RPMAF__PROTO_HB_SEND;
	}
	return RPMAF__PROTO_HB_NONE;
}

/* see heartbeat.h */
uint64_t
rpmaf__proto_heartbeat_next(const struct rpmaf__proto_heartbeat *h)
{
	uint64_t lost, send;

	if (h->interval_ms == 0)
		return UINT64_MAX;
	lost = h->last_rx_ms + h->interval_ms * h->misses;
	send = h->last_rx_ms + h->interval_ms;
	if (h->last_hb_ms + h->interval_ms > send)
		send = h->last_hb_ms + h->interval_ms;
	return send < lost ? send : lost;
}
