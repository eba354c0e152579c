# SPDX-License-Identifier: BSD-3-Clause
#
# stats/stats.mk -- counters, latency histograms and their JSON lines: a module of
# librpmaf (mk/module.mk), included by the top-level Makefile (GNU make):
#   make check-stats        the cmocka tests of tests/unit/stats/, built with gcc (gcov),
#                           with clang AddressSanitizer+UBSan and with clang
#                           ThreadSanitizer, run all three
#   make coverage-stats     line coverage of stats/*.c from the gcc run
#
# Each tests/unit/stats/test_*.c is one program, linked with stats/*.c.

MODULE := stats
MODULE_LIB := rpmaf
MODULE_CFLAGS := -Istats
MODULE_LIBS := -pthread
MODULE_SANITIZERS := asan tsan
MODULE_CHECK := check-stats
include mk/module.mk
