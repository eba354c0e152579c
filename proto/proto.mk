# SPDX-License-Identifier: BSD-3-Clause
#
# proto/proto.mk -- the control protocol module (message codec, session state
# machines, authentication, flow control, heartbeats): its place in librpmaf,
# its tests and its fuzzing; included by the top-level Makefile (GNU make):
#   make check-proto        the cmocka tests of tests/unit/proto/, built with gcc
#                           (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-proto     line coverage of proto/*.c from the gcc run
#   make fuzz-proto         build/fuzz/fuzz_proto (libFuzzer)
#   make check-fuzz-proto   run it for FUZZ_CHECK_SECONDS; make fuzz-run-proto SECONDS=N
#   make proto-seeds        write the seed corpus fuzz/corpus/fuzz_proto/ again (check-proto
#                           fails while it is not current)
#
# Each tests/unit/proto/test_*.c is one program, linked with the other .c
# files of that directory and with proto/*.c compiled in.

PROTO_SRCS := $(sort $(wildcard proto/*.c))
PROTO_HDRS := $(wildcard proto/*.h)
PROTO_LIBS := -lsodium

# proto/*.c go into librpmaf (proto is in RPMAF_MODULES, rpmaf/rpmaf.mk).

PROTO_TEST_DIR := tests/unit/proto
PROTO_TEST_NAMES := $(sort $(notdir $(basename $(wildcard $(PROTO_TEST_DIR)/test_*.c))))
PROTO_TEST_HELPERS := $(filter-out $(PROTO_TEST_DIR)/test_%.c,$(wildcard $(PROTO_TEST_DIR)/*.c))
PROTO_TEST_DEPS := $(PROTO_TEST_HELPERS) $(wildcard $(PROTO_TEST_DIR)/*.h) $(PROTO_HDRS)
PROTO_TEST_CFLAGS := $(CFLAGS_BASE) -O0 -Iproto -I$(PROTO_TEST_DIR) \
	-DPROTO_TOP_DIR='"$(abspath .)"'
# the tests count allocations, to show that the codec makes none
PROTO_TEST_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
PROTO_TEST_LIBS := -lcmocka $(PROTO_LIBS)

# the gcc build, instrumented for coverage
PROTO_COV_OBJ := $(BUILD)/proto/cov-obj
PROTO_COV_OBJS := $(patsubst proto/%.c,$(PROTO_COV_OBJ)/%.o,$(PROTO_SRCS))
PROTO_UNIT_BINS := $(addprefix $(BUILD)/proto/unit/,$(PROTO_TEST_NAMES))

$(PROTO_COV_OBJ)/%.o: proto/%.c $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PROTO_TEST_CFLAGS) --coverage -c $< -o $@

$(BUILD)/proto/unit/%: $(PROTO_TEST_DIR)/%.c $(PROTO_TEST_DEPS) $(PROTO_COV_OBJS)
	@mkdir -p $(@D)
	$(CC) $(PROTO_TEST_CFLAGS) -o $@ $< $(PROTO_TEST_HELPERS) $(PROTO_COV_OBJS) \
		$(PROTO_TEST_LIBS) -lgcov $(PROTO_TEST_WRAP)

# the clang build with AddressSanitizer and UndefinedBehaviorSanitizer
PROTO_ASAN_BINS := $(addprefix $(BUILD)/proto/unit-asan/,$(PROTO_TEST_NAMES))

$(BUILD)/proto/unit-asan/%: $(PROTO_TEST_DIR)/%.c $(PROTO_TEST_DEPS) $(PROTO_SRCS)
	@mkdir -p $(@D)
	$(CLANG) $(PROTO_TEST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(PROTO_TEST_HELPERS) $(PROTO_SRCS) \
		$(PROTO_TEST_LIBS) $(PROTO_TEST_WRAP)

.PHONY: check-proto coverage-proto proto-seeds

check-proto: $(PROTO_UNIT_BINS) $(PROTO_ASAN_BINS)
	@tools/run-tests.sh proto $(PROTO_UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests.sh proto-asan $(PROTO_ASAN_BINS)

# line coverage of proto/*.c by the gcc run (a figure; no floor enforced)
coverage-proto: $(PROTO_UNIT_BINS)
	@rm -f $(PROTO_COV_OBJ)/*.gcda
	@tools/run-tests.sh proto $(PROTO_UNIT_BINS) >/dev/null
	@cd $(PROTO_COV_OBJ) && gcov -n $(notdir $(PROTO_SRCS:.c=.o)) 2>/dev/null | \
		awk '/^File / {f = $$2; next} /^Lines executed/ && f ~ /proto\// { \
			split($$0, a, ":|% of "); c += a[2] * a[3] / 100; n += a[3]; \
			printf "%-24s %s\n", f, $$0; f = "" } \
			END {printf "proto/ line coverage: %.0f/%d = %.2f%%\n", c, n, 100 * c / n}'

# the libFuzzer harness: every parser of the protocol on the same bytes
PROTO_FUZZ_BIN := $(BUILD)/fuzz/fuzz_proto

$(PROTO_FUZZ_BIN): fuzz/fuzz_proto.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_BASE) -O1 -Iproto $(FUZZ_FLAGS) -o $@ $< $(PROTO_SRCS) $(PROTO_LIBS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

$(eval $(call fuzz_targets,proto,$(PROTO_FUZZ_BIN)))

# the seed corpus, written by the test that checks it is current (test_seeds.c)
proto-seeds: $(BUILD)/proto/unit/test_seeds
	rm -rf fuzz/corpus/fuzz_proto && mkdir -p fuzz/corpus/fuzz_proto
	PROTO_WRITE_SEEDS=fuzz/corpus/fuzz_proto $<

CHECK_TARGETS += check-proto
CLEAN_DIRS += $(BUILD)/proto
