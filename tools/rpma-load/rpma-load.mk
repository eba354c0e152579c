# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpma-load/rpma-load.mk -- the framework's load generator, included by
# the top-level Makefile (GNU make):
#   make rpma-load             build/tools/rpma-load, linked with build/lib/librpmaf.so
#   make check-rpma-load       its tests over softrdma (tools/rpma-load/test-rpma-load.sh)
#   make fuzz-workload         build/fuzz/fuzz_workload (libFuzzer) of the workload parser
#   make check-fuzz-workload   run it for FUZZ_CHECK_SECONDS on fuzz/corpus/fuzz_workload/
#   make fuzz-vfile            build/fuzz/fuzz_vfile (libFuzzer) of --verify-file's readers:
#                              the journal and the region file (check-fuzz-vfile runs it)
#   make rpma-load-fuzz-seeds  write fuzz/corpus/fuzz_vfile/real-* again from a real run
#                              (tools/rpma-load/fuzz-seeds.sh)
#   make check-rpma-load-tsan  rpma-load, the framework and librpma on ThreadSanitizer
#                              against rpma-server (tools/rpma-load/test-rpma-load-tsan.sh)
#   make bench-service         rpma-load against rpma-server beside rpma-bench on bare
#                              librpma, case by case (tools/rpma-load/bench-service.sh;
#                              knobs BENCH_SERVICE_ARGS, e.g. "-t 2 -r 3 -m busy")
#
# The workload parser reuses config/'s document tree, diagnostics and
# overrides, and the tool stats/'s latency histogram: it links them from
# librpmaf's own objects (RPMAF_INTERNAL_LIBS, rpmaf/rpmaf.mk), compiled once;
# the ThreadSanitizer build and the harness compile them with their flags.

