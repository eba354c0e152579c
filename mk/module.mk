# SPDX-License-Identifier: BSD-3-Clause
#
# mk/module.mk -- the template of a module's build: a module's .mk sets the
# MODULE_* variables below and includes this file, which writes the rules of
# its unit tests (gcc with gcov, and each sanitizer), its coverage figure and
# its libFuzzer harnesses, registers its check in CHECK_TARGETS and its
# harnesses in make fuzz / check-fuzz, the two builds of its integration test,
# and clears the MODULE_* variables for the next module. A module's own other
# rules (the checks that run its integration test, tortures, tools) stay in its
# .mk. README.md ("How the build is put together") shows a whole module.
#
#   MODULE                 the name: build/NAME/, make check-NAME-unit, coverage-NAME
#   MODULE_LIB             rpmaf: the module is a top-level directory whose *.c go into
#                          librpmaf (rpmaf/rpmaf.mk takes RPMAF_MODULES)
#   MODULE_SRCS            its sources (default: NAME/*.c)
#   MODULE_HDRS            what its builds depend on besides (default: the *.h beside
#                          MODULE_SRCS)
#   MODULE_BASE_CFLAGS     the tree's flags its tests and harnesses build with (default:
#                          CFLAGS_BASE; softrdma's files, which say themselves what they
#                          need of the C library, take CFLAGS_COMMON)
#   MODULE_CFLAGS          its -I and -D, for the tests and the harnesses
#   MODULE_LIBS            the libraries its sources need
#   MODULE_UNIT_TESTS      the test programs, one TEST.c each (default: every
#                          tests/unit/NAME/test_*.c; none, and no MODULE_UNIT_DIRS: no
#                          unit rules)
#   MODULE_UNIT_DIRS       test programs of another shape: each directory DIR/ is one
#                          program, build/NAME/unit/DIR, made of all its *.c (and
#                          depending on its *.h)
#   MODULE_UNIT_SRCS       linked into every test, with --coverage in the gcc build: what
#                          coverage-NAME measures (default: MODULE_SRCS)
#   MODULE_UNIT_DEP_SRCS   other sources the tests need, not measured
#   MODULE_UNIT_HELPERS    linked into every test besides the other *.c of the
#                          directories of MODULE_UNIT_TESTS (those not named test_*.c);
#                          the tests depend on the *.h beside them
#   MODULE_UNIT_CFLAGS     more flags for the tests
#   MODULE_UNIT_LDFLAGS    link flags of the tests (-Wl,--wrap=...)
#   MODULE_UNIT_LIBS       more libraries of the tests (cmocka and MODULE_LIBS are taken)
#   MODULE_SANITIZERS      the clang builds the check runs besides gcc's: asan
#                          (AddressSanitizer+UBSan) and/or tsan (default: asan)
#   MODULE_TSAN_TESTS      the tests the tsan build runs (default: all of them)
#   MODULE_CHECK           the check's name (default: check-NAME-unit)
#   MODULE_CHECK_SPLIT     yes: MODULE_CHECK runs the gcc build only, and each sanitizer's
#                          build is a check of its own, MODULE_CHECK-SAN, registered after
#                          it (librpma: check-unit, check-unit-asan)
#   MODULE_COVERAGE_MIN    coverage-NAME fails below this line-coverage percent (default 0:
#                          a figure only)
#   MODULE_FUZZ            harnesses H: fuzz/fuzz_H.c (- in H read as _) into build/fuzz/,
#                          make fuzz-H, check-fuzz-H and fuzz-run-H; each links
#                          MODULE_FUZZ_SRCS_H with MODULE_FUZZ_CFLAGS_H, MODULE_FUZZ_LIBS_H
#                          and MODULE_FUZZ_DEPS_H (more prerequisites), or without _H the
#                          module's (defaults: MODULE_SRCS MODULE_UNIT_DEP_SRCS,
#                          MODULE_CFLAGS, MODULE_LIBS)
#   MODULE_INTEG_TEST      an integration test over softrdma: its sources, TEST.c first,
#                          linked with tests/integration/common.c (-Itests/integration),
#                          libibverbs, librdmacm and cmocka into two programs,
#                          build/NAME/integration/TEST (gcc) and
#                          build/NAME/integration-tsan/TEST (clang ThreadSanitizer, on
#                          build/tsan's librpma: tests/mt/mt.mk); no rules without it
#   MODULE_INTEG_CFLAGS    its -I and -D, for both builds
#   MODULE_INTEG_OPT       the gcc build's optimization (default -O1; TSan's is -O1)
#   MODULE_INTEG_LINK      the libraries of build/lib the gcc build links (-lNAME) and
#                          depends on: rpmaf, rpma
#   MODULE_INTEG_SRCS      sources the gcc build compiles in besides
#   MODULE_INTEG_HDRS      what a build that compiles sources in depends on besides
#                          (default: MODULE_HDRS)
#   MODULE_INTEG_LIBS      more libraries of the gcc build (after libibverbs, librdmacm
#                          and cmocka)
#   MODULE_INTEG_TSAN_SRCS the sources the TSan build compiles in, in place of build/lib's
#                          libraries (default: MODULE_INTEG_SRCS); MODULE_INTEG_TSAN_CFLAGS
#                          its more flags, MODULE_INTEG_TSAN_LIBS its more libraries
#                          (default: MODULE_INTEG_LIBS)
#                          The lists of sources and headers may be recursive (=) and name
#                          what is known once every module is read (RPMAF_SRCS).
#
# What it defines for the module's own rules: NAME_UNIT_BINS, NAME_ASAN_BINS,
# NAME_TSAN_BINS, NAME_COV_OBJ (the gcc build's objects), NAME_FUZZ_BINS, and
# NAME_INTEG_BIN and NAME_INTEG_TSAN_BIN (the integration test's programs),
# NAME_INTEG_TEST (their sources: MODULE_INTEG_TEST and common.c) and
# NAME_INTEG_DEPS (those and common.h) for a variant of the module's own.

