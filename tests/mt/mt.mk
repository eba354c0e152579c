# SPDX-License-Identifier: BSD-3-Clause
#
# tests/mt/mt.mk -- the multi-threaded tests under ThreadSanitizer; included
# by the top-level Makefile (GNU make):
#   make check-mt   build librpma from librpma/src/*.c with clang
#                   -fsanitize=thread into build/tsan/, the tests of tests/mt/
#                   and the helper server against it, and run every mt_*
#                   program under tools/softrdma-run with halt_on_error=1
#
# softrdma's libibverbs/librdmacm are not instrumented; tests/mt/tsan.supp
# may only name softrdma's objects, never librpma.

MT_SRC_DIR := tests/mt
MT_BUILD_DIR := build/tsan
MT_CC := $(CLANG)
MT_CFLAGS := $(CFLAGS_BASE) -O1 $(TSAN_FLAGS) -Itests/integration
MT_LDLIBS := -libverbs -lrdmacm -lcmocka -pthread
MT_SUPP := $(abspath $(MT_SRC_DIR)/tsan.supp)
MT_TSAN_OPTIONS := halt_on_error=1 second_deadlock_stack=1 suppressions=$(MT_SUPP)
# seconds one test program may run
MT_TIMEOUT ?= 120

MT_LIB_OBJS := $(patsubst librpma/src/%.c,$(MT_BUILD_DIR)/obj/%.o,$(RPMA_SRCS))
MT_LIB := $(MT_BUILD_DIR)/librpma.a
MT_NAMES := $(sort $(notdir $(basename $(wildcard $(MT_SRC_DIR)/mt_*.c))))
MT_BINS := $(addprefix $(MT_BUILD_DIR)/,$(MT_NAMES))
MT_SERVER := $(MT_BUILD_DIR)/server
MT_COMMON := tests/integration/common.c tests/integration/common.h

.PHONY: mt check-mt clean-mt

mt: $(MT_BINS) $(MT_SERVER)

$(MT_BUILD_DIR)/obj/%.o: librpma/src/%.c $(RPMA_HDRS)
	@mkdir -p $(@D)
	$(MT_CC) $(MT_CFLAGS) -Ilibrpma/src -fPIC -c $< -o $@

$(MT_LIB): $(MT_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# the helper server of the integration tests, on the instrumented library too
$(MT_SERVER): tests/integration/server.c $(MT_COMMON) $(MT_LIB)
	@mkdir -p $(@D)
	$(MT_CC) $(MT_CFLAGS) -o $@ $< tests/integration/common.c $(MT_LIB) $(MT_LDLIBS)

$(MT_BUILD_DIR)/mt_%: $(MT_SRC_DIR)/mt_%.c $(MT_COMMON) $(MT_LIB)
	@mkdir -p $(@D)
	$(MT_CC) $(MT_CFLAGS) -o $@ $< tests/integration/common.c $(MT_LIB) $(MT_LDLIBS)

check-mt: $(MT_BINS) $(MT_SERVER) softrdma
	@TSAN_OPTIONS="$(MT_TSAN_OPTIONS)" TEST_TIMEOUT=$(MT_TIMEOUT) \
		tools/softrdma-run tools/run-tests.sh mt $(MT_BINS)

clean-mt:
	rm -rf $(MT_BUILD_DIR)

CHECK_TARGETS += check-mt