RPMA_LOAD_BIN := $(BUILD)/tools/rpma-load
RPMA_LOAD_PARSE_SRCS := tools/rpma-load/wmap.c tools/rpma-load/workload.c
RPMA_LOAD_CONFIG_SRCS := $(addprefix config/,diag.c doc.c text.c scalar.c override.c path.c keypath.c)
RPMA_LOAD_SRCS := $(filter-out $(RPMA_LOAD_PARSE_SRCS),$(sort $(wildcard tools/rpma-load/*.c))) \
	$(RPMA_LOAD_PARSE_SRCS)
RPMA_LOAD_HDRS := $(wildcard tools/rpma-load/*.h) $(wildcard config/*.h) stats/hist.h \
	$(RPMAF_PUBLIC_HDRS) $(VERSION_H)
RPMA_LOAD_CFLAGS := -Irpmaf/include -Iconfig -Istats -Itools/rpma-load -I$(dir $(VERSION_H))

.PHONY: rpma-load check-rpma-load bench-service \
	check-bench-service-smoke check-rpma-load-tsan

rpma-load: $(RPMA_LOAD_BIN)

# the same program for make install, linked again with INSTALL_LDFLAGS
RPMA_LOAD_INSTALL := $(INSTALL_GEN)/bin/rpma-load
INSTALL_BINS += $(RPMA_LOAD_INSTALL)
$(RPMA_LOAD_INSTALL): $(INSTALL_RPATH_STAMP)

$(RPMA_LOAD_BIN) $(RPMA_LOAD_INSTALL): $(RPMA_LOAD_SRCS) $(RPMA_LOAD_HDRS) $(RPMAF_SO) $(RPMAF_A) \
		$(BUILD)/rpmaf/exported $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) $(RPMA_LOAD_CFLAGS) -o $@ $(RPMA_LOAD_SRCS) \
		$(LIB_LDFLAGS) $(RPMAF_INTERNAL_LIBS) -lrpma -lyaml -lsodium -lm -pthread
	@$(call rpmaf_internal_check,$@)

check-rpma-load: $(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpma-load/test-rpma-load.sh $(RPMA_LOAD_BIN) \
		$(RPMA_SERVER_BIN)

BENCH_SERVICE_ARGS ?=
bench-service: $(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) $(BENCH_OURS) softrdma
	@tools/rpma-load/bench-service.sh -b $(BUILD) $(BENCH_SERVICE_ARGS)

# the benchmark's plumbing, in short cases of one round: every one of the 24
# rows has figures and ratios, and each of the 4 goals a verdict
check-bench-service-smoke: $(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) $(BENCH_OURS) softrdma
	@out=$$(tools/rpma-load/bench-service.sh -b $(BUILD) -t 0.2 -r 1 \
		-p $$((18000 + $$$$ % 9000))) || { echo "$$out"; exit 1; }; \
	rows=$$(echo "$$out" | grep -cE '^\| (write_persist|read|call) \| [0-9]+ \| [0-9]+ \| [12] \| [1-9][0-9]* \| [0-9.]+ \| [1-9][0-9]* \| [0-9.]+ \| [0-9]+\.[0-9]+ \| [0-9]+\.[0-9]+ \|$$'); \
	goals=$$(echo "$$out" | grep -cE '^goal .*: (met|not met) \(worst [0-9.]+'); \
	if [ "$$rows" != 24 ] || [ "$$goals" != 4 ]; then echo "$$out"; \
		echo "bench-service smoke: $$rows of 24 rows with figures, $$goals of 4 goals"; exit 1; fi; \
	echo "PASS bench-service smoke: 24 rows, 4 goals"

# the tool with every framework module and librpma on ThreadSanitizer
RPMA_LOAD_TSAN := $(BUILD)/tools/tsan/rpma-load

$(RPMA_LOAD_TSAN): $(RPMA_LOAD_SRCS) $(RPMA_LOAD_HDRS) $(RPMAF_SRCS) $(RPMAF_HDRS) $(MT_LIB)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_BASE) -O1 $(TSAN_FLAGS) $(RPMA_LOAD_CFLAGS) -o $@ $(RPMA_LOAD_SRCS) \
		$(RPMAF_SRCS) $(MT_LIB) -libverbs -lrdmacm -pthread $(POOL_TSAN_LIBS) -lm

check-rpma-load-tsan: $(RPMA_LOAD_TSAN) $$(RPMA_SERVER_BIN) $(POOL_TSAN_SUPP) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 TSAN_SUPP=$(abspath $(POOL_TSAN_SUPP)) \
		tools/rpma-load/test-rpma-load-tsan.sh $(RPMA_LOAD_TSAN) $(RPMA_SERVER_BIN)

# the harnesses (mk/module.mk): the workload parser, and --verify-file's readers of
# the journal and the region file, with the tool's own code
RPMA_LOAD_VFILE_SRCS := $(addprefix tools/rpma-load/,journal.c record.c vfile.c)

MODULE := rpma-load
MODULE_HDRS := $(RPMA_LOAD_HDRS)
MODULE_CFLAGS := $(RPMA_LOAD_CFLAGS)
MODULE_FUZZ := workload vfile
MODULE_FUZZ_SRCS_workload := $(RPMA_LOAD_PARSE_SRCS) $(RPMA_LOAD_CONFIG_SRCS)
MODULE_FUZZ_LIBS_workload := -lyaml
MODULE_FUZZ_SRCS_vfile := $(RPMA_LOAD_VFILE_SRCS)
MODULE_FUZZ_LIBS_vfile := -pthread
include mk/module.mk

.PHONY: rpma-load-fuzz-seeds
rpma-load-fuzz-seeds: $(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) softrdma
	@tools/rpma-load/fuzz-seeds.sh $(RPMA_LOAD_BIN) $(RPMA_SERVER_BIN) fuzz/corpus/fuzz_vfile

CHECK_TARGETS += check-rpma-load
CHECK_SLOW_TARGETS += check-bench-service-smoke check-rpma-load-tsan
