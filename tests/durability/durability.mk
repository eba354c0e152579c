# SPDX-License-Identifier: BSD-3-Clause
#
# tests/durability/durability.mk -- what a power cut leaves of acknowledged
# persistent writes, included by the top-level Makefile (GNU make):
#   make check-durability   rpma-server under the interposer of
#                           tests/durability/shadow.c (the region file's "disk":
#                           only what msync/fsync made durable), rpma-load
#                           --verify --journal, SIGKILL, the shadow checked
#                           (tests/durability/test-power-loss.sh; doc/DURABILITY.md)

DURABILITY_SHADOW := $(BUILD)/tests/durability/libshadow.so

.PHONY: check-durability

$(DURABILITY_SHADOW): tests/durability/shadow.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -fPIC -shared -o $@ $< -ldl -pthread

check-durability: $(DURABILITY_SHADOW) $(RPMA_SERVER_BIN) $(RPMA_LOAD_BIN) softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tests/durability/test-power-loss.sh $(RPMA_SERVER_BIN) \
		$(RPMA_LOAD_BIN) $(DURABILITY_SHADOW)

CHECK_TARGETS += check-durability
