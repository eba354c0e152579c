/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * regtab_no_grace.c -- a planted bug for the torture test, linked in with
 * -Wl,--wrap=urcu_qsbr_call_rcu: call_rcu runs its callback at once, so an
 * entry is freed while readers may still hold it. The torture must fail.
 */

#include <urcu/urcu-qsbr.h>

void __wrap_urcu_qsbr_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/* __wrap_urcu_qsbr_call_rcu -- free now, without waiting for a grace period */
void
__wrap_urcu_qsbr_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	func(head);
}
