# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpmem-bench/rpmem-bench.mk -- the cost of librpmem's compatibility
# layer over the framework; included by the top-level Makefile (GNU make):
#   make bench-rpmem              rpmem_persist() beside the framework's write +
#                                 persist, 64 B, 4 KiB, 64 KiB, default and relaxed,
#                                 1 and 4 threads (BENCH_RPMEM_ARGS adds options:
#                                 -s SECONDS a point, -R ROUNDS: medians of that
#                                 many rounds, the paths in turn, -T THREADS,
#                                 -z SIZES)
#   make bench-rpmem-callgrind    instructions per rpmem_persist() and per
#                                 framework write + persist under callgrind,
#                                 64 B, 4 KiB, 64 KiB (BENCH_RPMEM_OPS a phase;
#                                 profiles in build/tools/rpmem-callgrind)
#   make check-bench-rpmem-smoke  every point for 0.1 s: it must exit 0 and print
#                                 its table (figures are never checked)

RPMEM_BENCH := $(BUILD)/tools/rpmem-bench
BENCH_RPMEM_ARGS ?=

.PHONY: rpmem-bench bench-rpmem bench-rpmem-callgrind check-bench-rpmem-smoke

rpmem-bench: $(RPMEM_BENCH)

$(RPMEM_BENCH): tools/rpmem-bench/rpmem-bench.c librpmem/include/librpmem.h $(RPMAF_PUBLIC_HDRS) \
		$(LIBRPMEM_SO) $(RPMAF_SO) $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Irpmaf/include -Ilibrpmem/include -o $@ $< $(LIB_LDFLAGS) \
		-lrpmem -lrpmaf -lrpma -pthread

bench-rpmem: $(RPMEM_BENCH) $$(RPMEMD_BIN) softrdma
	@tools/rpmem-bench/bench-rpmem.sh $(RPMEM_BENCH) $(RPMEMD_BIN) $(BENCH_RPMEM_ARGS)

bench-rpmem-callgrind: $(RPMEM_BENCH) $$(RPMEMD_BIN) softrdma
	@BENCH_RPMEM_CALLGRIND=$(BUILD)/tools/rpmem-callgrind tools/rpmem-bench/bench-rpmem.sh \
		$(RPMEM_BENCH) $(RPMEMD_BIN) $(BENCH_RPMEM_ARGS)

check-bench-rpmem-smoke: $(RPMEM_BENCH) $$(RPMEMD_BIN) softrdma
	@BENCH_RPMEM_PORT=18971 timeout 120 tools/rpmem-bench/bench-rpmem.sh $(RPMEM_BENCH) \
		$(RPMEMD_BIN) -s 0.1 -T 1,2 | tee $(BUILD)/tools/rpmem-bench-smoke.txt
	@test "$$(grep -c '^| [0-9]' $(BUILD)/tools/rpmem-bench-smoke.txt)" -eq 12

CHECK_SLOW_TARGETS += check-bench-rpmem-smoke
