# SPDX-License-Identifier: BSD-3-Clause
#
# librpmem/librpmem.mk -- librpmem.so.1, PMDK's remote pool API on the
# framework (librpmem/src/, the request codec librpmem/rpmem_proto.c shared
# with rpmemd); included by the top-level Makefile (GNU make):
#   make librpmem        build/lib/librpmem.so.1 (and .a, librpmem.pc)
#   make check-librpmem-symbols   exactly the header's functions, all LIBRPMEM_1.0

LIBRPMEM_VERSION := 1.0.0
LIBRPMEM_SONAME := librpmem.so.1
LIBRPMEM_SRCS := $(sort $(wildcard librpmem/src/*.c)) librpmem/rpmem_proto.c
LIBRPMEM_HDRS := $(wildcard librpmem/src/*.h) librpmem/rpmem_proto.h \
	librpmem/include/librpmem.h rpmaf/include/rpmaf.h
LIBRPMEM_CFLAGS := $(CFLAGS_BASE) -Ilibrpmem/include -Ilibrpmem -Irpmaf/include
LIBRPMEM_OBJ := $(BUILD)/librpmem/obj
LIBRPMEM_OBJS := $(patsubst %.c,$(LIBRPMEM_OBJ)/%.o,$(LIBRPMEM_SRCS))
LIBRPMEM_SO := $(BUILD)/lib/librpmem.so.$(LIBRPMEM_VERSION)
LIBRPMEM_PC := $(BUILD)/lib/librpmem.pc

.PHONY: librpmem check-librpmem-symbols

all: librpmem

librpmem: $(LIBRPMEM_SO) $(LIBRPMEM_PC)

$(LIBRPMEM_OBJ)/%.o: %.c $(LIBRPMEM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBRPMEM_CFLAGS) $(CFLAGS) -fPIC -c $< -o $@

# libpmemobj dlopen()s librpmem.so.1: it finds librpmaf and librpma beside itself
$(LIBRPMEM_SO): $(LIBRPMEM_OBJS) librpmem/src/librpmem.map $(RPMAF_SO) $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIBRPMEM_SONAME) \
		-Wl,--version-script=librpmem/src/librpmem.map -Wl,--no-undefined \
		-Wl,-rpath,'$$ORIGIN' -o $@ $(LIBRPMEM_OBJS) -L$(BUILD)/lib -lrpmaf -lrpma -pthread
	ln -sf librpmem.so.$(LIBRPMEM_VERSION) $(BUILD)/lib/$(LIBRPMEM_SONAME)
	ln -sf $(LIBRPMEM_SONAME) $(BUILD)/lib/librpmem.so

$(LIBRPMEM_PC): librpmem/librpmem.pc.in librpmem/librpmem.mk
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|1.3.0|' $< > $@

# the twelve functions of librpmem.h, each under LIBRPMEM_1.0, nothing else
check-librpmem-symbols: $(LIBRPMEM_SO)
	@librpmem/check-symbols.sh $(LIBRPMEM_SO) librpmem/include/librpmem.h

CHECK_TARGETS += check-librpmem-symbols
CLEAN_DIRS += $(BUILD)/librpmem
