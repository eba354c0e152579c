# SPDX-License-Identifier: BSD-3-Clause
#
# tests/librpmem/pmemobj.mk -- Debian's libpmemobj, unchanged, with a remote
# replica on rpmemd through our librpmem.so.1, over softrdma. Included by the
# top-level Makefile (GNU make):
#   make check-librpmem-pmemobj   tests/librpmem/test-libpmemobj.sh with the
#                                 program tests/librpmem/pmemobj_replica.c
# It needs the Debian packages libpmemobj-dev (and its libpmemobj1) and
# pmdk-tools (pmempool); without them it fails, saying so.

PMEMOBJ_TEST_BIN := $(BUILD)/librpmem/pmemobj_replica
PMEMOBJ_TEST_MISSING := check-librpmem-pmemobj: libpmemobj.h not found: \
	install the Debian package libpmemobj-dev (tools/install-deps.sh)

$(PMEMOBJ_TEST_BIN): tests/librpmem/pmemobj_replica.c
	@mkdir -p $(@D)
	@echo '#include <libpmemobj.h>' | $(CC) -E -x c - >/dev/null 2>&1 || \
		{ echo "$(PMEMOBJ_TEST_MISSING)" >&2; exit 1; }
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -o $@ $< -lpmemobj -pthread

.PHONY: check-librpmem-pmemobj

check-librpmem-pmemobj: $(PMEMOBJ_TEST_BIN) rpmemd librpmem softrdma
	@tests/librpmem/test-libpmemobj.sh $(PMEMOBJ_TEST_BIN) $(RPMEMD_BIN)

CHECK_TARGETS += check-librpmem-pmemobj
