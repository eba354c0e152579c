# SPDX-License-Identifier: BSD-3-Clause
#
# tests/integration/librpmem/librpmem-test.mk -- librpmem.so.1 against rpmemd
# over softrdma; included by the top-level Makefile (GNU make) after
# tools/rpmemd/rpmemd.mk and librpmem/librpmem.mk, whose RPMEMD_BIN,
# LIBRPMEM_SO and RPMAF_SO it uses:
#   make check-librpmem-integration   build the cmocka program test_librpmem.c
#                                     and run it under tools/softrdma-run
#
# The program starts build/tools/rpmemd itself, one daemon per group on the
# ports 17670 to 17676, with configurations in a directory of its own under
# /tmp (TMPDIR), which it removes; it kills and restarts the daemon. It talks
# to the daemon through librpmem (build/lib/librpmem.so) and, for malformed
# requests, through the framework (librpmaf) with the request codec
# (librpmem/rpmem_proto.c) compiled in; the codec's bounded readers
# (proto/wire.c, proto/status.c) are librpmaf's own objects (RPMAF_INTERNAL_LIBS).

LIBRPMEM_IT_SRC := tests/integration/librpmem/test_librpmem.c
LIBRPMEM_IT_BIN := $(BUILD)/librpmem-integration/test_librpmem
LIBRPMEM_IT_CFLAGS := $(CFLAGS_BASE) -Ilibrpmem/include -Ilibrpmem -Irpmaf/include \
	-DRPMEMD_PATH='"$(abspath $(RPMEMD_BIN))"'
# seconds the program may run (about 10 s alone)
LIBRPMEM_IT_TIMEOUT ?= 120

$(LIBRPMEM_IT_BIN): $(LIBRPMEM_IT_SRC) librpmem/include/librpmem.h librpmem/rpmem_proto.c \
		librpmem/rpmem_proto.h proto/wire.h proto/status.h $(RPMAF_PUBLIC_HDRS) $(LIBRPMEM_SO) \
		$(RPMAF_SO) $(RPMAF_A) $(BUILD)/rpmaf/exported $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(LIBRPMEM_IT_CFLAGS) $(CFLAGS) -o $@ $(LIBRPMEM_IT_SRC) librpmem/rpmem_proto.c \
		$(LIB_LDFLAGS) -lrpmem $(RPMAF_INTERNAL_LIBS) -lrpma -lcmocka -pthread
	@$(call rpmaf_internal_check,$@)

.PHONY: check-librpmem-integration

check-librpmem-integration: $(LIBRPMEM_IT_BIN) $(RPMEMD_BIN) softrdma
	@TEST_TIMEOUT=$(LIBRPMEM_IT_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run \
		tools/run-tests.sh librpmem-integration $(LIBRPMEM_IT_BIN)

CHECK_TARGETS += check-librpmem-integration
CLEAN_DIRS += $(BUILD)/librpmem-integration
