# SPDX-License-Identifier: BSD-3-Clause
#
# tools/tools-man.mk -- the manual pages of the programs, included by the
# top-level Makefile (GNU make):
#   make check-tools-man   tools/check-tools-man.sh on every page in
#                          tools/*/man/, on rpmemd's (librpmem/man/man8)
#                          and on softrdma's: it renders without warnings,
#                          and names every option the program's --help
#                          prints (rpmemd's and softrdma-run's too) and
#                          every variable softrdma reads
#
# A program's page is tools/NAME/man/man[1-8]/NAME.[1-8]; the programs of
# TOOLS_MAN_PROGS (build/tools/NAME) have their --help checked against it.

TOOLS_MAN_PROGS := rpma-config rpma-server rpma-load
TOOLS_MAN_BINS := $(addprefix $(BUILD)/tools/,$(TOOLS_MAN_PROGS))

.PHONY: check-tools-man

TOOLS_MAN_PAGES = $(wildcard tools/*/man/man[1-8]/*.[1-8])

check-tools-man: $(TOOLS_MAN_BINS) $(BUILD)/tools/rpmemd
	@set -e; for page in $(TOOLS_MAN_PAGES); do \
		name=$$(basename $$page); name=$${name%.*}; \
		case " $(TOOLS_MAN_PROGS) " in \
		*" $$name "*) tools/check-tools-man.sh $$page --help $(BUILD)/tools/$$name ;; \
		*) tools/check-tools-man.sh $$page ;; \
		esac; \
	done
	@tools/check-tools-man.sh librpmem/man/man8/rpmemd.8 --help $(BUILD)/tools/rpmemd
	@tools/check-tools-man.sh softrdma/man/man1/softrdma-run.1 --help tools/softrdma-run \
		--env '\$$\{?SOFTRDMA_[A-Z_]+' tools/softrdma-run
	@tools/check-tools-man.sh softrdma/man/man7/softrdma.7 \
		--env '"SOFTRDMA_[A-Z_]+"' $(wildcard softrdma/src/*.c)

CHECK_TARGETS += check-tools-man
