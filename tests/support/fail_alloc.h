/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fail_alloc.h -- allocation failures on demand for unit tests (config/,
 * rpmemd): the programs are linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, so that every allocation
 * of the code under test goes through fail_alloc.c.
 *
 * ASSUMPTIONS
 * One thread: the count is a plain variable.
 */

#ifndef TEST_SUPPORT_FAIL_ALLOC_H
#define TEST_SUPPORT_FAIL_ALLOC_H

/* fail_alloc_after -- malloc, calloc and realloc fail from the n-th call on (-1: never) */
void fail_alloc_after(long n);

#endif /* TEST_SUPPORT_FAIL_ALLOC_H */
