# SPDX-License-Identifier: BSD-3-Clause
#
# tests/interop/interop.mk -- our librpma against Debian's librpma 1.2.0 on
# the wire, over softrdma. GNU make fragment, included by the top-level
# Makefile (or used as make -f Makefile -f tests/interop/interop.mk TARGET):
#   make check-interop        build both variants of the examples below and
#                             run ours-server x debian-client and
#                             debian-server x ours-client for each of them
#   make interop-debian-bins  only build the Debian variant
#
# Our variant is the examples' own build (build/examples, examples.mk). The
# Debian variant is built from the same, unchanged sources against the
# Debian packages unpacked (never installed) into build/debian-librpma by
# tools/debian-librpma.sh, into build/interop/debian/NN-name/{server,client}.
# Only the examples' shared helpers need two functions 1.2.0 lacks
# (rpma_check_version, rpma_errormsg); tests/interop/debian-compat.h, forced
# in with -include, supplies stand-ins for them.

INTEROP_CASES ?= 01-connection 02-read-to-volatile 04-write-to-persistent \
	05-flush-to-persistent 07-atomic-write 08-messages-ping-pong
INTEROP_BUILD := $(BUILD)
INTEROP_DIR := $(INTEROP_BUILD)/interop/debian
INTEROP_OURS_DIR := $(EXAMPLES_BUILD_DIR)
INTEROP_DEB_ROOT := $(INTEROP_BUILD)/debian-librpma
INTEROP_DEB_INC := $(INTEROP_DEB_ROOT)/usr/include
INTEROP_DEB_LIBDIR := $(INTEROP_DEB_ROOT)/usr/lib/x86_64-linux-gnu
INTEROP_COMPAT := tests/interop/debian-compat.h
INTEROP_CFLAGS := -std=gnu11 -g $(WARN) $(CFLAGS) -I$(INTEROP_DEB_INC) \
	-Iexamples/common -include $(INTEROP_COMPAT)
INTEROP_LDFLAGS := -L$(INTEROP_DEB_LIBDIR) -Wl,-rpath,$(abspath $(INTEROP_DEB_LIBDIR))
INTEROP_LDLIBS := -lrpma -lpmem2 -libverbs
# the examples' helpers (examples.mk's EXAMPLES_COMMON_SRCS), one object each
INTEROP_COMMON_OBJ := $(patsubst examples/%.c,$(INTEROP_DIR)/%.o,$(EXAMPLES_COMMON_SRCS))
INTEROP_DEB_BINS := $(foreach c,$(INTEROP_CASES),$(INTEROP_DIR)/$(c)/server $(INTEROP_DIR)/$(c)/client)
INTEROP_OURS_BINS := $(foreach c,$(INTEROP_CASES),$(INTEROP_OURS_DIR)/$(c)/server \
	$(INTEROP_OURS_DIR)/$(c)/client)
# what run-interop.sh checks that each side loaded
INTEROP_OURS_LIB := $(INTEROP_BUILD)/lib/librpma.so.1
INTEROP_DEB_LIB := $(INTEROP_DEB_LIBDIR)/librpma.so.0
INTEROP_TIMEOUT ?= 30
INTEROP_BASE_PORT ?= 17500

.PHONY: check-interop interop-debian-bins interop-debian-librpma clean-interop

interop-debian-bins: $(INTEROP_DEB_BINS)

# the unpacked tree; the script is idempotent and runs only when it is missing
$(INTEROP_DEB_INC)/librpma.h:
	tools/debian-librpma.sh $(INTEROP_BUILD) >/dev/null

interop-debian-librpma: $(INTEROP_DEB_INC)/librpma.h

$(INTEROP_COMMON_OBJ): $(INTEROP_DIR)/common/%.o: examples/common/%.c $(EXAMPLES_COMMON_HDRS) \
		$(INTEROP_COMPAT) $(INTEROP_DEB_INC)/librpma.h
	@mkdir -p $(@D)
	$(CC) $(INTEROP_CFLAGS) -c -o $@ $<

# build/interop/debian/NN-name/server from examples/NN-name/server.c and the
# example's own shared sources (examples.mk's examples_own_srcs)
$(INTEROP_DIR)/%: examples/%.c $(INTEROP_COMMON_OBJ) $(EXAMPLES_COMMON_HDRS) $(INTEROP_COMPAT) \
		$$(call examples_own_srcs,$$(dir examples/$$*)) $(INTEROP_DEB_INC)/librpma.h
	@mkdir -p $(@D)
	$(CC) $(INTEROP_CFLAGS) -o $@ $< $(call examples_own_srcs,$(dir $<)) \
		$(INTEROP_COMMON_OBJ) $(INTEROP_LDFLAGS) $(INTEROP_LDLIBS)

check-interop: $(INTEROP_OURS_BINS) $(INTEROP_DEB_BINS) softrdma
	@INTEROP_OURS_LIB=$(INTEROP_OURS_LIB) INTEROP_DEB_LIB=$(INTEROP_DEB_LIB) \
		INTEROP_TIMEOUT=$(INTEROP_TIMEOUT) INTEROP_BASE_PORT=$(INTEROP_BASE_PORT) \
		tests/interop/run-interop.sh $(INTEROP_OURS_DIR) $(INTEROP_DIR) $(INTEROP_CASES)

clean-interop:
	rm -rf $(INTEROP_BUILD)/interop

CHECK_TARGETS += check-interop
