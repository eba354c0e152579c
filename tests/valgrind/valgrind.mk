# SPDX-License-Identifier: BSD-3-Clause
#
# tests/valgrind/valgrind.mk -- every example pair under valgrind's memcheck,
# over softrdma. GNU make fragment, included by the top-level Makefile (or
# used as make -f Makefile -f tests/valgrind/valgrind.mk check-valgrind):
#   make check-valgrind   build the examples and softrdma, then run
#                         tests/valgrind/run-valgrind.sh: both sides of every
#                         pair under memcheck, no error and no definite or
#                         indirect leak allowed; then softrdma's churn
#                         test (connections opened, used, closed and peers
#                         killed in loops) under memcheck, whose thread
#                         serialisation exposes close/free races at once
#   make check-framework-valgrind   the framework's integration tests (the
#                         server's and the pool's, with the servers the pool
#                         test runs as children) under memcheck over
#                         softrdma's TCP transport: no error and no definite
#                         or indirect leak in any process
#                         (tests/valgrind/run-framework-valgrind.sh;
#                         check-slow)
#
# Reports inside softrdma's own objects only may be suppressed in
# tests/valgrind/softrdma.supp; librpma and the examples never are.

VALGRIND_BIN ?= valgrind
VALGRIND_TIMEOUT ?= 180
VALGRIND_BASE_PORT ?= 17600
VALGRIND_EXAMPLES_DIR := $(EXAMPLES_BUILD_DIR)

.PHONY: check-valgrind

VALGRIND_CHURN_MS ?= 1500

check-valgrind: examples softrdma $(SOFTRDMA_BUILD)/tests/test_churn
	@VALGRIND=$(VALGRIND_BIN) VALGRIND_TIMEOUT=$(VALGRIND_TIMEOUT) \
		VALGRIND_BASE_PORT=$(VALGRIND_BASE_PORT) \
		tests/valgrind/run-valgrind.sh $(VALGRIND_EXAMPLES_DIR)
	@echo "== softrdma churn under memcheck"
	@# TCP: valgrind 3.19 has no pidfd_open, which the same-host transport needs
	@# towards the native peer processes of the peer-kill loop. --fair-sched:
	@# valgrind runs one thread at a time, and with its default lock the test's
	@# spinning threads could keep softrdma's progress thread from running for
	@# longer than the test waits for a completion
	@SOFTRDMA_TRANSPORT=tcp SOFTRDMA_CHURN_MS=$(VALGRIND_CHURN_MS) timeout $(VALGRIND_TIMEOUT) \
		tools/softrdma-run \
		$(VALGRIND_BIN) -q --fair-sched=yes --error-exitcode=99 \
		--suppressions=tests/valgrind/softrdma.supp \
		$(SOFTRDMA_BUILD)/tests/test_churn

CHECK_TARGETS += check-valgrind

# the test programs come from server/server.mk and pool/pool.mk, read after this
# file: expanded a second time, when the rule is used
VALGRIND_FRAMEWORK_TIMEOUT ?= 600

.PHONY: check-framework-valgrind

check-framework-valgrind: $$(pool_INTEG_BIN) $$(server_INTEG_BIN) softrdma
	@VALGRIND=$(VALGRIND_BIN) VALGRIND_TIMEOUT=$(VALGRIND_FRAMEWORK_TIMEOUT) \
		tests/valgrind/run-framework-valgrind.sh $(pool_INTEG_BIN) $(server_INTEG_BIN)

CHECK_SLOW_TARGETS += check-framework-valgrind
