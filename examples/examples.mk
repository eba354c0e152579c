# SPDX-License-Identifier: BSD-3-Clause
#
# examples/examples.mk -- the librpma examples, included by the top-level
# Makefile (GNU make):
#   make examples         build build/examples/NN-name/{server,client}
#   make check-examples   build them and run every pair over softrdma
# and the framework's (librpmaf) examples, NN-rpmaf-name:
#   make examples-rpmaf         build build/examples/NN-rpmaf-name/{client,server}
#   make check-examples-rpmaf   build them and run each over softrdma
#                               (examples/run-rpmaf-examples.sh)

EXAMPLES_SRC_DIR := examples
EXAMPLES_BUILD_DIR := build/examples
EXAMPLES_LIB_DIR := build/lib
EXAMPLES_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -I$(EXAMPLES_SRC_DIR)/common
EXAMPLES_LDFLAGS := $(LIB_LDFLAGS)
EXAMPLES_LDLIBS := -lrpma -lpmem2 -libverbs

EXAMPLES_ALL_NAMES := $(notdir $(patsubst %/,%,$(wildcard $(EXAMPLES_SRC_DIR)/[0-9][0-9]-*/)))
# the framework's examples (below) are NN-rpmaf-name
EXAMPLES_RPMAF_NAMES := $(foreach n,$(EXAMPLES_ALL_NAMES),$(if $(findstring -rpmaf-,$(n)),$(n)))
EXAMPLES_NAMES := $(filter-out $(EXAMPLES_RPMAF_NAMES),$(EXAMPLES_ALL_NAMES))
# the helpers every example links (examples/common/*.c, one object each)
EXAMPLES_COMMON_SRCS := $(wildcard $(EXAMPLES_SRC_DIR)/common/*.c)
EXAMPLES_COMMON_HDRS := $(wildcard $(EXAMPLES_SRC_DIR)/common/*.h)
EXAMPLES_COMMON_OBJ := $(patsubst $(EXAMPLES_SRC_DIR)/%.c,$(EXAMPLES_BUILD_DIR)/%.o,\
	$(EXAMPLES_COMMON_SRCS))
EXAMPLES_BINS := $(foreach n,$(EXAMPLES_NAMES),$(EXAMPLES_BUILD_DIR)/$(n)/server \
	$(EXAMPLES_BUILD_DIR)/$(n)/client)
EXAMPLES_LIB_SO := $(LIB_SO)

.PHONY: examples check-examples clean-examples

examples: $(EXAMPLES_BINS)

# examples_own_srcs DIR -- the sources an example's two programs share: the
# .c files of its directory other than server.c and client.c
examples_own_srcs = $(filter-out %/server.c %/client.c,$(wildcard $(1)*.c))

# one rule for both sides: build/examples/NN-name/server from examples/NN-name/server.c
# and the example's own shared sources and headers; LIB_SO (the shared library)
# comes from the top-level Makefile
$(EXAMPLES_BUILD_DIR)/%: $(EXAMPLES_SRC_DIR)/%.c $(EXAMPLES_COMMON_OBJ) $(EXAMPLES_COMMON_HDRS) \
		$$(call examples_own_srcs,$$(dir $(EXAMPLES_SRC_DIR)/$$*)) \
		$$(wildcard $$(dir $(EXAMPLES_SRC_DIR)/$$*)*.h) librpma/include/librpma.h \
		| $(EXAMPLES_LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_CFLAGS) -o $@ $< $(call examples_own_srcs,$(dir $<)) \
		$(EXAMPLES_COMMON_OBJ) $(EXAMPLES_LDFLAGS) $(EXAMPLES_LDLIBS)

$(EXAMPLES_COMMON_OBJ): $(EXAMPLES_BUILD_DIR)/common/%.o: $(EXAMPLES_SRC_DIR)/common/%.c \
		$(EXAMPLES_COMMON_HDRS) librpma/include/librpma.h
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_CFLAGS) -c -o $@ $<

check-examples: examples
	@$(EXAMPLES_SRC_DIR)/run-examples.sh $(EXAMPLES_BUILD_DIR)

clean-examples:
	rm -rf $(EXAMPLES_BUILD_DIR)

CHECK_TARGETS += check-examples

# ---- the framework's examples: each directory builds alone from its own *.c and
# *.h with the public headers only (rpmaf.h, librpma.h): client.c and, if it
# has one, server.c, each a program linked with librpmaf
EXAMPLES_RPMAF_BINS := $(foreach n,$(EXAMPLES_RPMAF_NAMES),\
	$(patsubst $(EXAMPLES_SRC_DIR)/%.c,$(EXAMPLES_BUILD_DIR)/%,\
	$(wildcard $(EXAMPLES_SRC_DIR)/$(n)/client.c $(EXAMPLES_SRC_DIR)/$(n)/server.c)))
EXAMPLES_RPMAF_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -Irpmaf/include
EXAMPLES_RPMAF_TOOLS := $(BUILD)/tools/rpma-server $(BUILD)/tools/rpma-load

.PHONY: examples-rpmaf check-examples-rpmaf

examples-rpmaf: $(EXAMPLES_RPMAF_BINS)

# build/examples/NN-rpmaf-name/client from examples/NN-rpmaf-name/client.c (its
# directory's headers as prerequisites; librpmaf's variables come later, hence
# $$); a static pattern rule, so that it takes precedence over the rule above
$(EXAMPLES_RPMAF_BINS): $(EXAMPLES_BUILD_DIR)/%: $(EXAMPLES_SRC_DIR)/%.c $(RPMAF_PUBLIC_HDRS) \
		librpma/include/librpma.h $$(wildcard $$(dir $(EXAMPLES_SRC_DIR)/$$*)*.h) \
		| $$(RPMAF_SO) $$(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_RPMAF_CFLAGS) -o $@ $< $(LIB_LDFLAGS) -lrpmaf -lrpma -pthread

# the KV store's client with a planted bug (a get that takes a bucket without
# checking its version): the test shows that --verify catches it; a test build,
# made here only (make check-install runs the examples without it)
EXAMPLES_KV_PLANTED := $(EXAMPLES_BUILD_DIR)/18-rpmaf-kvstore/client-ignore-version

$(EXAMPLES_KV_PLANTED): $(EXAMPLES_SRC_DIR)/18-rpmaf-kvstore/client.c \
		$(EXAMPLES_SRC_DIR)/18-rpmaf-kvstore/kv.h $(RPMAF_PUBLIC_HDRS) | $$(RPMAF_SO) $$(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(EXAMPLES_RPMAF_CFLAGS) -DKV_PLANT_IGNORE_VERSION -o $@ $< $(LIB_LDFLAGS) \
		-lrpmaf -lrpma -pthread

check-examples-rpmaf: $(EXAMPLES_RPMAF_BINS) $(EXAMPLES_KV_PLANTED) $(EXAMPLES_RPMAF_TOOLS) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 EXAMPLES_NEED_PLANTED=1 \
		$(EXAMPLES_SRC_DIR)/run-rpmaf-examples.sh $(EXAMPLES_BUILD_DIR)

CHECK_TARGETS += check-examples-rpmaf
