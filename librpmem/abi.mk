# SPDX-License-Identifier: BSD-3-Clause
#
# librpmem/abi.mk -- the checks of librpmem's public interface, which need no
# library built. Included by the top-level Makefile (GNU make):
#   make check-librpmem-abi   tests/unit/librpmem/test_abi.c: <librpmem.h> against
#                             the ABI of PMDK's librpmem 1.11 (the layout of struct
#                             rpmem_pool_attr, every constant, every function's
#                             type); and the header alone compiled as C89 and as
#                             C++98, both pedantic
#   make check-librpmem-man   tools/check-man.sh: a page for every function of the
#                             header and a function for every page, rpmemd(8),
#                             every page rendering without warnings

LIBRPMEM_HDR := librpmem/include/librpmem.h
LIBRPMEM_ABI_BIN := $(BUILD)/librpmem/abi/test_abi
LIBRPMEM_ABI_CFLAGS := -std=gnu11 -g -O0 $(WARN) -Ilibrpmem/include
CXX ?= g++
# the header as a program written for PMDK's librpmem may include it
LIBRPMEM_HDR_C89 := $(CC) -std=c89 -pedantic-errors $(WARN) -fsyntax-only -x c $(LIBRPMEM_HDR)
LIBRPMEM_HDR_CXX := $(CXX) -std=c++98 -pedantic-errors $(WARN) -fsyntax-only -x c++ $(LIBRPMEM_HDR)

$(LIBRPMEM_ABI_BIN): tests/unit/librpmem/test_abi.c $(LIBRPMEM_HDR)
	@mkdir -p $(@D)
	$(CC) $(LIBRPMEM_ABI_CFLAGS) -o $@ $< -lcmocka

.PHONY: check-librpmem-abi check-librpmem-man

check-librpmem-abi: $(LIBRPMEM_ABI_BIN)
	$(LIBRPMEM_HDR_C89)
	$(LIBRPMEM_HDR_CXX)
	@tools/run-tests.sh librpmem $(LIBRPMEM_ABI_BIN)

check-librpmem-man:
	@tools/check-man.sh librpmem/man librpmem/include/librpmem.h rpmem_ \
		'int|const char \*|RPMEMpool \*' man7/librpmem.7 --exact man8/rpmemd.8

CHECK_TARGETS += check-librpmem-abi check-librpmem-man
CLEAN_DIRS += $(BUILD)/librpmem/abi
