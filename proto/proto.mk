# SPDX-License-Identifier: BSD-3-Clause
#
# proto/proto.mk -- the control protocol module of librpmaf (message codec, session
# state machines, authentication, flow control, heartbeats; mk/module.mk): its tests
# and its fuzzing, included by the top-level Makefile (GNU make):
#   make check-proto        the cmocka tests of tests/unit/proto/, built with gcc
#                           (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-proto     line coverage of proto/*.c from the gcc run
#   make fuzz-proto         build/fuzz/fuzz_proto (libFuzzer): every parser of the
#                           protocol on the same bytes
#   make check-fuzz-proto   run it for FUZZ_CHECK_SECONDS; make fuzz-run-proto SECONDS=N
#   make proto-seeds        write the seed corpus fuzz/corpus/fuzz_proto/ again (check-proto
#                           fails while it is not current)
#
# Each tests/unit/proto/test_*.c is one program, linked with the other .c
# files of that directory and with proto/*.c compiled in.

MODULE := proto
MODULE_LIB := rpmaf
MODULE_CFLAGS := -Iproto
MODULE_LIBS := -lsodium
MODULE_UNIT_CFLAGS := -Itests/support -DPROTO_TOP_DIR='"$(abspath .)"'
# the tests and the harness count allocations, to show that the codec makes none
# (tests/support/count_alloc.c)
MODULE_UNIT_HELPERS := tests/support/count_alloc.c
MODULE_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
MODULE_CHECK := check-proto
MODULE_FUZZ := proto
MODULE_FUZZ_SRCS := $(sort $(wildcard proto/*.c)) tests/support/count_alloc.c
MODULE_FUZZ_CFLAGS := -Iproto -Itests/support
MODULE_FUZZ_DEPS := tests/support/count_alloc.h
MODULE_FUZZ_LIBS := -lsodium -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
include mk/module.mk

.PHONY: proto-seeds

# the seed corpus, written by the test that checks it is current (test_seeds.c)
proto-seeds: $(BUILD)/proto/unit/test_seeds
	rm -rf fuzz/corpus/fuzz_proto && mkdir -p fuzz/corpus/fuzz_proto
	PROTO_WRITE_SEEDS=fuzz/corpus/fuzz_proto $<
