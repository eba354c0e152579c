# SPDX-License-Identifier: BSD-3-Clause
#
# config/config.mk -- the configuration module's tests and fuzzing, included
# by the top-level Makefile (GNU make); its sources go into librpmaf through
# rpmaf/rpmaf.mk:
#   make check-config        the cmocka tests of tests/unit/config/, built with gcc
#                            (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-config     line coverage of config/*.c from the gcc run
#   make fuzz-config         build/fuzz/fuzz_config (libFuzzer)
#   make check-fuzz-config   run it for FUZZ_CHECK_SECONDS; make fuzz-run-config SECONDS=N
#
# Each tests/unit/config/test_*.c is one program, linked with the other .c
# files of that directory and with config/*.c compiled in (not the shared
# library, so that the tests reach the internal functions too).

CONFIG_SRCS := $(sort $(wildcard config/*.c))
CONFIG_HDRS := $(wildcard config/*.h) $(wildcard proto/*.h) rpmaf/include/rpmaf.h $(wildcard rpmaf/include/rpmaf/*.h)
# the key file is checked with the control protocol's own parser (proto/auth.c)
CONFIG_DEP_SRCS := $(sort $(wildcard proto/*.c))
CONFIG_DEP_LIBS := -lsodium
CONFIG_TEST_DIR := tests/unit/config
CONFIG_TEST_NAMES := $(sort $(notdir $(basename $(wildcard $(CONFIG_TEST_DIR)/test_*.c))))
CONFIG_TEST_HELPERS := $(filter-out $(CONFIG_TEST_DIR)/test_%.c,$(wildcard $(CONFIG_TEST_DIR)/*.c)) \
	tests/support/fail_alloc.c
CONFIG_TEST_DEPS := $(CONFIG_TEST_HELPERS) $(wildcard $(CONFIG_TEST_DIR)/*.h) $(CONFIG_HDRS) \
	tests/support/fail_alloc.h
CONFIG_TEST_CFLAGS := $(CFLAGS_BASE) -O0 -Irpmaf/include -Iconfig -I$(CONFIG_TEST_DIR) -Itests/support \
	-DCONFIG_TOP_DIR='"$(abspath .)"'
# the tests make allocations fail on purpose
CONFIG_TEST_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
CONFIG_TEST_LIBS := -lcmocka -lyaml $(CONFIG_DEP_LIBS)

# the gcc build, instrumented for coverage
CONFIG_COV_OBJ := $(BUILD)/config/cov-obj
CONFIG_COV_OBJS := $(patsubst config/%.c,$(CONFIG_COV_OBJ)/%.o,$(CONFIG_SRCS))
CONFIG_DEP_OBJ := $(BUILD)/config/dep-obj
CONFIG_DEP_OBJS := $(patsubst proto/%.c,$(CONFIG_DEP_OBJ)/%.o,$(CONFIG_DEP_SRCS))
CONFIG_UNIT_BINS := $(addprefix $(BUILD)/config/unit/,$(CONFIG_TEST_NAMES))

$(CONFIG_COV_OBJ)/%.o: config/%.c $(CONFIG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CONFIG_TEST_CFLAGS) --coverage -c $< -o $@

$(CONFIG_DEP_OBJ)/%.o: proto/%.c $(CONFIG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CONFIG_TEST_CFLAGS) -c $< -o $@

$(BUILD)/config/unit/%: $(CONFIG_TEST_DIR)/%.c $(CONFIG_TEST_DEPS) $(CONFIG_COV_OBJS) \
		$(CONFIG_DEP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CONFIG_TEST_CFLAGS) -o $@ $< $(CONFIG_TEST_HELPERS) $(CONFIG_COV_OBJS) \
		$(CONFIG_DEP_OBJS) \
		$(CONFIG_TEST_LIBS) -lgcov $(CONFIG_TEST_WRAP)

# the clang build with AddressSanitizer and UndefinedBehaviorSanitizer
CONFIG_ASAN_BINS := $(addprefix $(BUILD)/config/unit-asan/,$(CONFIG_TEST_NAMES))

$(BUILD)/config/unit-asan/%: $(CONFIG_TEST_DIR)/%.c $(CONFIG_TEST_DEPS) $(CONFIG_SRCS) \
		$(CONFIG_DEP_SRCS)
	@mkdir -p $(@D)
	$(CLANG) $(CONFIG_TEST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(CONFIG_TEST_HELPERS) $(CONFIG_SRCS) \
		$(CONFIG_DEP_SRCS) \
		$(CONFIG_TEST_LIBS) $(CONFIG_TEST_WRAP)

.PHONY: check-config coverage-config

check-config: $(CONFIG_UNIT_BINS) $(CONFIG_ASAN_BINS)
	@tools/run-tests.sh config $(CONFIG_UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests.sh config-asan $(CONFIG_ASAN_BINS)

# line coverage of config/*.c by the gcc run (a figure; no floor enforced)
coverage-config: $(CONFIG_UNIT_BINS)
	@rm -f $(CONFIG_COV_OBJ)/*.gcda
	@tools/run-tests.sh config $(CONFIG_UNIT_BINS) >/dev/null
	@cd $(CONFIG_COV_OBJ) && gcov -n $(notdir $(CONFIG_SRCS:.c=.o)) 2>/dev/null | \
		awk '/^File / {f = $$2; next} /^Lines executed/ && f ~ /config\// { \
			split($$0, a, ":|% of "); c += a[2] * a[3] / 100; n += a[3]; \
			printf "%-26s %s\n", f, $$0; f = "" } \
			END {printf "config/ line coverage: %.0f/%d = %.2f%%\n", c, n, 100 * c / n}'

# the libFuzzer harness: YAML bytes and --set strings into the loader
CONFIG_FUZZ_BIN := $(BUILD)/fuzz/fuzz_config

$(CONFIG_FUZZ_BIN): fuzz/fuzz_config.c $(CONFIG_SRCS) $(CONFIG_DEP_SRCS) $(CONFIG_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_BASE) -O1 -Irpmaf/include -Iconfig $(FUZZ_FLAGS) -o $@ $< $(CONFIG_SRCS) \
		$(CONFIG_DEP_SRCS) -lyaml $(CONFIG_DEP_LIBS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

$(eval $(call fuzz_targets,config,$(CONFIG_FUZZ_BIN)))

CHECK_TARGETS += check-config
CLEAN_DIRS += $(BUILD)/config
