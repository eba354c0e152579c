/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_assert.h -- the property check every libFuzzer harness shares: a
 * property that does not hold aborts, so that libFuzzer keeps the input.
 */
#ifndef FUZZ_ASSERT_H
#define FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

/* fuzz_assert -- a property that must hold; abort so that libFuzzer keeps the input */
#define fuzz_assert(cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,        \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
