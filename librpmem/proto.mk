# SPDX-License-Identifier: BSD-3-Clause
#
# librpmem/proto.mk -- the codec of the payloads librpmem and rpmemd exchange
# (librpmem/rpmem_proto.c, doc/RPMEM-PROTOCOL.md), shared by the library and
# the daemon: its tests and its fuzzing. Included by the top-level Makefile
# (GNU make):
#   make check-rpmem-proto-unit   the cmocka tests of tests/unit/librpmem/test_rpmem_proto.c,
#                                 built with gcc (gcov) and with clang AddressSanitizer+UBSan,
#                                 run both
#   make coverage-rpmem-proto     line coverage of rpmem_proto.c from the gcc run (a figure)
#   make fuzz-rpmem-proto         build/fuzz/fuzz_rpmem_proto (libFuzzer)
#   make check-fuzz-rpmem-proto   run it for FUZZ_CHECK_SECONDS on fuzz/corpus/fuzz_rpmem_proto/;
#                                 make fuzz-run-rpmem-proto SECONDS=N for longer
#   make rpmem-proto-seeds        write fuzz/corpus/fuzz_rpmem_proto/ again from the test's samples
#                                 (check-rpmem-proto-unit fails while it is not current)

# the bounded readers are the framework's (proto/wire.c, with its messages in proto/status.c)
RPMEM_PROTO_SRCS := librpmem/rpmem_proto.c proto/wire.c proto/status.c

MODULE := rpmem-proto
MODULE_SRCS := $(RPMEM_PROTO_SRCS)
MODULE_HDRS := librpmem/rpmem_proto.h proto/wire.h proto/status.h
MODULE_CFLAGS := -Ilibrpmem
MODULE_UNIT_TESTS := tests/unit/librpmem/test_rpmem_proto.c
MODULE_UNIT_CFLAGS := -DRPMEM_PROTO_TOP_DIR='"$(abspath .)"'
MODULE_FUZZ := rpmem-proto
include mk/module.mk

RPMEM_PROTO_UNIT_BIN := $(rpmem-proto_UNIT_BINS)

.PHONY: rpmem-proto-seeds

rpmem-proto-seeds: $(RPMEM_PROTO_UNIT_BIN)
	@mkdir -p fuzz/corpus/fuzz_rpmem_proto
	@RPMEM_PROTO_WRITE_SEEDS=$(abspath fuzz/corpus/fuzz_rpmem_proto) $(RPMEM_PROTO_UNIT_BIN) >/dev/null
	@echo "fuzz/corpus/fuzz_rpmem_proto: $$(ls fuzz/corpus/fuzz_rpmem_proto | wc -l) seeds"

CHECK_TARGETS += coverage-rpmem-proto
