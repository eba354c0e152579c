# SPDX-License-Identifier: BSD-3-Clause
#
# examples/examples.mk -- the librpma examples, included by the top-level
# Makefile (GNU make):
#   make examples         build build/examples/NN-name/{server,client}
#   make check-examples   build them and run every pair over softrdma

EXAMPLES_SRC_DIR := examples
EXAMPLES_BUILD_DIR := build/examples
EXAMPLES_LIB_DIR := build/lib
EXAMPLES_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -I$(EXAMPLES_SRC_DIR)/common
EXAMPLES_LDFLAGS := $(LIB_LDFLAGS)
EXAMPLES_LDLIBS := -lrpma -lpmem2 -libverbs

EXAMPLES_NAMES := $(notdir $(patsubst %/,%,$(wildcard $(EXAMPLES_SRC_DIR)/[0-9][0-9]-*/)))
EXAMPLES_COMMON_SRCS := $(EXAMPLES_SRC_DIR)/common/common.c
EXAMPLES_COMMON_HDRS := $(EXAMPLES_SRC_DIR)/common/common.h
EXAMPLES_COMMON_OBJ := $(EXAMPLES_BUILD_DIR)/common/common.o
EXAMPLES_BINS := $(foreach n,$(EXAMPLES_NAMES),$(EXAMPLES_BUILD_DIR)/$(n)/server \
	$(EXAMPLES_BUILD_DIR)/$(n)/client)
EXAMPLES_LIB_SO := $(LIB_SO)

.PHONY: examples check-examples clean-examples

examples: $(EXAMPLES_BINS)

# one rule for both sides: build/examples/NN-name/server from examples/NN-name/server.c;
# LIB_SO (the shared library) comes from the top-level Makefile
$(EXAMPLES_BUILD_DIR)/%: $(EXAMPLES_SRC_DIR)/%.c $(EXAMPLES_COMMON_OBJ) $(EXAMPLES_COMMON_HDRS) \
		librpma/include/librpma.h | $(EXAMPLES_LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_CFLAGS) -o $@ $< $(EXAMPLES_COMMON_OBJ) $(EXAMPLES_LDFLAGS) \
		$(EXAMPLES_LDLIBS)

$(EXAMPLES_COMMON_OBJ): $(EXAMPLES_COMMON_SRCS) $(EXAMPLES_COMMON_HDRS) librpma/include/librpma.h
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_CFLAGS) -c -o $@ $<

check-examples: examples
	@$(EXAMPLES_SRC_DIR)/run-examples.sh $(EXAMPLES_BUILD_DIR)

clean-examples:
	rm -rf $(EXAMPLES_BUILD_DIR)

CHECK_TARGETS += check-examples