ifndef MODULE
$(error $(lastword $(filter-out $(lastword $(MAKEFILE_LIST)),$(MAKEFILE_LIST))): set MODULE before including mk/module.mk)
endif

# the environment of each sanitizer's run
MODULE_RUN_ENV_asan := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
MODULE_RUN_ENV_tsan := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
MODULE_SAN_FLAGS_asan := $(SAN_FLAGS)
MODULE_SAN_FLAGS_tsan := -O1 $(TSAN_FLAGS)

# module_or VALUE,DEFAULT -- VALUE, or DEFAULT when VALUE is empty
module_or = $(if $(strip $(1)),$(1),$(2))

# module_fuzz NAME,H -- one harness of module NAME
define module_fuzz
$(1)_FUZZ_BIN_$(2) := $$(BUILD)/fuzz/fuzz_$(subst -,_,$(2))
$(1)_FUZZ_SRCS_$(2) := $(call module_or,$(MODULE_FUZZ_SRCS_$(2)),$(call module_or,$(MODULE_FUZZ_SRCS),$($(1)_SRCS) $($(1)_UNIT_DEP_SRCS)))
$(1)_FUZZ_CFLAGS_$(2) := $(call module_or,$(MODULE_FUZZ_CFLAGS_$(2)),$(call module_or,$(MODULE_FUZZ_CFLAGS),$($(1)_CFLAGS)))
$(1)_FUZZ_LIBS_$(2) := $(call module_or,$(MODULE_FUZZ_LIBS_$(2)),$(call module_or,$(MODULE_FUZZ_LIBS),$($(1)_LIBS)))
$(1)_FUZZ_DEPS_$(2) := $(MODULE_FUZZ_DEPS_$(2)) $(MODULE_FUZZ_DEPS)

