/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * count_alloc.h -- a count of the allocations of the code under test, for
 * the programs that show it makes none (proto/'s unit tests and its fuzzing
 * harness): the programs are linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, so that every allocation
 * goes through count_alloc.c.
 *
 * ASSUMPTIONS
 * Any thread: each thread counts its own (libFuzzer's other threads do not
 * count for the one under test).
 */

#ifndef TEST_SUPPORT_COUNT_ALLOC_H
#define TEST_SUPPORT_COUNT_ALLOC_H

/* count_alloc -- the malloc, calloc and realloc calls the calling thread has made */
long count_alloc(void);

#endif /* TEST_SUPPORT_COUNT_ALLOC_H */
