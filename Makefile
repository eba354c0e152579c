# SPDX-License-Identifier: BSD-3-Clause
#
# The whole project's build: GNU make only.
#   make            build librpma (shared and static) and its pkg-config file
#   make check      install missing Debian packages, build and run every test
#   make coverage   unit tests with gcov; fails below the line-coverage floor
#   make fuzz       build the libFuzzer harnesses; make fuzz-run SECONDS=N runs them
#   make install / uninstall   every library, header, pkg-config file, tool and man
#                   page; honour PREFIX, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, DESTDIR

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

VERSION_MAJOR := 1
VERSION_MINOR := 3
VERSION_PATCH := 0
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SONAME := librpma.so.$(VERSION_MAJOR)

# ---------------------------------------------------------------- flags, defined once
# Every module's .mk builds with these; a module adds only its own -I and libraries.
CC ?= gcc
CLANG ?= clang
BUILD := build
WARN := -Wall -Wextra -Werror
# CFLAGS_BASE for the C files of the tree; softrdma's, which say themselves what they
# need of the C library, take CFLAGS_COMMON
CFLAGS_BASE := -std=gnu11 -D_GNU_SOURCE -g $(WARN) -Ilibrpma/include
CFLAGS_COMMON := -std=gnu11 -g $(WARN)
CFLAGS ?= -O2
# clang's AddressSanitizer + UndefinedBehaviorSanitizer, ThreadSanitizer, libFuzzer
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
PROVIDER_LIBS := -libverbs -lrdmacm
# link a program against build/lib (librpma and, later, the framework)
LIB_LDFLAGS = -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib)

# What the tools print for --version, from this VERSION and the tree's git describe
# (when built from a git tree): $(VERSION_H) holds it as RPMAF_TOOLS_VERSION and is
# written again only when the text changes, so a tool is rebuilt only then.
GIT_DESCRIBE := $(shell git describe --tags --always --dirty 2>/dev/null)
TOOLS_VERSION := $(VERSION)$(if $(GIT_DESCRIBE), (git $(GIT_DESCRIBE)))
VERSION_H := $(BUILD)/gen/rpmaf_version.h
VERSION_H_TEXT := \#define RPMAF_TOOLS_VERSION "$(TOOLS_VERSION)"
ifneq ($(file < $(VERSION_H)),$(VERSION_H_TEXT))
$(shell mkdir -p $(dir $(VERSION_H)))
$(file > $(VERSION_H),$(VERSION_H_TEXT))
endif

$(VERSION_H):
	@mkdir -p $(@D)
	printf '%s\n' '$(VERSION_H_TEXT)' >$@

LIB_SO := $(BUILD)/lib/librpma.so.$(VERSION)
LIB_A := $(BUILD)/lib/librpma.a
LIB_PC := $(BUILD)/lib/librpma.pc

.PHONY: all deps check check-slow check-loop check-format check-install fuzz fuzz-run \
	check-fuzz install uninstall clean run
.DEFAULT_GOAL := all
.SECONDEXPANSION:
.SECONDARY:

# make_pc IN,OUT[,VERSION] -- the pkg-config file for the current PREFIX, LIBDIR and
# INCLUDEDIR, of VERSION (librpma's when not given)
make_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(or $(3),$(VERSION))|' $(1) > $(2)