$$($(1)_FUZZ_BIN_$(2)): fuzz/fuzz_$(subst -,_,$(2)).c $$($(1)_FUZZ_SRCS_$(2)) $$($(1)_HDRS) \
		$$(wildcard fuzz/*.h) $$($(1)_FUZZ_DEPS_$(2))
	@mkdir -p $$(@D)
	$$(CLANG) $$($(1)_BASE_CFLAGS) -O1 $$($(1)_FUZZ_CFLAGS_$(2)) $$(FUZZ_FLAGS) -o $$@ $$< \
		$$($(1)_FUZZ_SRCS_$(2)) $$($(1)_FUZZ_LIBS_$(2))

$(1)_FUZZ_BINS += $$($(1)_FUZZ_BIN_$(2))
FUZZ_NAMES += fuzz_$(subst -,_,$(2))
FUZZ_ALL_BINS += $$($(1)_FUZZ_BIN_$(2))
$$(eval $$(call fuzz_targets,$(2),$$($(1)_FUZZ_BIN_$(2))))
endef

# module_san NAME,SAN -- the clang build of the tests with sanitizer SAN
define module_san
$(1)_$(call module_upper,$(2))_BINS := $$(addprefix $$(BUILD)/$(1)/unit-$(2)/,$(if $(filter tsan,$(2)),$$($(1)_TSAN_TESTS),$$($(1)_UNIT_NAMES)))

$$($(1)_$(call module_upper,$(2))_BINS): $$(BUILD)/$(1)/unit-$(2)/%: \
		$$$$($(1)_UNIT_OWN_$$$$*) $$($(1)_UNIT_DEPS) \
		$$($(1)_UNIT_SRCS) $$($(1)_UNIT_DEP_SRCS)
	@mkdir -p $$(@D)
	$$(CLANG) $$($(1)_UNIT_CFLAGS) $$(MODULE_SAN_FLAGS_$(2)) -o $$@ $$(filter %.c,$$($(1)_UNIT_OWN_$$*)) \
		$$($(1)_UNIT_HELPERS) $$($(1)_UNIT_SRCS) $$($(1)_UNIT_DEP_SRCS) $$($(1)_UNIT_LIBS) \
		$$($(1)_UNIT_LDFLAGS)
endef

# module_san_run NAME,SAN -- the command that runs the tests of sanitizer SAN's build
module_san_run = $(MODULE_RUN_ENV_$(2)) tools/run-tests.sh $(1)-$(2) $($(1)_$(call module_upper,$(2))_BINS)

# module_san_check NAME,SAN -- the check of its own that runs sanitizer SAN's build
# (MODULE_CHECK_SPLIT)
define module_san_check
.PHONY: $$($(1)_CHECK)-$(2)

$$($(1)_CHECK)-$(2): $$($(1)_$(call module_upper,$(2))_BINS)
	@$$(call module_san_run,$(1),$(2))

CHECK_TARGETS += $$($(1)_CHECK)-$(2)
endef

module_upper = $(subst a,A,$(subst t,T,$(subst s,S,$(subst n,N,$(1)))))

# module_unit NAME -- the unit tests: the gcc build with gcov, the clang builds, the
# check that runs them all and the coverage figure
define module_unit
$(1)_UNIT_TESTS := $(MODULE_UNIT_TESTS)
$(1)_UNIT_DIRS := $(patsubst %/,%,$(MODULE_UNIT_DIRS))
$(1)_UNIT_NAMES := $$(sort $$(notdir $$(basename $$($(1)_UNIT_TESTS)) $$($(1)_UNIT_DIRS)))
# what each program is made of besides what all share: its TEST.c, or its
# directory's *.c (and *.h, which it depends on)
$$(foreach t,$$($(1)_UNIT_TESTS),$$(eval $(1)_UNIT_OWN_$$(basename $$(notdir $$(t))) := $$(t)))
$$(foreach d,$$($(1)_UNIT_DIRS),$$(eval $(1)_UNIT_OWN_$$(notdir $$(d)) := $$(sort $$(wildcard $$(d)/*.[ch]))))
$(1)_TEST_DIRS := $$(sort $$(dir $$($(1)_UNIT_TESTS)))
$(1)_UNIT_HELPERS := $$(foreach f,$$(wildcard $$(addsuffix *.c,$$($(1)_TEST_DIRS))),$$(if \
	$$(filter test_%,$$(notdir $$(f))),,$$(f))) \
	$(MODULE_UNIT_HELPERS)
$(1)_UNIT_SRCS := $(call module_or,$(MODULE_UNIT_SRCS),$($(1)_SRCS))
$(1)_UNIT_CFLAGS := $$($(1)_BASE_CFLAGS) -O0 $(MODULE_CFLAGS) $$(patsubst %/,-I%,$$($(1)_TEST_DIRS)) \
	$(MODULE_UNIT_CFLAGS)
$(1)_UNIT_LDFLAGS := $(MODULE_UNIT_LDFLAGS)
$(1)_UNIT_LIBS := -lcmocka $(MODULE_UNIT_LIBS) $(MODULE_LIBS)
$(1)_UNIT_DEPS := $$($(1)_UNIT_HELPERS) $$(wildcard $$(addsuffix *.h,$$($(1)_TEST_DIRS) \
	$$(sort $$(dir $(MODULE_UNIT_HELPERS))))) $$($(1)_HDRS)
$(1)_TSAN_TESTS := $(call module_or,$(MODULE_TSAN_TESTS),$$($(1)_UNIT_NAMES))

# the gcc build: the measured sources with --coverage, the others plain
$(1)_COV_OBJ := $$(BUILD)/$(1)/cov-obj
$(1)_COV_OBJS := $$(patsubst %.c,$$($(1)_COV_OBJ)/%.o,$$($(1)_UNIT_SRCS))
$(1)_DEP_OBJS := $$(patsubst %.c,$$(BUILD)/$(1)/dep-obj/%.o,$$($(1)_UNIT_DEP_SRCS))
$(1)_UNIT_BINS := $$(addprefix $$(BUILD)/$(1)/unit/,$$($(1)_UNIT_NAMES))

$$($(1)_COV_OBJS): $$($(1)_COV_OBJ)/%.o: %.c $$($(1)_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$($(1)_UNIT_CFLAGS) --coverage -c $$< -o $$@

$$($(1)_DEP_OBJS): $$(BUILD)/$(1)/dep-obj/%.o: %.c $$($(1)_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$($(1)_UNIT_CFLAGS) -c $$< -o $$@

$$($(1)_UNIT_BINS): $$(BUILD)/$(1)/unit/%: $$$$($(1)_UNIT_OWN_$$$$*) $$($(1)_UNIT_DEPS) \
		$$($(1)_COV_OBJS) $$($(1)_DEP_OBJS)
	@mkdir -p $$(@D)
	$$(CC) $$($(1)_UNIT_CFLAGS) -o $$@ $$(filter %.c,$$($(1)_UNIT_OWN_$$*)) \
		$$($(1)_UNIT_HELPERS) $$($(1)_COV_OBJS) $$($(1)_DEP_OBJS) $$($(1)_UNIT_LIBS) -lgcov \
		$$($(1)_UNIT_LDFLAGS)

$(1)_CHECK := $(call module_or,$(MODULE_CHECK),check-$(1)-unit)
$(1)_COVERAGE_MIN := $(call module_or,$(MODULE_COVERAGE_MIN),0)
$$(foreach s,$(call module_or,$(MODULE_SANITIZERS),asan),$$(eval $$(call module_san,$(1),$$(s))))
$(1)_SANITIZERS := $(call module_or,$(MODULE_SANITIZERS),asan)
# the sanitizer builds the check runs besides gcc's (none when each is a check of its own)
$(1)_CHECK_SANITIZERS := $(if $(MODULE_CHECK_SPLIT),,$$($(1)_SANITIZERS))
# each test program depends on its own files, named here (the pattern rules find them
# only when they build it)
$$(foreach n,$$($(1)_UNIT_NAMES),$$(eval $$(BUILD)/$(1)/unit/$$(n) \
	$$(foreach s,$$($(1)_SANITIZERS),$$(BUILD)/$(1)/unit-$$(s)/$$(n)): $$($(1)_UNIT_OWN_$$(n))))

.PHONY: $$($(1)_CHECK) coverage-$(1)

CHECK_TARGETS += $$($(1)_CHECK)

$$($(1)_CHECK): $$($(1)_UNIT_BINS) $$(foreach s,$$($(1)_CHECK_SANITIZERS),$$($(1)_$$(call module_upper,$$(s))_BINS))
	@tools/run-tests.sh $(1) $$($(1)_UNIT_BINS)
	@$$(foreach s,$$($(1)_CHECK_SANITIZERS),$$(call module_san_run,$(1),$$(s)) &&) true

$(if $(MODULE_CHECK_SPLIT),$$(foreach s,$$($(1)_SANITIZERS),$$(eval $$(call module_san_check,$(1),$$(s)))))

# line coverage of the measured sources by the gcc run; fails below the module's floor
coverage-$(1): $$($(1)_UNIT_BINS)
	@find $$($(1)_COV_OBJ) -name '*.gcda' -delete
	@tools/run-tests.sh $(1) $$($(1)_UNIT_BINS) >/dev/null
	@tools/coverage.sh $$($(1)_COV_OBJ) $$($(1)_COVERAGE_MIN) $$($(1)_UNIT_SRCS)
endef

# what a program that links a library of build/lib depends on
module_integ_lib_rpma = $(LIB_SO)
module_integ_lib_rpmaf = $(RPMAF_SO)

# module_integ NAME -- the integration test: the gcc build on build/lib's libraries and
# the clang ThreadSanitizer build on build/tsan's librpma; the source and header lists
# are kept as written ($(value)), and expanded a second time in the prerequisites
define module_integ
$(1)_INTEG_NAME := $(notdir $(basename $(firstword $(MODULE_INTEG_TEST))))
$(1)_INTEG_BIN := $$(BUILD)/$(1)/integration/$$($(1)_INTEG_NAME)
$(1)_INTEG_TSAN_BIN := $$(BUILD)/$(1)/integration-tsan/$$($(1)_INTEG_NAME)
$(1)_INTEG_TEST := $(MODULE_INTEG_TEST) tests/integration/common.c
$(1)_INTEG_CFLAGS := $(MODULE_INTEG_CFLAGS)
$(1)_INTEG_OPT := $(call module_or,$(MODULE_INTEG_OPT),-O1)
$(1)_INTEG_LINK := $(MODULE_INTEG_LINK)
$(1)_INTEG_LIBS := $(MODULE_INTEG_LIBS)
$(1)_INTEG_TSAN_CFLAGS := $(MODULE_INTEG_TSAN_CFLAGS)
$(1)_INTEG_TSAN_LIBS := $(call module_or,$(MODULE_INTEG_TSAN_LIBS),$(MODULE_INTEG_LIBS))
$(1)_INTEG_SRCS = $(value MODULE_INTEG_SRCS)
$(1)_INTEG_TSAN_SRCS = $(call module_or,$(value MODULE_INTEG_TSAN_SRCS),$(value MODULE_INTEG_SRCS))
$(1)_INTEG_HDRS = $(call module_or,$(value MODULE_INTEG_HDRS),$$($(1)_HDRS))
$(1)_INTEG_DEPS := $$($(1)_INTEG_TEST) tests/integration/common.h

$$($(1)_INTEG_BIN): $$($(1)_INTEG_DEPS) $$$$($(1)_INTEG_SRCS) \
		$$$$(if $$$$(strip $$$$($(1)_INTEG_SRCS)),$$$$($(1)_INTEG_HDRS)) \
		$$(foreach l,$$($(1)_INTEG_LINK),$$(module_integ_lib_$$(l)))
	@mkdir -p $$(@D)
	$$(CC) $$($(1)_BASE_CFLAGS) $$($(1)_INTEG_OPT) $$($(1)_INTEG_CFLAGS) -Itests/integration -o $$@ \
		$$($(1)_INTEG_TEST) $$($(1)_INTEG_SRCS) $$(LIB_LDFLAGS) $$(addprefix -l,$$($(1)_INTEG_LINK)) \
		-libverbs -lrdmacm -lcmocka $$($(1)_INTEG_LIBS)

$$($(1)_INTEG_TSAN_BIN): $$($(1)_INTEG_DEPS) $$$$($(1)_INTEG_TSAN_SRCS) $$$$($(1)_INTEG_HDRS) \
		$$(MT_LIB)
	@mkdir -p $$(@D)
	$$(CLANG) $$($(1)_BASE_CFLAGS) $$(MODULE_SAN_FLAGS_tsan) $$($(1)_INTEG_CFLAGS) \
		$$($(1)_INTEG_TSAN_CFLAGS) -Itests/integration -o $$@ $$($(1)_INTEG_TEST) \
		$$($(1)_INTEG_TSAN_SRCS) $$(MT_LIB) -libverbs -lrdmacm -lcmocka $$($(1)_INTEG_TSAN_LIBS)
endef

# module_rules NAME -- everything the template gives module NAME
define module_rules
$(1)_SRCS := $(call module_or,$(MODULE_SRCS),$(sort $(wildcard $(1)/*.c)))
$(1)_HDRS := $(call module_or,$(MODULE_HDRS),$$(wildcard $$(addsuffix *.h,$$(sort $$(dir $$($(1)_SRCS))))))
$(1)_BASE_CFLAGS := $(call module_or,$(MODULE_BASE_CFLAGS),$$(CFLAGS_BASE))
$(1)_CFLAGS := $(MODULE_CFLAGS)
$(1)_LIBS := $(MODULE_LIBS)
$(1)_UNIT_DEP_SRCS := $(MODULE_UNIT_DEP_SRCS)
$(1)_FUZZ_BINS :=
$(if $(filter rpmaf,$(MODULE_LIB)),RPMAF_MODULES += $(1))
$(if $(strip $(MODULE_UNIT_TESTS) $(MODULE_UNIT_DIRS)),$$(eval $$(call module_unit,$(1))))
$(if $(strip $(MODULE_INTEG_TEST)),$$(eval $$(call module_integ,$(1))))
$$(foreach h,$(MODULE_FUZZ),$$(eval $$(call module_fuzz,$(1),$$(h))))
$(if $(and $(word 2,$(MODULE_FUZZ)),$(if $(filter $(1),$(MODULE_FUZZ)),,$(1))),$$(eval $$(call \
	fuzz_targets,$(1),$$($(1)_FUZZ_BINS))))
CLEAN_DIRS += $$(BUILD)/$(1)
endef

# a module with no MODULE_UNIT_TESTS of its own takes tests/unit/NAME/test_*.c
MODULE_UNIT_TESTS := $(if $(filter undefined,$(origin MODULE_UNIT_TESTS)),$(wildcard tests/unit/$(MODULE)/test_*.c),$(MODULE_UNIT_TESTS))

$(eval $(call module_rules,$(MODULE)))

# the next module starts from nothing
$(foreach v,$(filter MODULE MODULE_%,$(.VARIABLES)),$(if $(filter file,$(origin $(v))),$(if $(filter MODULE_RUN_ENV_% MODULE_SAN_FLAGS_% MODULE_MKS%,$(v)),,$(eval undefine $(v)))))
