# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpma-config/rpma-config.mk -- the configuration checker, included by
# the top-level Makefile (GNU make):
#   make rpma-config         build/tools/rpma-config, linked with build/lib/librpmaf.so
#   make check-rpma-config   its tests (tools/rpma-config/test-rpma-config.sh)

RPMA_CONFIG_BIN := $(BUILD)/tools/rpma-config

.PHONY: rpma-config check-rpma-config

rpma-config: $(RPMA_CONFIG_BIN)

# the same program for make install, linked again with INSTALL_LDFLAGS
RPMA_CONFIG_INSTALL := $(INSTALL_GEN)/bin/rpma-config
INSTALL_BINS += $(RPMA_CONFIG_INSTALL)
$(RPMA_CONFIG_INSTALL): $(INSTALL_RPATH_STAMP)

$(RPMA_CONFIG_BIN) $(RPMA_CONFIG_INSTALL): tools/rpma-config/rpma-config.c $(RPMAF_PUBLIC_HDRS) \
		$(VERSION_H) $(RPMAF_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Irpmaf/include -I$(dir $(VERSION_H)) -o $@ $< $(LIB_LDFLAGS) -lrpmaf

check-rpma-config: $(RPMA_CONFIG_BIN)
	@tools/rpma-config/test-rpma-config.sh $(RPMA_CONFIG_BIN)

CHECK_TARGETS += check-rpma-config
CLEAN_DIRS += $(BUILD)/tools
