# SPDX-License-Identifier: BSD-3-Clause
#
# rpmaf/rpmaf.mk -- librpmaf, the rpma framework library, built from the
# sources of its modules; included by the top-level Makefile (GNU make):
#   make rpmaf                build/lib/librpmaf.so.1.0.0 (+ .so.1, .so), librpmaf.a, rpmaf.pc
#   make check-rpmaf-symbols  the library exports exactly the header's functions
#   make install-rpmaf / uninstall-rpmaf   honour PREFIX, LIBDIR, INCLUDEDIR, DESTDIR
#
# A module is a top-level directory whose *.c files go into the library: add
# its name to RPMAF_MODULES (and its tests to its own .mk).

RPMAF_MODULES := config proto regtab stats workers ctl server pool
RPMAF_VERSION := 1.2.0
RPMAF_SONAME := librpmaf.so.1
RPMAF_SRCS := $(foreach m,$(RPMAF_MODULES),$(sort $(wildcard $(m)/*.c)))
RPMAF_HDRS := $(foreach m,$(RPMAF_MODULES),$(wildcard $(m)/*.h)) rpmaf/include/rpmaf.h
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
RPMAF_PC := $(BUILD)/lib/rpmaf.pc

.PHONY: rpmaf check-rpmaf-symbols install-rpmaf uninstall-rpmaf

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

# rpmaf_pc IN OUT -- the pkg-config file for the current PREFIX, LIBDIR and INCLUDEDIR
rpmaf_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(RPMAF_VERSION)|' $(1) > $(2)

$(RPMAF_PC): rpmaf/rpmaf.pc.in rpmaf/rpmaf.mk
	@mkdir -p $(@D)
	$(call rpmaf_pc,$<,$@)

check-rpmaf-symbols: $(RPMAF_SO)
	@rpmaf/check-symbols.sh $(RPMAF_SO) rpmaf/include/rpmaf.h

install-rpmaf: rpmaf
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 644 rpmaf/include/rpmaf.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(RPMAF_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf librpmaf.so.$(RPMAF_VERSION) $(DESTDIR)$(LIBDIR)/$(RPMAF_SONAME)
	ln -sf $(RPMAF_SONAME) $(DESTDIR)$(LIBDIR)/librpmaf.so
	install -m 644 $(RPMAF_A) $(DESTDIR)$(LIBDIR)/
	$(call rpmaf_pc,rpmaf/rpmaf.pc.in,$(DESTDIR)$(LIBDIR)/pkgconfig/rpmaf.pc)

uninstall-rpmaf:
	rm -f $(DESTDIR)$(INCLUDEDIR)/rpmaf.h $(DESTDIR)$(LIBDIR)/librpmaf.so.$(RPMAF_VERSION) \
		$(DESTDIR)$(LIBDIR)/$(RPMAF_SONAME) $(DESTDIR)$(LIBDIR)/librpmaf.so \
		$(DESTDIR)$(LIBDIR)/librpmaf.a $(DESTDIR)$(LIBDIR)/pkgconfig/rpmaf.pc

CHECK_TARGETS += check-rpmaf-symbols
CLEAN_DIRS += $(BUILD)/rpmaf
