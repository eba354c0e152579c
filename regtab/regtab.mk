# SPDX-License-Identifier: BSD-3-Clause
#
# regtab/regtab.mk -- the region table (RCU, liburcu's urcu-qsbr flavour and
# cds_lfht), a module of librpmaf (mk/module.mk): its tests, included by the
# top-level Makefile (GNU make):
#   make check-regtab          the cmocka tests of tests/unit/regtab/, built with gcc
#                              (gcov) and with clang AddressSanitizer+UBSan, run both
#   make check-regtab-torture  tests/torture/regtab_torture.c built with clang
#                              ThreadSanitizer and with clang AddressSanitizer+UBSan, each
#                              run REGTAB_TORTURE_SECONDS (2 here, 15 in check-slow)
#   make check-regtab-torture-canfail   the same torture linked with a call_rcu that
#                              frees at once (no grace period): each sanitizer must catch it
#   make coverage-regtab       line coverage of regtab/*.c from the gcc run

REGTAB_SRCS := $(sort $(wildcard regtab/*.c))
REGTAB_HDRS := $(wildcard regtab/*.h) $(wildcard proto/*.h)
# entries are checked with the control protocol's own rules (proto/region.c)
REGTAB_DEP_SRCS := $(sort $(wildcard proto/*.c))
URCU_LIBS := -lurcu-qsbr -lurcu-common -lurcu-cds
REGTAB_LIBS := $(URCU_LIBS) -lsodium -pthread
REGTAB_CFLAGS := $(CFLAGS_BASE) -Iregtab -Iproto

MODULE := regtab
MODULE_LIB := rpmaf
MODULE_HDRS := $(REGTAB_HDRS)
MODULE_CFLAGS := -Iregtab -Iproto
MODULE_LIBS := $(REGTAB_LIBS)
MODULE_UNIT_DEP_SRCS := $(REGTAB_DEP_SRCS)
# the tests make allocations fail on purpose
MODULE_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
MODULE_CHECK := check-regtab
include mk/module.mk

# the torture: clang TSan and clang ASan+UBSan builds, and the same with the planted bug
REGTAB_TORTURE_SRC := tests/torture/regtab_torture.c
REGTAB_TORTURE_BUG := tests/torture/regtab_no_grace.c
REGTAB_TORTURE_DEPS := $(REGTAB_TORTURE_SRC) $(REGTAB_SRCS) $(REGTAB_DEP_SRCS) $(REGTAB_HDRS)
REGTAB_TORTURE_FLAGS_tsan := $(TSAN_FLAGS)
REGTAB_TORTURE_FLAGS_asan := $(SAN_FLAGS)
REGTAB_TORTURE_BINS := $(BUILD)/regtab/torture-tsan $(BUILD)/regtab/torture-asan
REGTAB_CANFAIL_BINS := $(BUILD)/regtab/torture-bug-tsan $(BUILD)/regtab/torture-bug-asan

$(BUILD)/regtab/torture-%: $(REGTAB_TORTURE_DEPS)
	@mkdir -p $(@D)
	$(CLANG) $(REGTAB_CFLAGS) -O1 $(REGTAB_TORTURE_FLAGS_$*) -o $@ $(REGTAB_TORTURE_SRC) \
		$(REGTAB_SRCS) $(REGTAB_DEP_SRCS) $(REGTAB_LIBS)

$(BUILD)/regtab/torture-bug-%: $(REGTAB_TORTURE_DEPS) $(REGTAB_TORTURE_BUG)
	@mkdir -p $(@D)
	$(CLANG) $(REGTAB_CFLAGS) -O1 $(REGTAB_TORTURE_FLAGS_$*) -o $@ $(REGTAB_TORTURE_SRC) \
		$(REGTAB_TORTURE_BUG) $(REGTAB_SRCS) $(REGTAB_DEP_SRCS) $(REGTAB_LIBS) \
		-Wl,--wrap=urcu_qsbr_call_rcu

REGTAB_TORTURE_SECONDS ?= 2
REGTAB_TORTURE_SLOW_SECONDS ?= 15
REGTAB_SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(abspath tests/torture/regtab-tsan.supp)

.PHONY: check-regtab-torture check-regtab-torture-slow \
	check-regtab-torture-canfail

# regtab_torture_run SECONDS -- each sanitizer build for SECONDS, its figures printed
regtab_torture_run = for b in $(REGTAB_TORTURE_BINS); do \
		echo "$$(basename $$b):"; \
		$(REGTAB_SAN_ENV) REGTAB_TORTURE_SECONDS=$(1) timeout -k 5 $$(($(1) * 4 + 30)) $$b \
			|| exit 1; \
	done

check-regtab-torture: $(REGTAB_TORTURE_BINS)
	@$(call regtab_torture_run,$(REGTAB_TORTURE_SECONDS))

check-regtab-torture-slow: $(REGTAB_TORTURE_BINS)
	@$(call regtab_torture_run,$(REGTAB_TORTURE_SLOW_SECONDS))

# with no grace period the torture must fail, with a sanitizer's report or
# its own check of a dead object (whichever of the threads sees it first)
check-regtab-torture-canfail: $(REGTAB_CANFAIL_BINS)
	@for b in $(REGTAB_CANFAIL_BINS); do \
		log=$$(mktemp); \
		if $(REGTAB_SAN_ENV) REGTAB_TORTURE_SECONDS=10 timeout -k 5 60 $$b >$$log 2>&1; then \
			echo "FAIL $$(basename $$b): the planted use-after-free went unnoticed"; \
			cat $$log; rm -f $$log; exit 1; \
		fi; \
		if ! grep -qE 'ThreadSanitizer: (data race|heap-use-after-free)|AddressSanitizer: (heap-use-after-free|SEGV)|regtab_torture: VIOLATION: the entry.s object is dead' $$log; then \
			echo "FAIL $$(basename $$b): failed without a report of the use-after-free:"; \
			tail -n 20 $$log; rm -f $$log; exit 1; \
		fi; \
		echo "PASS $$(basename $$b): caught: $$(grep -m1 -oE '(Thread|Address)Sanitizer: [a-z-]+( [a-z]+)?|VIOLATION: [^(]+' $$log)"; \
		rm -f $$log; \
	done

CHECK_TARGETS += check-regtab-torture
CHECK_SLOW_TARGETS += check-regtab-torture-slow check-regtab-torture-canfail
