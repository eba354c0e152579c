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
# (those are the modules', mk/module.mk) but common/: each directory is one
# program, linked with the mocks of libibverbs/librdmacm in tests/unit/common/
# instead of the real ones.

# the librpma source set, for the library and for every instrumented rebuild of it
RPMA_SRCS := $(sort $(wildcard librpma/src/*.c))
RPMA_HDRS := $(wildcard librpma/src/*.h) librpma/include/librpma.h
RPMA_OBJS := $(patsubst librpma/src/%.c,$(BUILD)/obj/%.o,$(RPMA_SRCS))

.PHONY: librpma check-unit check-unit-asan coverage check-symbols check-man

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

# ---- unit tests
UNIT_DIRS := $(filter-out common,$(foreach d,$(sort $(wildcard tests/unit/*/)),$(if \
	$(wildcard $(d)test_*.c),,$(notdir $(patsubst %/,%,$(d))))))
UNIT_COMMON := $(wildcard tests/unit/common/*.c)
UNIT_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
UNIT_CFLAGS := $(CFLAGS_BASE) -O0 -Itests/unit/common -Ilibrpma/src

# the gcc build, instrumented for coverage
UNIT_OBJ := $(BUILD)/unit/obj
UNIT_BINS := $(addprefix $(BUILD)/unit/,$(UNIT_DIRS))
UNIT_LIBOBJS := $(patsubst %.c,$(UNIT_OBJ)/%.o,$(RPMA_SRCS))

$(UNIT_LIBOBJS): $(UNIT_OBJ)/%.o: %.c $(RPMA_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) --coverage -c $< -o $@

$(UNIT_BINS): $(BUILD)/unit/%: $$(wildcard tests/unit/$$*/*.[ch]) $(UNIT_COMMON) \
		tests/unit/common/*.h $(UNIT_LIBOBJS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -o $@ $(wildcard tests/unit/$*/*.c) $(UNIT_COMMON) $(UNIT_LIBOBJS) \
		-lcmocka -lgcov $(UNIT_WRAP) -pthread

# the clang build with AddressSanitizer and UndefinedBehaviorSanitizer
ASAN_BINS := $(addprefix $(BUILD)/unit-asan/,$(UNIT_DIRS))

$(ASAN_BINS): $(BUILD)/unit-asan/%: $$(wildcard tests/unit/$$*/*.[ch]) $(UNIT_COMMON) \
		tests/unit/common/*.h $(RPMA_SRCS) $(RPMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(UNIT_CFLAGS) $(SAN_FLAGS) -o $@ $(wildcard tests/unit/$*/*.c) $(UNIT_COMMON) \
		$(RPMA_SRCS) -lcmocka $(UNIT_WRAP) -pthread

check-unit: $(UNIT_BINS)
	@tools/run-tests.sh unit $(UNIT_BINS)

check-unit-asan: $(ASAN_BINS)
	@$(MODULE_RUN_ENV_asan) tools/run-tests.sh unit-asan $(ASAN_BINS)

COVERAGE_MIN ?= 95
coverage:
	rm -f $(UNIT_OBJ)/librpma/src/*.gcda
	$(MAKE) check-unit
	@tools/coverage.sh $(UNIT_OBJ) $(COVERAGE_MIN) $(RPMA_SRCS)

# ---- symbols and man pages
check-symbols: $(LIB_SO)
	@tools/check-symbols.sh $(LIB_SO) librpma/include/librpma.h

check-man:
	@tools/check-man.sh librpma/man librpma/include/librpma.h rpma_ 'int|const char \*' \
		man7/librpma.7

# ---- the harnesses: librpma's sources, malloc and free wrapped
MODULE := librpma
MODULE_SRCS := $(RPMA_SRCS)
MODULE_HDRS := $(RPMA_HDRS)
MODULE_CFLAGS := -Ilibrpma/src
MODULE_LIBS := $(PROVIDER_LIBS) -pthread -Wl,--wrap=malloc,--wrap=free
MODULE_FUZZ := mr-descriptor peer-cfg-descriptor private-data
include mk/module.mk

CHECK_TARGETS += check-unit check-unit-asan coverage check-symbols check-man
