# SPDX-License-Identifier: BSD-3-Clause
#
# librpma/librpma.mk -- librpma itself, included first by the top-level Makefile
# (GNU make):
#   make librpma          build/lib/librpma.so.X.Y.Z (+ .so.1, .so), librpma.a, librpma.pc
#   make check-unit       the cmocka tests of tests/unit/DIR/, gcc with gcov
#   make check-unit-asan  the same, clang with AddressSanitizer+UBSan
#   make coverage         check-unit with gcov; fails below COVERAGE_MIN (95) percent
#   make check-symbols    the library exports exactly the header's functions
#   make check-man        a page for every function of librpma.h, and the reverse
#   make fuzz-mr-descriptor, fuzz-peer-cfg-descriptor, fuzz-private-data
#                         the harnesses of what librpma reads from a peer (mk/module.mk)
#
# librpma's unit tests are the directories of tests/unit/ that hold no test_*.c
# (those are the modules') but common/: each directory is one program
# (MODULE_UNIT_DIRS of mk/module.mk, which writes their rules), linked with the
# mocks of libibverbs/librdmacm in tests/unit/common/ instead of the real ones.

# the librpma source set, for the library and for every instrumented rebuild of it
RPMA_SRCS := $(sort $(wildcard librpma/src/*.c))
RPMA_HDRS := $(wildcard librpma/src/*.h) librpma/include/librpma.h
RPMA_OBJS := $(patsubst librpma/src/%.c,$(BUILD)/obj/%.o,$(RPMA_SRCS))

.PHONY: librpma coverage check-symbols check-man

all: librpma

librpma: $(LIB_SO) $(LIB_A) $(LIB_PC)

$(BUILD)/obj/%.o: librpma/src/%.c $(RPMA_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -fPIC -c $< -o $@

$(LIB_SO): $(RPMA_OBJS) librpma/src/librpma.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=librpma/src/librpma.map \
		-Wl,--no-undefined -o $@ $(RPMA_OBJS) $(PROVIDER_LIBS) -pthread
	ln -sf librpma.so.$(VERSION) $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/lib/librpma.so

$(LIB_A): $(RPMA_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB_PC): librpma/librpma.pc.in Makefile
	@mkdir -p $(@D)
	$(call make_pc,$<,$@)

# make install: the libraries, the header, the pkg-config file of the final directories
INSTALL_HEADERS += librpma/include/librpma.h
INSTALL_SHLIBS += $(LIB_SO)
INSTALL_STLIBS += $(LIB_A)
INSTALL_PCS += $(INSTALL_GEN)/pkgconfig/librpma.pc

$(INSTALL_GEN)/pkgconfig/librpma.pc: librpma/librpma.pc.in $(INSTALL_STAMP)
	@mkdir -p $(@D)
	$(call make_pc,$<,$@)

# ---- symbols and man pages
check-symbols: $(LIB_SO)
	@tools/check-symbols.sh $(LIB_SO) librpma/include/librpma.h

check-man:
	@tools/check-man.sh librpma/man librpma/include/librpma.h rpma_ 'int|const char \*' \
		man7/librpma.7

# ---- unit tests and harnesses (mk/module.mk)
# the unit tests: each directory of tests/unit/ without test_*.c but common/ is one
# program, with the mocks of libibverbs, librdmacm and the allocator instead of the
# real ones; librpma's sources are built in with --coverage
MODULE := librpma
MODULE_SRCS := $(RPMA_SRCS)
MODULE_HDRS := $(RPMA_HDRS)
MODULE_CFLAGS := -Ilibrpma/src
MODULE_LIBS := -pthread
MODULE_UNIT_DIRS := $(filter-out tests/unit/common/,$(foreach d,$(sort $(wildcard \
	tests/unit/*/)),$(if $(wildcard $(d)test_*.c),,$(d))))
MODULE_UNIT_HELPERS := $(wildcard tests/unit/common/*.c)
MODULE_UNIT_CFLAGS := -Itests/unit/common
MODULE_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
MODULE_CHECK := check-unit
MODULE_CHECK_SPLIT := yes
COVERAGE_MIN ?= 95
MODULE_COVERAGE_MIN := $(COVERAGE_MIN)
# the harnesses of what librpma reads from a peer: the real providers, malloc and
# free wrapped
MODULE_FUZZ := mr-descriptor peer-cfg-descriptor private-data
MODULE_FUZZ_LIBS := $(PROVIDER_LIBS) -pthread -Wl,--wrap=malloc,--wrap=free
include mk/module.mk

# make coverage: librpma's figure, with its floor
coverage: coverage-librpma

CHECK_TARGETS += coverage check-symbols check-man
