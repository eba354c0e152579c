# SPDX-License-Identifier: BSD-3-Clause
#
# rpmaf/rpmaf.mk -- librpmaf, the rpma framework library, built from the
# sources of its modules; included by the top-level Makefile (GNU make):
#   make rpmaf                build/lib/librpmaf.so.1.3.0 (+ .so.1, .so), librpmaf.a, librpmaf.pc
#   make check-rpmaf-symbols  the library exports exactly the header's functions
#   make check-rpmaf-man      tools/check-man.sh: a page in rpmaf/man/man3 for every
#                             function of rpmaf.h and a function for every page,
#                             librpmaf(7) listing them all, every page rendering
#                             without warnings
# make install takes the libraries, rpmaf.h and librpmaf.pc (INSTALL_* lists).
#
# A module is a top-level directory whose *.c files go into the library: its .mk
# says MODULE_LIB := rpmaf (mk/module.mk), which adds its name to RPMAF_MODULES.
# This file is read before the modules, so what depends on the list is expanded
# late (= and $$).
#
# Tools that need the framework's internals (rpma-load's workload parser reuses
# config/'s document tree) link RPMAF_INTERNAL_LIBS: the shared library, then
# librpmaf.a, the same objects with every symbol, from which the linker takes only
# what the shared library does not export; nothing is compiled twice. Their link
# checks (rpmaf_internal_check) that the program defines none of the exported
# functions itself, which would stand in for the library's own.

RPMAF_MODULES :=
RPMAF_VERSION := 1.3.0
RPMAF_SONAME := librpmaf.so.1
RPMAF_SRCS = $(foreach m,$(RPMAF_MODULES),$(sort $(wildcard $(m)/*.c)))
# the public header and its parts, one a section (rpmaf/include/rpmaf/*.h)
RPMAF_PUBLIC_HDRS := rpmaf/include/rpmaf.h $(sort $(wildcard rpmaf/include/rpmaf/*.h))
RPMAF_HDRS = $(foreach m,$(RPMAF_MODULES),$(wildcard $(m)/*.h)) $(RPMAF_PUBLIC_HDRS)
RPMAF_CFLAGS := $(CFLAGS_BASE) -Irpmaf/include
# link-time optimization: the data path crosses modules (pool -> workers ->
# regtab -> stats) in calls that are inlined only at link time; the objects
# stay fat, so librpmaf.a links without it
RPMAF_LTO ?= -flto=auto -ffat-lto-objects
RPMAF_LIBS := -lyaml -lsodium -lpmem2 -lurcu-qsbr -lurcu-memb -lurcu-common -lurcu-cds -pthread -L$(BUILD)/lib -lrpma
RPMAF_OBJ := $(BUILD)/rpmaf/obj
RPMAF_OBJS = $(patsubst %.c,$(RPMAF_OBJ)/%.o,$(RPMAF_SRCS))
# the list of objects, written when it changes: a module or file taken away makes
# the libraries again too
RPMAF_OBJS_STAMP := $(BUILD)/rpmaf/objs
$(eval $(call stamp_rule,$(RPMAF_OBJS_STAMP),$$(RPMAF_OBJS)))

RPMAF_SO := $(BUILD)/lib/librpmaf.so.$(RPMAF_VERSION)
RPMAF_A := $(BUILD)/lib/librpmaf.a
RPMAF_PC := $(BUILD)/lib/librpmaf.pc

.PHONY: rpmaf check-rpmaf-symbols check-rpmaf-man

all: rpmaf

rpmaf: $(RPMAF_SO) $(RPMAF_A) $(RPMAF_PC)

$(RPMAF_OBJ)/%.o: %.c $$(RPMAF_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMAF_CFLAGS) $(CFLAGS) $(RPMAF_LTO) -fPIC -c $< -o $@

# librpmaf needs librpma: a program's run path does not reach a library's own
# dependencies, so librpmaf looks for librpma beside itself (build/lib, or the
# LIBDIR both are installed into)
$(RPMAF_SO): $$(RPMAF_OBJS) $(RPMAF_OBJS_STAMP) rpmaf/rpmaf.map $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RPMAF_LTO) -shared -Wl,-soname,$(RPMAF_SONAME) \
		-Wl,--version-script=rpmaf/rpmaf.map -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $@ \
		$(RPMAF_OBJS) $(RPMAF_LIBS)
	ln -sf librpmaf.so.$(RPMAF_VERSION) $(BUILD)/lib/$(RPMAF_SONAME)
	ln -sf $(RPMAF_SONAME) $(BUILD)/lib/librpmaf.so

$(RPMAF_A): $$(RPMAF_OBJS) $(RPMAF_OBJS_STAMP)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $(RPMAF_OBJS)

# the framework's internals for a tool: link after the tool's objects (see above)
RPMAF_INTERNAL_LIBS = -lrpmaf $(RPMAF_A)

# rpmaf_internal_check PROGRAM -- fail when PROGRAM defines a function librpmaf exports
rpmaf_internal_check = dup=$$(nm --defined-only $(1) | awk '{print $$3}' | sort -u | \
	comm -12 - $(BUILD)/rpmaf/exported); \
	if [ -n "$$dup" ]; then echo "$(1) defines what librpmaf exports: $$dup"; rm -f $(1); exit 1; fi

# the names librpmaf exports, for rpmaf_internal_check
$(BUILD)/rpmaf/exported: $(RPMAF_SO)
	nm -D --defined-only $< | awk '{sub("@.*", "", $$3); print $$3}' | sort -u > $@

$(RPMAF_PC): rpmaf/librpmaf.pc.in rpmaf/rpmaf.mk
	@mkdir -p $(@D)
	$(call make_pc,$<,$@,$(RPMAF_VERSION))

check-rpmaf-symbols: $(RPMAF_SO)
	@rpmaf/check-symbols.sh $(RPMAF_SO) $(RPMAF_PUBLIC_HDRS)

# make install: the libraries, the header, the pkg-config file of the final directories
INSTALL_HEADERS += rpmaf/include/rpmaf.h
INSTALL_HEADERS_RPMAF += $(filter-out rpmaf/include/rpmaf.h,$(RPMAF_PUBLIC_HDRS))
INSTALL_SHLIBS += $(RPMAF_SO)
INSTALL_STLIBS += $(RPMAF_A)
INSTALL_PCS += $(INSTALL_GEN)/pkgconfig/librpmaf.pc

$(INSTALL_GEN)/pkgconfig/librpmaf.pc: rpmaf/librpmaf.pc.in $(INSTALL_STAMP)
	@mkdir -p $(@D)
	$(call make_pc,$<,$@,$(RPMAF_VERSION))

# the return types of rpmaf.h's functions, for check-man.sh to find them all
RPMAF_MAN_TYPES := int|bool|unsigned|size_t|uint64_t|const char \*|struct rpma_conn \*

check-rpmaf-man:
	@tools/check-man.sh rpmaf/man '$(RPMAF_PUBLIC_HDRS)' rpmaf_ '$(RPMAF_MAN_TYPES)' \
		man7/librpmaf.7 --exact

CHECK_TARGETS += check-rpmaf-symbols check-rpmaf-man
CLEAN_DIRS += $(BUILD)/rpmaf
