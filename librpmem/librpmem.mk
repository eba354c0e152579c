# SPDX-License-Identifier: BSD-3-Clause
#
# librpmem/librpmem.mk -- librpmem.so.1, PMDK's remote pool API on the
# framework (librpmem/src/, the request codec librpmem/rpmem_proto.c shared
# with rpmemd); included by the top-level Makefile (GNU make):
#   make librpmem        build/lib/librpmem.so.1 (and .a, librpmem.pc)
#   make check-librpmem-symbols   exactly the header's functions, all LIBRPMEM_1.0
#   make check-librpmem-unit      tests/unit/librpmem/test_target.c: target strings,
#                        per-thread errors, errno mapping (gcc, and clang ASan+UBSan)
#   make fuzz-rpmem-target        build/fuzz/fuzz_rpmem_target (libFuzzer) of the target
#                        parser (check-fuzz-rpmem-target runs it)
# make install takes the libraries, librpmem.h and librpmem.pc (the INSTALL_* lists
# of the top-level Makefile, which finds the man pages itself).

LIBRPMEM_VERSION := 1.0.0
# the pkg-config version: PMDK's release whose librpmem ABI (API 1.3) this one has,
# so that a program's check written for PMDK's librpmem.pc holds
LIBRPMEM_PC_VERSION := 1.11.0
LIBRPMEM_SONAME := librpmem.so.1
# the codec's bounded readers (proto/wire.c, proto/status.c) are librpmaf's own
# objects: position-independent (rpmaf/rpmaf.mk compiles them -fPIC), linked from
# librpmaf.a (RPMAF_INTERNAL_LIBS) into the library, hidden by its version script
LIBRPMEM_SRCS := $(sort $(wildcard librpmem/src/*.c)) librpmem/rpmem_proto.c
LIBRPMEM_HDRS := $(wildcard librpmem/src/*.h) librpmem/rpmem_proto.h \
	librpmem/include/librpmem.h $(RPMAF_PUBLIC_HDRS) proto/wire.h proto/status.h
LIBRPMEM_CFLAGS := $(CFLAGS_BASE) -Ilibrpmem/include -Ilibrpmem -Irpmaf/include
LIBRPMEM_OBJ := $(BUILD)/librpmem/obj
LIBRPMEM_OBJS := $(patsubst %.c,$(LIBRPMEM_OBJ)/%.o,$(LIBRPMEM_SRCS))
LIBRPMEM_SO := $(BUILD)/lib/librpmem.so.$(LIBRPMEM_VERSION)
LIBRPMEM_A := $(BUILD)/lib/librpmem.a
LIBRPMEM_PC := $(BUILD)/lib/librpmem.pc

.PHONY: librpmem check-librpmem-symbols

all: librpmem

librpmem: $(LIBRPMEM_SO) $(LIBRPMEM_A) $(LIBRPMEM_PC)

$(LIBRPMEM_OBJ)/%.o: %.c $(LIBRPMEM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBRPMEM_CFLAGS) $(CFLAGS) -fPIC -c $< -o $@

# libpmemobj dlopen()s librpmem.so.1: it finds librpmaf and librpma beside itself
$(LIBRPMEM_SO): $(LIBRPMEM_OBJS) librpmem/src/librpmem.map $(RPMAF_SO) $(RPMAF_A) \
		$(BUILD)/rpmaf/exported $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIBRPMEM_SONAME) \
		-Wl,--version-script=librpmem/src/librpmem.map -Wl,--no-undefined \
		-Wl,-rpath,'$$ORIGIN' -o $@ $(LIBRPMEM_OBJS) -L$(BUILD)/lib $(RPMAF_INTERNAL_LIBS) \
		-lrpma -pthread
	@$(call rpmaf_internal_check,$@)
	ln -sf librpmem.so.$(LIBRPMEM_VERSION) $(BUILD)/lib/$(LIBRPMEM_SONAME)
	ln -sf $(LIBRPMEM_SONAME) $(BUILD)/lib/librpmem.so

$(LIBRPMEM_A): $(LIBRPMEM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBRPMEM_PC): librpmem/librpmem.pc.in librpmem/librpmem.mk
	@mkdir -p $(@D)
	$(call make_pc,$<,$@,$(LIBRPMEM_PC_VERSION))

# the twelve functions of librpmem.h, each under LIBRPMEM_1.0, nothing else
check-librpmem-symbols: $(LIBRPMEM_SO)
	@librpmem/check-symbols.sh $(LIBRPMEM_SO) librpmem/include/librpmem.h

# make install: the libraries, the header, the pkg-config file of the final directories
INSTALL_HEADERS += librpmem/include/librpmem.h
INSTALL_SHLIBS += $(LIBRPMEM_SO)
INSTALL_STLIBS += $(LIBRPMEM_A)
INSTALL_PCS += $(INSTALL_GEN)/pkgconfig/librpmem.pc

$(INSTALL_GEN)/pkgconfig/librpmem.pc: librpmem/librpmem.pc.in $(INSTALL_STAMP)
	@mkdir -p $(@D)
	$(call make_pc,$<,$@,$(LIBRPMEM_PC_VERSION))

# the unit test of the parts that need no connection (target.c and errmsg.c), and the
# harness of the target parser, with the per-thread message it sets
MODULE := librpmem
MODULE_SRCS := librpmem/src/target.c librpmem/src/errmsg.c
MODULE_HDRS := $(LIBRPMEM_HDRS)
MODULE_CFLAGS := -Ilibrpmem/include -Ilibrpmem -Irpmaf/include -Ilibrpmem/src
MODULE_LIBS := -pthread
MODULE_UNIT_TESTS := tests/unit/librpmem/test_target.c
MODULE_FUZZ := rpmem-target
include mk/module.mk

CHECK_TARGETS += check-librpmem-symbols
