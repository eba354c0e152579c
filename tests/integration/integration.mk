# SPDX-License-Identifier: BSD-3-Clause
#
# tests/integration/integration.mk -- librpma between two processes over
# softrdma; included by the top-level Makefile (GNU make):
#   make check-integration   build build/integration/* and run every
#                            test_* program under tools/softrdma-run
#
# Each test_*.c is one cmocka program; server.c is the peer process the
# tests start (build/integration/server); common.c is linked into both.

INTEG_SRC_DIR := tests/integration
INTEG_BUILD_DIR := build/integration
INTEG_LIB_DIR := build/lib
INTEG_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -I$(INTEG_SRC_DIR)
INTEG_LDFLAGS := $(LIB_LDFLAGS)
INTEG_LDLIBS := -lrpma -libverbs -lrdmacm -lcmocka -pthread
# seconds one test program may run
INTEG_TIMEOUT ?= 90

INTEG_NAMES := $(sort $(notdir $(basename $(wildcard $(INTEG_SRC_DIR)/test_*.c))))
INTEG_BINS := $(addprefix $(INTEG_BUILD_DIR)/,$(INTEG_NAMES))
INTEG_SERVER := $(INTEG_BUILD_DIR)/server
INTEG_COMMON := $(INTEG_SRC_DIR)/common.c $(INTEG_SRC_DIR)/common.h

.PHONY: integration check-integration clean-integration

integration: $(INTEG_BINS) $(INTEG_SERVER)

$(INTEG_BUILD_DIR)/%: $(INTEG_SRC_DIR)/%.c $(INTEG_COMMON) librpma/include/librpma.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(INTEG_CFLAGS) -o $@ $< $(INTEG_SRC_DIR)/common.c $(INTEG_LDFLAGS) $(INTEG_LDLIBS)

check-integration: $(INTEG_BINS) $(INTEG_SERVER) softrdma
	@TEST_TIMEOUT=$(INTEG_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 TEST_WRAPPER=tools/softrdma-run \
		tools/run-tests.sh integration $(INTEG_BINS)

clean-integration:
	rm -rf $(INTEG_BUILD_DIR)

CHECK_TARGETS += check-integration
