# SPDX-License-Identifier: BSD-3-Clause
#
# librpmem/proto.mk -- the codec of the payloads librpmem and rpmemd exchange
# (librpmem/rpmem_proto.c, doc/RPMEM-PROTOCOL.md), shared by the library and
# the daemon: its tests and its fuzzing. Included by the top-level Makefile
# (GNU make):
#   make check-rpmem-proto-unit   the cmocka tests of tests/unit/librpmem/test_rpmem_proto.c,
#                                 built with gcc (gcov) and with clang AddressSanitizer+UBSan,
#                                 run both
#   make coverage-rpmem-proto     line coverage of rpmem_proto.c from the gcc run (a figure)
#   make fuzz-rpmem-proto         build/fuzz/fuzz_rpmem_proto (libFuzzer)
#   make check-fuzz-rpmem-proto   run it for FUZZ_CHECK_SECONDS on fuzz/corpus/fuzz_rpmem_proto/;
#                                 make fuzz-run-rpmem-proto SECONDS=N for longer
#   make rpmem-proto-seeds        write fuzz/corpus/fuzz_rpmem_proto/ again from the test's samples
#                                 (check-rpmem-proto-unit fails while it is not current)

# the bounded readers are the framework's (proto/wire.c, with its messages in proto/status.c)
RPMEM_PROTO_SRCS := librpmem/rpmem_proto.c proto/wire.c proto/status.c
RPMEM_PROTO_HDRS := librpmem/rpmem_proto.h proto/wire.h proto/status.h
RPMEM_PROTO_CFLAGS := $(CFLAGS_BASE) -Ilibrpmem

RPMEM_PROTO_TEST := tests/unit/librpmem/test_rpmem_proto.c
RPMEM_PROTO_TEST_CFLAGS := $(RPMEM_PROTO_CFLAGS) -O0 -DRPMEM_PROTO_TOP_DIR='"$(abspath .)"'

# the gcc build, instrumented for coverage
RPMEM_PROTO_COV_OBJ := $(BUILD)/rpmem-proto/cov-obj
RPMEM_PROTO_COV_OBJS := $(RPMEM_PROTO_COV_OBJ)/rpmem_proto.o
RPMEM_PROTO_UNIT_BIN := $(BUILD)/rpmem-proto/unit/test_rpmem_proto

$(RPMEM_PROTO_COV_OBJS): $(RPMEM_PROTO_SRCS) $(RPMEM_PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMEM_PROTO_TEST_CFLAGS) --coverage -c $< -o $@

$(RPMEM_PROTO_UNIT_BIN): $(RPMEM_PROTO_TEST) $(RPMEM_PROTO_HDRS) $(RPMEM_PROTO_COV_OBJS) \
		$(RPMEM_PROTO_SRCS)
	@mkdir -p $(@D)
	$(CC) $(RPMEM_PROTO_TEST_CFLAGS) -o $@ $< $(RPMEM_PROTO_COV_OBJS) proto/wire.c proto/status.c \
		-lcmocka -lgcov

# the clang build with AddressSanitizer and UndefinedBehaviorSanitizer
RPMEM_PROTO_ASAN_BIN := $(BUILD)/rpmem-proto/unit-asan/test_rpmem_proto

$(RPMEM_PROTO_ASAN_BIN): $(RPMEM_PROTO_TEST) $(RPMEM_PROTO_HDRS) $(RPMEM_PROTO_SRCS)
	@mkdir -p $(@D)
	$(CLANG) $(RPMEM_PROTO_TEST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(RPMEM_PROTO_SRCS) -lcmocka

.PHONY: check-rpmem-proto-unit coverage-rpmem-proto rpmem-proto-seeds

check-rpmem-proto-unit: $(RPMEM_PROTO_UNIT_BIN) $(RPMEM_PROTO_ASAN_BIN)
	@tools/run-tests.sh rpmem-proto $(RPMEM_PROTO_UNIT_BIN)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests.sh rpmem-proto-asan $(RPMEM_PROTO_ASAN_BIN)

coverage-rpmem-proto: $(RPMEM_PROTO_UNIT_BIN)
	@rm -f $(RPMEM_PROTO_COV_OBJ)/*.gcda
	@tools/run-tests.sh rpmem-proto $(RPMEM_PROTO_UNIT_BIN) >/dev/null
	@cd $(RPMEM_PROTO_COV_OBJ) && gcov -n rpmem_proto.o 2>/dev/null | \
		grep -A1 "^File 'librpmem/rpmem_proto.c'" | paste - - | \
		sed -n "s/^File '\([^']*\)'.*Lines executed:/\1: lines executed /p"

rpmem-proto-seeds: $(RPMEM_PROTO_UNIT_BIN)
	@mkdir -p fuzz/corpus/fuzz_rpmem_proto
	@RPMEM_PROTO_WRITE_SEEDS=$(abspath fuzz/corpus/fuzz_rpmem_proto) $(RPMEM_PROTO_UNIT_BIN) >/dev/null
	@echo "fuzz/corpus/fuzz_rpmem_proto: $$(ls fuzz/corpus/fuzz_rpmem_proto | wc -l) seeds"

# the harness: an explicit rule, so the generic one of fuzz/ does not apply
RPMEM_PROTO_FUZZ_BIN := $(BUILD)/fuzz/fuzz_rpmem_proto

$(RPMEM_PROTO_FUZZ_BIN): fuzz/fuzz_rpmem_proto.c $(RPMEM_PROTO_SRCS) $(RPMEM_PROTO_HDRS) \
	fuzz/fuzz_assert.h
	@mkdir -p $(@D)
	$(CLANG) $(RPMEM_PROTO_CFLAGS) -O1 $(FUZZ_FLAGS) -o $@ $< $(RPMEM_PROTO_SRCS)

$(eval $(call fuzz_targets,rpmem-proto,$(RPMEM_PROTO_FUZZ_BIN)))

CHECK_TARGETS += check-rpmem-proto-unit coverage-rpmem-proto
CLEAN_DIRS += $(BUILD)/rpmem-proto
