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
INTEG_CC := gcc
INTEG_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Ilibrpma/include \
	-I$(INTEG_SRC_DIR)
INTEG_LDFLAGS := -L$(INTEG_LIB_DIR) -Wl,-rpath,$(abspath $(INTEG_LIB_DIR))
INTEG_LDLIBS := -lrpma -libverbs -lrdmacm -lcmocka -pthread
# seconds one test program may run
INTEG_TIMEOUT ?= 90

INTEG_NAMES := $(sort $(notdir $(basename $(wildcard $(INTEG_SRC_DIR)/test_*.c))))
INTEG_BINS := $(addprefix $(INTEG_BUILD_DIR)/,$(INTEG_NAMES))
INTEG_SERVER := $(INTEG_BUILD_DIR)/server
INTEG_COMMON := $(INTEG_SRC_DIR)/common.c $(INTEG_SRC_DIR)/common.h

.PHONY: integration check-integration clean-integration

integration: $(INTEG_BINS) $(INTEG_SERVER)

# the shared library comes from the top-level Makefile (LIB_SO) when it is there
ifdef LIB_SO
INTEG_LIB := $(LIB_SO)
else
INTEG_LIB := $(INTEG_LIB_DIR)/librpma.so.1
$(INTEG_LIB):
	$(MAKE) -f Makefile librpma
endif

$(INTEG_BUILD_DIR)/%: $(INTEG_SRC_DIR)/%.c $(INTEG_COMMON) librpma/include/librpma.h $(INTEG_LIB)
	@mkdir -p $(@D)
	$(INTEG_CC) $(INTEG_CFLAGS) -o $@ $< $(INTEG_SRC_DIR)/common.c $(INTEG_LDFLAGS) $(INTEG_LDLIBS)

check-integration: $(INTEG_BINS) $(INTEG_SERVER) softrdma
	@TEST_TIMEOUT=$(INTEG_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 tools/softrdma-run tools/run-tests.sh integration $(INTEG_BINS)

clean-integration:
	rm -rf $(INTEG_BUILD_DIR)
