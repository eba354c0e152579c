# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpmemd/rpmemd.mk -- rpmemd, the target side of librpmem: its pool set
# file (poolset.c), the PMDK part header (pool_hdr.c) and the pool on disk,
# mapped with libpmem2 (pool.c). Included by the top-level Makefile (GNU make):
#   make check-rpmemd-unit      the cmocka tests of tests/unit/rpmemd/, built with gcc
#                               (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-rpmemd        line coverage of the sources from the gcc run (a figure)
#   make fuzz-poolset           build/fuzz/fuzz_poolset (libFuzzer): the set file parser
#                               and the header decoder
#   make check-fuzz-poolset     run it for FUZZ_CHECK_SECONDS on fuzz/corpus/fuzz_poolset/;
#                               make fuzz-run-poolset SECONDS=N for longer
#   make check-rpmemd           the daemon program: usage, bad configurations, a port
#                               taken, SIGTERM and SIGINT (tools/rpmemd/test-rpmemd.sh)
#   make check-rpmemd-pmempool  part files written by this code, read by Debian's
#                               pmempool (package pmdk-tools): tests/rpmemd/test-pmempool.sh
#
# Each tests/unit/rpmemd/test_*.c is one program, linked with the other .c
# files of that directory and with the sources compiled in.

# the file formats (no library needed: the fuzzer and write-parts take these), and the pool
RPMEMD_LIB_SRCS := tools/rpmemd/poolset.c tools/rpmemd/pool_hdr.c
RPMEMD_POOL_SRCS := tools/rpmemd/pool.c tools/rpmemd/beneath.c tools/rpmemd/errmsg.c
RPMEMD_POOL_LIBS := -lpmem2
RPMEMD_UNIT_SRCS := $(RPMEMD_LIB_SRCS) $(RPMEMD_POOL_SRCS)
RPMEMD_HDRS := $(wildcard tools/rpmemd/*.h)
RPMEMD_CFLAGS := $(CFLAGS_BASE) -Itools/rpmemd

MODULE := rpmemd
MODULE_SRCS := $(RPMEMD_LIB_SRCS)
MODULE_HDRS := $(RPMEMD_HDRS)
MODULE_CFLAGS := -Itools/rpmemd
MODULE_UNIT_SRCS := $(RPMEMD_UNIT_SRCS)
MODULE_UNIT_HELPERS := tests/support/fail_alloc.c
MODULE_UNIT_CFLAGS := -Itests/support
MODULE_UNIT_LIBS := $(RPMEMD_POOL_LIBS)
# the tests make allocations fail on purpose (tests/support/fail_alloc.c)
MODULE_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
# the set file parser and the header decoder
MODULE_FUZZ := poolset
include mk/module.mk

.PHONY: check-rpmemd-pmempool

# part files of each shape of set, written by this code, read by Debian's pmempool
RPMEMD_PARTS_BIN := $(BUILD)/rpmemd/write-parts

$(RPMEMD_PARTS_BIN): tests/rpmemd/write_parts.c $(RPMEMD_LIB_SRCS) $(RPMEMD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_CFLAGS) $(CFLAGS) -o $@ $< $(RPMEMD_LIB_SRCS)

check-rpmemd-pmempool: $(RPMEMD_PARTS_BIN)
	@tests/rpmemd/test-pmempool.sh $(RPMEMD_PARTS_BIN)

# the daemon: the pool files above, served through the framework (daemon.c, rpmemd.c);
# the codec's bounded readers (proto/wire.c, proto/status.c) and the log's time
# (workers/wtime.c) are librpmaf's own objects, linked from RPMAF_INTERNAL_LIBS
RPMEMD_BIN := $(BUILD)/tools/rpmemd
RPMEMD_DAEMON_SRCS := tools/rpmemd/rpmemd.c tools/rpmemd/daemon.c tools/common/service.c \
	librpmem/rpmem_proto.c $(RPMEMD_LIB_SRCS) $(RPMEMD_POOL_SRCS)

.PHONY: rpmemd
rpmemd: $(RPMEMD_BIN)

# the same program for make install, linked again with INSTALL_LDFLAGS
RPMEMD_INSTALL := $(INSTALL_GEN)/bin/rpmemd
INSTALL_BINS += $(RPMEMD_INSTALL)
$(RPMEMD_INSTALL): $(INSTALL_RPATH_STAMP)

$(RPMEMD_BIN) $(RPMEMD_INSTALL): $(RPMEMD_DAEMON_SRCS) $(RPMEMD_HDRS) librpmem/rpmem_proto.h \
		tools/common/service.h workers/wtime.h proto/wire.h proto/status.h \
		$(RPMAF_PUBLIC_HDRS) $(VERSION_H) $(RPMAF_SO) $(RPMAF_A) $(BUILD)/rpmaf/exported $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(RPMEMD_CFLAGS) $(CFLAGS) -Irpmaf/include -Iworkers -I$(dir $(VERSION_H)) -Ilibrpmem \
		-o $@ $(RPMEMD_DAEMON_SRCS) $(LIB_LDFLAGS) $(RPMAF_INTERNAL_LIBS) -lrpma \
		$(RPMEMD_POOL_LIBS) -pthread
	@$(call rpmaf_internal_check,$@)

# the program: usage, bad configurations, a port taken, SIGTERM and SIGINT
.PHONY: check-rpmemd
check-rpmemd: $(RPMEMD_BIN) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpmemd/test-rpmemd.sh $(RPMEMD_BIN)

CHECK_TARGETS += check-rpmemd-pmempool check-rpmemd
