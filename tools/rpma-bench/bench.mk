# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpma-bench/bench.mk -- librpma against Debian's librpma 1.2.0, over
# softrdma. GNU make fragment, included by the top-level Makefile (or used as
# make -f Makefile -f tools/rpma-bench/bench.mk TARGET):
#   make bench            build both benchmarks, run them one after the other
#                         and print a side-by-side table with the ratio
#   make bench-callgrind  a short fixed workload of each under callgrind:
#                         instructions per op inside the librpma shared object
#   make bench-bins       only build build/bench/rpma-bench-{ours,debian}
#
# One source, built twice: rpma-bench-ours against librpma/include and
# build/lib, rpma-bench-debian against the Debian packages unpacked (never
# installed) into build/debian-librpma by tools/debian-librpma.sh.

BENCH_CFLAGS := -std=gnu11 -D_GNU_SOURCE -g $(WARN) $(CFLAGS)
BENCH_ADDR ?= 127.0.0.1
BENCH_PORT ?= 7471
BENCH_SECONDS ?= 2
BENCH_WARMUP ?= 1000
BENCH_ROUNDS ?= 3
BENCH_ARGS ?=
BENCH_CG_OPS ?= 2000
BENCH_CG_WARMUP ?= 200

BENCH_SRC := tools/rpma-bench/rpma-bench.c
BENCH_DIR := $(BUILD)/bench
BENCH_OURS := $(BENCH_DIR)/rpma-bench-ours
BENCH_DEBIAN := $(BENCH_DIR)/rpma-bench-debian
BENCH_OURS_LIBDIR := $(BUILD)/lib
BENCH_OURS_LIB := $(LIB_SO)
BENCH_DEB_ROOT := $(BUILD)/debian-librpma
BENCH_DEB_STAMP := $(BENCH_DEB_ROOT)/.unpacked
BENCH_DEB_INC := $(BENCH_DEB_ROOT)/usr/include
BENCH_DEB_LIBDIR := $(BENCH_DEB_ROOT)/usr/lib/x86_64-linux-gnu
BENCH_LDLIBS := -lrpma -libverbs -ldl
BENCH_ENV := BENCH_ADDR=$(BENCH_ADDR) BENCH_PORT=$(BENCH_PORT) BENCH_SECONDS=$(BENCH_SECONDS) \
	BENCH_WARMUP=$(BENCH_WARMUP) BENCH_ROUNDS=$(BENCH_ROUNDS) BENCH_ARGS='$(BENCH_ARGS)' BENCH_CG_OPS=$(BENCH_CG_OPS) \
	BENCH_CG_WARMUP=$(BENCH_CG_WARMUP) BENCH_DIR=$(BENCH_DIR)

.PHONY: bench bench-bins bench-callgrind bench-debian-librpma

bench-bins: $(BENCH_OURS) $(BENCH_DEBIAN)

# ours: our header, our library, and a run path to it
$(BENCH_OURS): $(BENCH_SRC) librpma/include/librpma.h $(BENCH_OURS_LIB)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Ilibrpma/include -o $@ $< \
		-L$(BENCH_OURS_LIBDIR) -Wl,-rpath,$(abspath $(BENCH_OURS_LIBDIR)) $(BENCH_LDLIBS)

# Debian's: only the unpacked tree's header and library are on the paths
$(BENCH_DEBIAN): $(BENCH_SRC) $(BENCH_DEB_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -I$(BENCH_DEB_INC) -o $@ $< \
		-L$(BENCH_DEB_LIBDIR) -Wl,-rpath,$(abspath $(BENCH_DEB_LIBDIR)) $(BENCH_LDLIBS)

$(BENCH_DEB_STAMP): tools/debian-librpma.sh
	tools/debian-librpma.sh $(BUILD) >/dev/null

bench-debian-librpma: $(BENCH_DEB_STAMP)

bench: bench-bins softrdma
	@$(BENCH_ENV) tools/rpma-bench/compare.sh run $(BENCH_OURS) $(BENCH_DEBIAN)

bench-callgrind: bench-bins softrdma
	@$(BENCH_ENV) tools/rpma-bench/compare.sh callgrind $(BENCH_OURS) $(BENCH_DEBIAN)