# ---------------------------------------------------------------- install
# make install puts what each module lists below into place (tools/install.sh) and
# writes every file it installs and every directory it makes into INSTALL_MANIFEST;
# make uninstall removes exactly those (the directories only when left empty).
# A module appends to the lists:
#   INSTALL_HEADERS        public headers, into INCLUDEDIR
#   INSTALL_HEADERS_RPMAF  the parts of rpmaf.h, into INCLUDEDIR/rpmaf
#   INSTALL_SHLIBS         shared libraries LIB.so.X.Y.Z, into LIBDIR with their
#                          SONAME link and LIB.so
#   INSTALL_STLIBS         static libraries, into LIBDIR
#   INSTALL_PCS            pkg-config files made for the install, into LIBDIR/pkgconfig
#   INSTALL_BINS           programs, into BINDIR: those linked with librpma or
#                          librpmaf are linked again for the install as
#                          $(INSTALL_GEN)/bin/NAME (INSTALL_LDFLAGS, which depend on
#                          INSTALL_RPATH_STAMP), with no run path into the build tree
#   INSTALL_SOFTRDMA_LIBS  softrdma's libibverbs and librdmacm, into a directory of their
#                          own, SOFTRDMA_LIBDIR, so they never shadow rdma-core's
# Man pages are every */man/manN/*.N and tools/*/man/manN/*.N, into MANDIR/manN.
# Installed ELF files and archives carry no debug information (it names the build
# directory); build with the tree to debug.
DATADIR ?= $(PREFIX)/share
INSTALL_MANIFEST ?= $(DATADIR)/rpma/install-manifest
SOFTRDMA_LIBDIR = $(LIBDIR)/softrdma
INSTALL_GEN := $(BUILD)/install
INSTALL_SH = DESTDIR='$(DESTDIR)' INSTALL_MANIFEST='$(INSTALL_MANIFEST)' \
	INSTALL_RUNLOG=$(INSTALL_GEN)/installed tools/install.sh
