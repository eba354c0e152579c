# SPDX-License-Identifier: BSD-3-Clause
#
# stats/stats.mk -- counters, latency histograms and their JSON lines: the
# module's tests, included by the top-level Makefile (GNU make); its sources
# go into librpmaf through rpmaf/rpmaf.mk:
#   make check-stats        the cmocka tests of tests/unit/stats/, built with gcc (gcov),
#                           with clang AddressSanitizer+UBSan and with clang
#                           ThreadSanitizer, run all three
#   make coverage-stats     line coverage of stats/*.c from the gcc run
#
# Each tests/unit/stats/test_*.c is one program, linked with stats/*.c.

STATS_SRCS := $(sort $(wildcard stats/*.c))
STATS_HDRS := $(wildcard stats/*.h)
STATS_TEST_DIR := tests/unit/stats
STATS_TEST_NAMES := $(sort $(notdir $(basename $(wildcard $(STATS_TEST_DIR)/test_*.c))))
STATS_TEST_CFLAGS := $(CFLAGS_BASE) -O0 -Istats
STATS_TEST_LIBS := -lcmocka -pthread

# the gcc build, instrumented for coverage
STATS_COV_OBJ := $(BUILD)/stats/cov-obj
STATS_COV_OBJS := $(patsubst stats/%.c,$(STATS_COV_OBJ)/%.o,$(STATS_SRCS))
STATS_UNIT_BINS := $(addprefix $(BUILD)/stats/unit/,$(STATS_TEST_NAMES))

$(STATS_COV_OBJ)/%.o: stats/%.c $(STATS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STATS_TEST_CFLAGS) --coverage -c $< -o $@

$(BUILD)/stats/unit/%: $(STATS_TEST_DIR)/%.c $(STATS_COV_OBJS) $(STATS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STATS_TEST_CFLAGS) -o $@ $< $(STATS_COV_OBJS) $(STATS_TEST_LIBS) -lgcov

# the clang builds: AddressSanitizer+UBSan, and ThreadSanitizer
STATS_ASAN_BINS := $(addprefix $(BUILD)/stats/unit-asan/,$(STATS_TEST_NAMES))
STATS_TSAN_BINS := $(addprefix $(BUILD)/stats/unit-tsan/,$(STATS_TEST_NAMES))

$(BUILD)/stats/unit-asan/%: $(STATS_TEST_DIR)/%.c $(STATS_SRCS) $(STATS_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(STATS_TEST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(STATS_SRCS) $(STATS_TEST_LIBS)

$(BUILD)/stats/unit-tsan/%: $(STATS_TEST_DIR)/%.c $(STATS_SRCS) $(STATS_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(STATS_TEST_CFLAGS) $(TSAN_FLAGS) -o $@ $< $(STATS_SRCS) $(STATS_TEST_LIBS)

.PHONY: check-stats coverage-stats

check-stats: $(STATS_UNIT_BINS) $(STATS_ASAN_BINS) $(STATS_TSAN_BINS)
	@tools/run-tests.sh stats $(STATS_UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests.sh stats-asan $(STATS_ASAN_BINS)
	@TSAN_OPTIONS=halt_on_error=1 tools/run-tests.sh stats-tsan $(STATS_TSAN_BINS)

# line coverage of stats/*.c by the gcc run (a figure; no floor enforced)
coverage-stats: $(STATS_UNIT_BINS)
	@rm -f $(STATS_COV_OBJ)/*.gcda
	@tools/run-tests.sh stats $(STATS_UNIT_BINS) >/dev/null
	@cd $(STATS_COV_OBJ) && gcov -n $(notdir $(STATS_SRCS:.c=.o)) 2>/dev/null | \
		grep -A1 "^File 'stats/" | grep -v '^--'

CHECK_TARGETS += check-stats
CLEAN_DIRS += $(BUILD)/stats
