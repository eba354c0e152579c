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
# A module is a top-level directory whose *.c files go into the library: add
# its name to RPMAF_MODULES (and its tests to its own .mk).

RPMAF_MODULES := config proto regtab stats workers ctl server pool
RPMAF_VERSION := 1.3.0
RPMAF_SONAME := librpmaf.so.1
RPMAF_SRCS := $(foreach m,$(RPMAF_MODULES),$(sort $(wildcard $(m)/*.c)))
# the public header and its parts, one a section (rpmaf/include/rpmaf/*.h)
RPMAF_PUBLIC_HDRS := rpmaf/include/rpmaf.h $(sort $(wildcard rpmaf/include/rpmaf/*.h))
RPMAF_HDRS := $(foreach m,$(RPMAF_MODULES),$(wildcard $(m)/*.h)) $(RPMAF_PUBLIC_HDRS)
RPMAF_CFLAGS := $(CFLAGS_BASE) -Irpmaf/include
# link-time optimization: the data path crosses modules (pool -> workers ->
# regtab -> stats) in calls that are inlined only at link time; the objects
# stay fat, so librpmaf.a links without it
RPMAF_LTO ?= -flto=auto -ffat-lto-objects
RPMAF_LIBS := -lyaml -lsodium -lpmem2 -lurcu-memb -lurcu-common -lurcu-cds -pthread -L$(BUILD)/lib -lrpma
RPMAF_OBJ := $(BUILD)/rpmaf/obj
RPMAF_OBJS := $(patsubst %.c,$(RPMAF_OBJ)/%.o,$(RPMAF_SRCS))

RPMAF_SO := $(BUILD)/lib/librpmaf.so.$(RPMAF_VERSION)
RPMAF_A := $(BUILD)/lib/librpmaf.a
RPMAF_PC := $(BUILD)/lib/librpmaf.pc

.PHONY: rpmaf check-rpmaf-symbols check-rpmaf-man

all: rpmaf

rpmaf: $(RPMAF_SO) $(RPMAF_A) $(RPMAF_PC)

$(RPMAF_OBJ)/%.o: %.c $(RPMAF_HDRS)
	@mkdir -p $(@D)
	$(CC) $(RPMAF_CFLAGS) $(CFLAGS) $(RPMAF_LTO) -fPIC -c $< -o $@

# librpmaf needs librpma: a program's run path does not reach a library's own
# dependencies, so librpmaf looks for librpma beside itself (build/lib, or the
# LIBDIR both are installed into)
$(RPMAF_SO): $(RPMAF_OBJS) rpmaf/rpmaf.map $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RPMAF_LTO) -shared -Wl,-soname,$(RPMAF_SONAME) \
		-Wl,--version-script=rpmaf/rpmaf.map -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $@ \
		$(RPMAF_OBJS) $(RPMAF_LIBS)
	ln -sf librpmaf.so.$(RPMAF_VERSION) $(BUILD)/lib/$(RPMAF_SONAME)
	ln -sf $(RPMAF_SONAME) $(BUILD)/lib/librpmaf.so

$(RPMAF_A): $(RPMAF_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

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
