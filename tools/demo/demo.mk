# SPDX-License-Identifier: BSD-3-Clause
#
# tools/demo/demo.mk -- the main demonstration, included by the top-level
# Makefile (GNU make), or given after it:
#   make -f Makefile -f tools/demo/demo.mk run
#
#   make run          install missing Debian packages, build librpma, softrdma
#                     and the demo, then run it over softrdma on 127.0.0.1
#   make check-demo   the same with a few records (bounded time, for make check)
#   make demo         build the demo's programs only (build/demo/)
#
# The run's size and shape: DEMO_RECORDS, DEMO_RECORD_SIZE, DEMO_BATCH,
# DEMO_QUEUE_DEPTH, DEMO_REGION_MIB; where: DEMO_ADDR, DEMO_PORT; how long at
# most: DEMO_TIMEOUT (seconds per program); DEMO_FILE keeps the server's file
# at that path instead of a temporary one. check-demo uses DEMO_CHECK_RECORDS,
# DEMO_CHECK_REGION_MIB, DEMO_CHECK_PORT and DEMO_CHECK_TIMEOUT instead.

# read once, also when both the top-level Makefile and the command line name it
ifndef DEMO_MK_INCLUDED
DEMO_MK_INCLUDED := 1

DEMO_MK := $(lastword $(MAKEFILE_LIST))
DEMO_TOP_MK := $(firstword $(MAKEFILE_LIST))
DEMO_SRC_DIR := tools/demo
DEMO_BUILD_DIR := build/demo
DEMO_LIB_DIR := build/lib
DEMO_CFLAGS := $(CFLAGS_BASE) $(CFLAGS)
DEMO_LDFLAGS := $(LIB_LDFLAGS)
DEMO_HDRS := $(DEMO_SRC_DIR)/demo.h librpma/include/librpma.h
DEMO_COMMON_OBJ := $(DEMO_BUILD_DIR)/demo-common.o
DEMO_BINS := $(DEMO_BUILD_DIR)/demo-server $(DEMO_BUILD_DIR)/demo-client \
	$(DEMO_BUILD_DIR)/demo-verify

DEMO_RECORDS ?= 16384
DEMO_RECORD_SIZE ?= 4096
DEMO_BATCH ?= 16
DEMO_QUEUE_DEPTH ?= 8
DEMO_REGION_MIB ?= 64
DEMO_ADDR ?= 127.0.0.1
DEMO_PORT ?= 7204
DEMO_TIMEOUT ?= 120
DEMO_FILE ?=
DEMO_CHECK_RECORDS ?= 512
DEMO_CHECK_PORT ?= 17390
DEMO_CHECK_REGION_MIB ?= 4
DEMO_CHECK_TIMEOUT ?= 30

# the environment of tools/demo/run-demo.sh
DEMO_ENV = DEMO_BIN=$(DEMO_BUILD_DIR) DEMO_RECORD_SIZE=$(DEMO_RECORD_SIZE) \
	DEMO_BATCH=$(DEMO_BATCH) DEMO_QUEUE_DEPTH=$(DEMO_QUEUE_DEPTH) \
	DEMO_ADDR=$(DEMO_ADDR) DEMO_FILE=$(DEMO_FILE)

.PHONY: run check-demo demo demo-run demo-check clean-demo

demo: $(DEMO_BINS)

# the helpers all three programs share
$(DEMO_COMMON_OBJ): $(DEMO_SRC_DIR)/demo-common.c $(DEMO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -c -o $@ $<

$(DEMO_BUILD_DIR)/demo-server: $(DEMO_SRC_DIR)/demo-server.c $(DEMO_COMMON_OBJ) $(DEMO_HDRS) | $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -o $@ $< $(DEMO_COMMON_OBJ) $(DEMO_LDFLAGS) -lrpma -lpmem2 -libverbs

$(DEMO_BUILD_DIR)/demo-client: $(DEMO_SRC_DIR)/demo-client.c $(DEMO_COMMON_OBJ) $(DEMO_HDRS) | $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -o $@ $< $(DEMO_COMMON_OBJ) $(DEMO_LDFLAGS) -lrpma -libverbs

# demo-common.o calls librpma, hence -lrpma here too
$(DEMO_BUILD_DIR)/demo-verify: $(DEMO_SRC_DIR)/demo-verify.c $(DEMO_COMMON_OBJ) $(DEMO_HDRS) | $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -o $@ $< $(DEMO_COMMON_OBJ) $(DEMO_LDFLAGS) -lrpma

# The packages must be in place before anything is compiled, also under -j:
# hence `deps` first, then a make of the rest (as `make check` does).
run: deps
	@$(MAKE) --no-print-directory -f $(DEMO_TOP_MK) -f $(DEMO_MK) demo-run

check-demo: deps
	@$(MAKE) --no-print-directory -f $(DEMO_TOP_MK) -f $(DEMO_MK) demo-check

demo-run: librpma softrdma $(DEMO_BINS)
	@$(DEMO_ENV) DEMO_RECORDS=$(DEMO_RECORDS) DEMO_REGION_MIB=$(DEMO_REGION_MIB) \
		DEMO_PORT=$(DEMO_PORT) DEMO_TIMEOUT=$(DEMO_TIMEOUT) $(DEMO_SRC_DIR)/run-demo.sh

demo-check: librpma softrdma $(DEMO_BINS)
	@$(DEMO_ENV) DEMO_RECORDS=$(DEMO_CHECK_RECORDS) DEMO_REGION_MIB=$(DEMO_CHECK_REGION_MIB) \
		DEMO_PORT=$(DEMO_CHECK_PORT) DEMO_TIMEOUT=$(DEMO_CHECK_TIMEOUT) \
		$(DEMO_SRC_DIR)/run-demo.sh

clean-demo:
	rm -rf $(DEMO_BUILD_DIR)

CHECK_TARGETS += check-demo

endif # DEMO_MK_INCLUDED
