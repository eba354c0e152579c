// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * reader.c -- the registration of the region table's readers with
 * urcu-qsbr, and what a resident reader announces (see reader.h)
 */

#include "reader.h"

#ifdef RPMAF_TSAN
char rpmaf__regtab_gp_sync;
#endif

__thread struct rpmaf__regtab_reader rpmaf__regtab_me __attribute__((tls_model("initial-exec")));

/* see reader.h */
void
rpmaf__regtab_thread_register(void)
{
	urcu_qsbr_register_thread(); /* online: offline until its first section */
	urcu_qsbr_thread_offline();
	rpmaf__regtab_me = (struct rpmaf__regtab_reader){0, false};
}

/* see reader.h */
void
rpmaf__regtab_thread_resident(void)
{
	urcu_qsbr_register_thread();
	rpmaf__regtab_me = (struct rpmaf__regtab_reader){0, true};
}

/* see reader.h */
void
rpmaf__regtab_thread_unregister(void)
{
	urcu_qsbr_unregister_thread(); /* offline first, whichever way it was */
	rpmaf__regtab_me = (struct rpmaf__regtab_reader){0, false};
}

/* see reader.h */
void
rpmaf__regtab_quiescent(void)
{
	urcu_qsbr_quiescent_state();
}

/* see reader.h */
void
rpmaf__regtab_thread_sleep(void)
{
	urcu_qsbr_thread_offline();
}

/* see reader.h */
void
rpmaf__regtab_thread_wake(void)
{
	urcu_qsbr_thread_online();
}
