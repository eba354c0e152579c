# SPDX-License-Identifier: BSD-3-Clause
#
# tests/valgrind/valgrind.mk -- every example pair under valgrind's memcheck,
# over softrdma. GNU make fragment, included by the top-level Makefile (or
# used as make -f Makefile -f tests/valgrind/valgrind.mk check-valgrind):
#   make check-valgrind   build the examples and softrdma, then run
#                         tests/valgrind/run-valgrind.sh: both sides of every
#                         pair under memcheck, no error and no definite or
#                         indirect leak allowed
#
# Reports inside softrdma's own objects only may be suppressed in
# tests/valgrind/softrdma.supp; librpma and the examples never are.

VALGRIND_BIN ?= valgrind
VALGRIND_TIMEOUT ?= 180
VALGRIND_BASE_PORT ?= 17600
VALGRIND_EXAMPLES_DIR := $(if $(EXAMPLES_BUILD_DIR),$(EXAMPLES_BUILD_DIR),build/examples)

.PHONY: check-valgrind

check-valgrind: examples softrdma
	@VALGRIND=$(VALGRIND_BIN) VALGRIND_TIMEOUT=$(VALGRIND_TIMEOUT) \
		VALGRIND_BASE_PORT=$(VALGRIND_BASE_PORT) \
		tests/valgrind/run-valgrind.sh $(VALGRIND_EXAMPLES_DIR)
