# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpmaf-bench/rpmaf-bench.mk -- the benchmark of librpmaf's workers
# against bare librpma, over softrdma; included by the top-level Makefile
# (GNU make):
#   make rpmaf-bench      build build/rpmaf-bench/rpmaf-bench
#   make bench-rpmaf      run "scale" and "threads" with their defaults and
#                         print both tables (RPMAF_BENCH_SCALE_ARGS and
#                         RPMAF_BENCH_THREADS_ARGS add options)
#   make bench-rpmaf-callgrind   "overhead" under callgrind: instructions
#                         per operation of the pool and of bare librpma
#                         (RPMAF_BENCH_CG_OPS operations a phase; profiles
#                         in build/rpmaf-bench/callgrind)
#   make check-rpmaf-bench-smoke   each mode for N = 1 and 10, 0.3 s a point,
#                         overhead with 10 operations and 100 at depth 32:
#                         each must exit 0 and
#                         print its table (figures are never checked)
#
# The program uses librpmaf's public API only: it links with
# build/lib/librpmaf.so and build/lib/librpma.so.

RPMAF_BENCH_SRCS := $(sort $(wildcard tools/rpmaf-bench/*.c))
RPMAF_BENCH_HDRS := $(wildcard tools/rpmaf-bench/*.h)
RPMAF_BENCH_LIBS := -lrpmaf -lrpma -libverbs -lrdmacm -pthread
RPMAF_BENCH := $(BUILD)/rpmaf-bench/rpmaf-bench
RPMAF_BENCH_SCALE_ARGS ?=
RPMAF_BENCH_THREADS_ARGS ?=
RPMAF_BENCH_CG_OPS ?= 20000
RPMAF_BENCH_CG_DEPTH ?= 1
# seconds one mode of the smoke test may take (about 5 s alone)
RPMAF_BENCH_SMOKE_TIMEOUT ?= 120

.PHONY: rpmaf-bench bench-rpmaf bench-rpmaf-callgrind check-rpmaf-bench-smoke

rpmaf-bench: $(RPMAF_BENCH)

$(RPMAF_BENCH): $(RPMAF_BENCH_SRCS) $(RPMAF_BENCH_HDRS) $(RPMAF_PUBLIC_HDRS) $(RPMAF_SO) \
		$(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Irpmaf/include -o $@ $(RPMAF_BENCH_SRCS) $(LIB_LDFLAGS) \
		$(RPMAF_BENCH_LIBS)

# both modes, the second even when the first failed; fails when either did
bench-rpmaf: $(RPMAF_BENCH) softrdma
	@failed=0; \
	tools/softrdma-run $(RPMAF_BENCH) scale $(RPMAF_BENCH_SCALE_ARGS) || failed=1; \
	echo; \
	tools/softrdma-run $(RPMAF_BENCH) threads $(RPMAF_BENCH_THREADS_ARGS) || failed=1; \
	exit $$failed

bench-rpmaf-callgrind: $(RPMAF_BENCH) softrdma
	@tools/softrdma-run tools/rpmaf-bench/callgrind.sh $(RPMAF_BENCH) $(RPMAF_BENCH_CG_OPS) \
		$(BUILD)/rpmaf-bench/callgrind $(RPMAF_BENCH_CG_DEPTH)

check-rpmaf-bench-smoke: $(RPMAF_BENCH) softrdma
	@TIMEOUT=$(RPMAF_BENCH_SMOKE_TIMEOUT) tools/rpmaf-bench/smoke.sh $(RPMAF_BENCH)

CHECK_TARGETS += check-rpmaf-bench-smoke
CLEAN_DIRS += $(BUILD)/rpmaf-bench