INSTALL_MANS = $(sort $(wildcard */man/man[1-8]/*.[1-8] tools/*/man/man[1-8]/*.[1-8]))
INSTALL_HEADERS :=
INSTALL_HEADERS_RPMAF :=
INSTALL_SHLIBS :=
INSTALL_STLIBS :=
INSTALL_PCS :=
INSTALL_BINS :=
INSTALL_SOFTRDMA_LIBS :=

# The installed programs find the libraries in LIBDIR through the dynamic linker's own
# directories when LIBDIR is one of them, else through a run path of LIBDIR relative
# to BINDIR ($ORIGIN/../lib): the installed tree may move, and a DESTDIR stage runs
INSTALL_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
INSTALL_SYSTEM_LIBDIRS := /lib /usr/lib /lib64 /usr/lib64 \
	$(if $(INSTALL_MULTIARCH),/lib/$(INSTALL_MULTIARCH) /usr/lib/$(INSTALL_MULTIARCH))
INSTALL_LIBDIR_REL = $(if $(filter $(patsubst %/,%,$(LIBDIR)),$(INSTALL_SYSTEM_LIBDIRS)),, \
	$(shell realpath -m --relative-to='$(BINDIR)' '$(LIBDIR)'))
INSTALL_RPATH = $(if $(strip $(INSTALL_LIBDIR_REL)),-Wl$(comma)-rpath$(comma)'$$ORIGIN/$(strip \
	$(INSTALL_LIBDIR_REL))')
comma := ,
INSTALL_LDFLAGS = -L$(BUILD)/lib -Wl,-rpath-link,$(BUILD)/lib $(INSTALL_RPATH)
$(INSTALL_GEN)/bin/%: private LIB_LDFLAGS = $(INSTALL_LDFLAGS)

# stamp_rule FILE,TEXT -- FILE holds TEXT, and is written only when TEXT changes: what is
# made for the install depends on it, to be made again when the directories change
define stamp_rule
$(1): FORCE
	@mkdir -p $$(@D)
	@echo '$(2)' | cmp -s - $$@ || echo '$(2)' > $$@
endef
INSTALL_STAMP := $(INSTALL_GEN)/dirs
INSTALL_RPATH_STAMP := $(INSTALL_GEN)/rpath
$(eval $(call stamp_rule,$(INSTALL_STAMP),$$(PREFIX) $$(BINDIR) $$(LIBDIR) $$(INCLUDEDIR) $$(MANDIR)))
$(eval $(call stamp_rule,$(INSTALL_RPATH_STAMP),$$(strip $$(INSTALL_LIBDIR_REL))))

.PHONY: FORCE
FORCE:

# second expansion: the modules below append to the lists
install: $$(INSTALL_HEADERS) $$(INSTALL_HEADERS_RPMAF) $$(INSTALL_SHLIBS) $$(INSTALL_STLIBS) $$(INSTALL_PCS) \
		$$(INSTALL_BINS) $$(INSTALL_SOFTRDMA_LIBS)
	@$(INSTALL_SH) begin
	@$(INSTALL_SH) file 644 $(INCLUDEDIR) $(INSTALL_HEADERS)
	@$(INSTALL_SH) file 644 $(INCLUDEDIR)/rpmaf $(INSTALL_HEADERS_RPMAF)
	@$(INSTALL_SH) lib $(LIBDIR) $(INSTALL_SHLIBS)
	@$(INSTALL_SH) file 644 $(LIBDIR) $(INSTALL_STLIBS)
	@$(INSTALL_SH) file 644 $(LIBDIR)/pkgconfig $(INSTALL_PCS)
	@$(INSTALL_SH) file 755 $(BINDIR) $(INSTALL_BINS)
	@$(INSTALL_SH) file 755 $(SOFTRDMA_LIBDIR) $(INSTALL_SOFTRDMA_LIBS)
	@$(INSTALL_SH) man $(MANDIR) $(INSTALL_MANS)
	@$(INSTALL_SH) end

uninstall:
	@$(INSTALL_SH) uninstall

# ---------------------------------------------------------------- dependencies
deps:
	@tools/install-deps.sh

# ---------------------------------------------------------------- install check
# install and uninstall in scratch directories, build and run the examples on the result
check-install:
	@MAKE='$(MAKE)' tools/check-install.sh

# ---------------------------------------------------------------- fuzzing
# Every harness is fuzz/fuzz_NAME.c with its seeds in fuzz/corpus/fuzz_NAME/; a module
# declares its own (MODULE_FUZZ, mk/module.mk), which the template names in FUZZ_NAMES and
# FUZZ_ALL_BINS and gives the targets of fuzz_targets. make fuzz builds every registered
# harness, make check-fuzz runs each for FUZZ_CHECK_SECONDS, make fuzz-run for SECONDS
# (tools/fuzz-run.sh).
FUZZ_NAMES :=
FUZZ_ALL_BINS :=
SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 10

# fuzz_targets NAME,BINS -- fuzz-NAME builds the harnesses BINS, check-fuzz-NAME runs them
# for FUZZ_CHECK_SECONDS, fuzz-run-NAME for SECONDS
define fuzz_targets
.PHONY: fuzz-$(1) check-fuzz-$(1) fuzz-run-$(1)
fuzz-$(1): $(2)
check-fuzz-$(1): $(2)
	@tools/fuzz-run.sh $$(FUZZ_CHECK_SECONDS) $(2)
fuzz-run-$(1): $(2)
	@tools/fuzz-run.sh $$(SECONDS) $(2)
endef

# the modules' harnesses are registered below: these take the whole list (second expansion)
fuzz: $$(FUZZ_ALL_BINS)

fuzz-run: $$(FUZZ_ALL_BINS)
	@tools/fuzz-run.sh $(SECONDS) $(FUZZ_ALL_BINS)

check-fuzz: $$(FUZZ_ALL_BINS)
	@tools/fuzz-run.sh $(FUZZ_CHECK_SECONDS) $(FUZZ_ALL_BINS)

# ---------------------------------------------------------------- modules
# The checks of this file, in the order make check runs them; every module
# appends its own (CHECK_TARGETS, or CHECK_SLOW_TARGETS for the suites that
# only make check-slow runs; mk/module.mk registers a module's unit tests) and
# the directories make clean removes.
CHECK_TARGETS := check-format
CHECK_SLOW_TARGETS :=
CLEAN_DIRS := $(BUILD)

# Every .mk of the tree is read: a new module is its .mk (README.md), nothing
# more. The order lets each read what it needs of those before it: first what the
# others build on (librpma; librpmaf, whose modules add themselves to it; softrdma;
# librpma's ThreadSanitizer build), then the top-level directories' .mk files (the
# framework's modules, librpmem, the examples), then tools/ and then tests/. A
# reference to a later file's variable in a rule's prerequisites is written $$(VAR).
MODULE_MKS_BASE := librpma/librpma.mk rpmaf/rpmaf.mk softrdma/softrdma.mk tests/mt/mt.mk
MODULE_MKS_TOP := $(filter-out mk/% tools/% tests/% $(MODULE_MKS_BASE),$(sort $(wildcard */*.mk)))
MODULE_MKS_TOOLS := $(sort $(wildcard tools/*.mk tools/*/*.mk))
MODULE_MKS_TESTS := $(filter-out $(MODULE_MKS_BASE),$(sort $(wildcard tests/*/*.mk tests/*/*/*.mk)))
MODULE_MKS := $(MODULE_MKS_BASE) $(MODULE_MKS_TOP) $(MODULE_MKS_TOOLS) $(MODULE_MKS_TESTS)

include librpma/librpma.mk
CHECK_TARGETS += check-install check-fuzz
include $(filter-out librpma/librpma.mk,$(MODULE_MKS))

# ---------------------------------------------------------------- format
# every C file follows .clang-format (clang-format -i FILE fixes one)
CLANG_FORMAT ?= clang-format
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*')

check-format:
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES) && echo "format: $(words $(FORMAT_FILES)) files clean"

# ---------------------------------------------------------------- everything
# run_checks TARGETS -- make each target, go on after a failure, fail at the end,
# and say how long each took, so that a slow suite is seen in the CI's log. With
# CHECK_SUITE_SECONDS (.ci/run sets it), a suite still running after that many
# seconds is stopped (its process group: SIGTERM, SIGKILL a minute later) and
# fails, so that one that hangs cannot take the others' time; a terminal's
# Ctrl-C would not reach a suite in a process group of its own, hence no limit
# by default
CHECK_SUITE_SECONDS ?=
run_checks = failed=0; for t in $(1); do \
		echo "=== make $$t"; start=$$(date +%s); \
		$(if $(CHECK_SUITE_SECONDS),timeout -k 60 $(CHECK_SUITE_SECONDS)) \
			$(MAKE) --no-print-directory $$t; rc=$$?; \
		[ $$rc -eq 0 ] || { echo "=== FAILED: $$t$(if $(CHECK_SUITE_SECONDS),$$( \
			[ $$rc -lt 124 ] || echo " (stopped after $(CHECK_SUITE_SECONDS) s)"))"; failed=1; }; \
		echo "=== $$t: $$(( $$(date +%s) - start )) s"; \
	done; exit $$failed

check: deps
	$(MAKE) librpma
	@$(call run_checks,$(CHECK_TARGETS))

# the sanitizer builds of softrdma under the suites, and the other long runs
check-slow: deps
	$(MAKE) librpma
	@$(call run_checks,$(CHECK_SLOW_TARGETS))

# make check-loop SUITE=check-integration N=20 -- rerun one suite, stop at the first failure
N ?= 10
check-loop:
	@test -n "$(SUITE)" || { echo "check-loop: name the suite, e.g. SUITE=check-integration" >&2; exit 2; }
	@for i in $$(seq 1 $(N)); do \
		echo "=== $(SUITE): run $$i of $(N)"; \
		$(MAKE) --no-print-directory $(SUITE) || { echo "=== $(SUITE) failed on run $$i of $(N)"; exit 1; }; \
	done; echo "=== $(SUITE): $(N) of $(N) runs passed"

clean:
	rm -rf $(CLEAN_DIRS)
