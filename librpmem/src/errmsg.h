/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * errmsg.h -- librpmem's errors: errno and the message rpmem_errormsg()
 * returns, both per thread.
 */

#ifndef LIBRPMEM_ERRMSG_H
#define LIBRPMEM_ERRMSG_H

/* how long a message may be, its NUL included */
#define RPMEM__ERRMSG_MAX 512

/*
 * rpmem__fail -- set errno to errnum (positive) and this thread's message
 * to the formatted text; returns -1 (what the int functions return)
 */
int rpmem__fail(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* rpmem__errno_of -- the errno a framework code (RPMAF_E_*) stands for */
int rpmem__errno_of(int rpmaf_code);

#endif /* LIBRPMEM_ERRMSG_H */
