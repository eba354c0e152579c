# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpmemd/rpmemd.mk -- rpmemd, the target side of librpmem: its pool set
# file (poolset.c), the PMDK part header (pool_hdr.c) and the pool on disk,
# mapped with libpmem2 (pool.c). Included by the top-level Makefile (GNU make):
#   make check-rpmemd-unit      the cmocka tests of tests/unit/rpmemd/, built with gcc
#                               (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-rpmemd        line coverage of the sources from the gcc run (a figure)
#   make fuzz-poolset           build/fuzz/fuzz_poolset (libFuzzer): the set file parser
#                               and the header decoder
#   make check-fuzz-poolset     run it for FUZZ_CHECK_SECONDS on fuzz/corpus/fuzz_poolset/;
#                               make fuzz-run-poolset SECONDS=N for longer
#   make check-rpmemd           the daemon program: usage, bad configurations, a port
#                               taken, SIGTERM and SIGINT (tools/rpmemd/test-rpmemd.sh)
#   make check-rpmemd-pmempool  part files written by this code, read by Debian's
#                               pmempool (package pmdk-tools): tests/rpmemd/test-pmempool.sh
#
# Each tests/unit/rpmemd/test_*.c is one program, linked with the other .c
# files of that directory and with the sources compiled in.

# the file formats (no library needed: the fuzzer and write-parts take these), and the pool
RPMEMD_LIB_SRCS := tools/rpmemd/poolset.c tools/rpmemd/pool_hdr.c
RPMEMD_POOL_SRCS := tools/rpmemd/pool.c tools/rpmemd/beneath.c tools/rpmemd/errmsg.c
RPMEMD_POOL_LIBS := -lpmem2
RPMEMD_UNIT_SRCS := $(RPMEMD_LIB_SRCS) $(RPMEMD_POOL_SRCS)
RPMEMD_HDRS := $(wildcard tools/rpmemd/*.h)
RPMEMD_CFLAGS := $(CFLAGS_BASE) -Itools/rpmemd

RPMEMD_TEST_DIR := tests/unit/rpmemd
RPMEMD_TEST_NAMES := $(sort $(notdir $(basename $(wildcard $(RPMEMD_TEST_DIR)/test_*.c))))
RPMEMD_TEST_HELPERS := $(filter-out $(RPMEMD_TEST_DIR)/test_%.c,$(wildcard $(RPMEMD_TEST_DIR)/*.c)) \
	tests/support/fail_alloc.c
RPMEMD_TEST_DEPS := $(RPMEMD_TEST_HELPERS) $(wildcard $(RPMEMD_TEST_DIR)/*.h) $(RPMEMD_HDRS) \
	tests/support/fail_alloc.h
RPMEMD_TEST_CFLAGS := $(RPMEMD_CFLAGS) -O0 -I$(RPMEMD_TEST_DIR) -Itests/support
# the tests make allocations fail on purpose (tests/support/fail_alloc.c)
RPMEMD_TEST_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

# the gcc build, instrumented for coverage
RPMEMD_COV_OBJ := $(BUILD)/rpmemd/cov-obj
RPMEMD_COV_OBJS := $(patsubst tools/rpmemd/%.c,$(RPMEMD_COV_OBJ)/%.o,$(RPMEMD_UNIT_SRCS))
RPMEMD_UNIT_BINS := $(addprefix $(BUILD)/rpmemd/unit/,$(RPMEMD_TEST_NAMES))

$(RPMEMD_COV_OBJ)/%.o: tools/rpmemd/%.c $(RPMEMD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_TEST_CFLAGS) --coverage -c $< -o $@

$(BUILD)/rpmemd/unit/%: $(RPMEMD_TEST_DIR)/%.c $(RPMEMD_TEST_DEPS) $(RPMEMD_COV_OBJS)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_TEST_CFLAGS) -o $@ $< $(RPMEMD_TEST_HELPERS) $(RPMEMD_COV_OBJS) \
		-lcmocka $(RPMEMD_POOL_LIBS) -lgcov $(RPMEMD_TEST_WRAP)

# the clang build with AddressSanitizer and UndefinedBehaviorSanitizer
RPMEMD_ASAN_BINS := $(addprefix $(BUILD)/rpmemd/unit-asan/,$(RPMEMD_TEST_NAMES))

$(BUILD)/rpmemd/unit-asan/%: $(RPMEMD_TEST_DIR)/%.c $(RPMEMD_TEST_DEPS) $(RPMEMD_UNIT_SRCS)
	@mkdir -p $(@D)
	$(CLANG) $(RPMEMD_TEST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(RPMEMD_TEST_HELPERS) \
		$(RPMEMD_UNIT_SRCS) -lcmocka $(RPMEMD_POOL_LIBS) $(RPMEMD_TEST_WRAP)

.PHONY: check-rpmemd-unit coverage-rpmemd check-rpmemd-pmempool

check-rpmemd-unit: $(RPMEMD_UNIT_BINS) $(RPMEMD_ASAN_BINS)
	@tools/run-tests.sh rpmemd $(RPMEMD_UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests.sh rpmemd-asan $(RPMEMD_ASAN_BINS)

coverage-rpmemd: $(RPMEMD_UNIT_BINS)
	@rm -f $(RPMEMD_COV_OBJ)/*.gcda
	@tools/run-tests.sh rpmemd $(RPMEMD_UNIT_BINS) >/dev/null
	@cd $(RPMEMD_COV_OBJ) && gcov -n $(notdir $(RPMEMD_UNIT_SRCS:.c=.o)) 2>/dev/null | \
		grep -A1 "^File 'tools/rpmemd/" | paste - - | \
		sed -n "s/^File '\([^']*\)'.*Lines executed:/\1: lines executed /p"

# the harness: an explicit rule, so the generic one of fuzz/ does not apply
RPMEMD_FUZZ_BIN := $(BUILD)/fuzz/fuzz_poolset

$(RPMEMD_FUZZ_BIN): fuzz/fuzz_poolset.c $(RPMEMD_LIB_SRCS) $(RPMEMD_HDRS) fuzz/fuzz_assert.h
	@mkdir -p $(@D)
	$(CLANG) $(RPMEMD_CFLAGS) -O1 $(FUZZ_FLAGS) -o $@ $< $(RPMEMD_LIB_SRCS)

$(eval $(call fuzz_targets,poolset,$(RPMEMD_FUZZ_BIN)))

# part files of each shape of set, written by this code, read by Debian's pmempool
RPMEMD_PARTS_BIN := $(BUILD)/rpmemd/write-parts

$(RPMEMD_PARTS_BIN): tests/rpmemd/write_parts.c $(RPMEMD_LIB_SRCS) $(RPMEMD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_CFLAGS) $(CFLAGS) -o $@ $< $(RPMEMD_LIB_SRCS)

check-rpmemd-pmempool: $(RPMEMD_PARTS_BIN)
	@tests/rpmemd/test-pmempool.sh $(RPMEMD_PARTS_BIN)

# the daemon: the pool files above, served through the framework (daemon.c, rpmemd.c)
RPMEMD_BIN := $(BUILD)/tools/rpmemd
RPMEMD_DAEMON_SRCS := tools/rpmemd/rpmemd.c tools/rpmemd/daemon.c tools/common/service.c \
	librpmem/rpmem_proto.c proto/wire.c proto/status.c \
	$(RPMEMD_LIB_SRCS) $(RPMEMD_POOL_SRCS)

.PHONY: rpmemd
rpmemd: $(RPMEMD_BIN)

# the same program for make install, linked again with INSTALL_LDFLAGS
RPMEMD_INSTALL := $(INSTALL_GEN)/bin/rpmemd
INSTALL_BINS += $(RPMEMD_INSTALL)
$(RPMEMD_INSTALL): $(INSTALL_RPATH_STAMP)

$(RPMEMD_BIN) $(RPMEMD_INSTALL): $(RPMEMD_DAEMON_SRCS) $(RPMEMD_HDRS) librpmem/rpmem_proto.h \
		tools/common/service.h rpmaf/include/rpmaf.h $(wildcard rpmaf/include/rpmaf/*.h) $(VERSION_H) \
		$(RPMAF_SO) $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_CFLAGS) $(CFLAGS) -Irpmaf/include -I$(dir $(VERSION_H)) -Ilibrpmem -o $@ $(RPMEMD_DAEMON_SRCS) \
		$(LIB_LDFLAGS) -lrpmaf -lrpma $(RPMEMD_POOL_LIBS) -pthread

# the program: usage, bad configurations, a port taken, SIGTERM and SIGINT
.PHONY: check-rpmemd
check-rpmemd: $(RPMEMD_BIN) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpmemd/test-rpmemd.sh $(RPMEMD_BIN)

CHECK_TARGETS += check-rpmemd-unit check-rpmemd-pmempool check-rpmemd
CLEAN_DIRS += $(BUILD)/rpmemd
