# SPDX-License-Identifier: BSD-3-Clause
#
# tests/faults/faults.mk -- the multi-host fault harness (tests/faults/faults.sh:
# hosts as network namespaces behind a switch, faults injected by the harness),
# included by the top-level Makefile (GNU make):
#   make check-faults    the short set (link down 3 s, server frozen 3 s, server
#                        killed and restarted, a region file that cannot be
#                        created), about a minute: data intact, every operation
#                        accounted for once, no hang, no crash (check-slow; it
#                        needs root, and is skipped without)
#   make faults-table    every scenario, the librpmem ones included; the table
#                        into $(BUILD)/faults/table.md (doc/FAULTS.md holds one run)
#   make faults FAULTS="link-down-long two-servers"   the scenarios named
#                        (tests/faults/faults.sh --list names them all)
# FAULTS_STRICT=1 makes the failure-count goals pass criteria as well (check-faults: the default).

FAULTS_SH := tests/faults/faults.sh
FAULTS_DEPS := $(RPMA_SERVER_BIN) $(RPMA_LOAD_BIN) softrdma
FAULTS_RPMEM_DEPS = $(RPMEMD_BIN) librpmem $(PMEMOBJ_TEST_BIN)
FAULTS_TABLE := $(BUILD)/faults/table.md
FAULTS ?=

# faults_run SECONDS,ARGS -- the harness with ARGS, bounded, its status in $$rc; a skip
# (exit 77) said and not failed
faults_run = rc=0; timeout -k 10 $(1) $(FAULTS_SH) $(2) || rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "$@: skipped (the SKIP line above says why)"; rc=0; fi

.PHONY: check-faults faults-table faults

# the short set holds the goals too (FAULTS_STRICT=0 to measure without them)
check-faults: $(FAULTS_DEPS)
	@export FAULTS_STRICT=$${FAULTS_STRICT:-1}; $(call faults_run,300,--short); exit $$rc

faults-table: $(FAULTS_DEPS) $$(FAULTS_RPMEM_DEPS)
	@mkdir -p $(dir $(FAULTS_TABLE))
	@$(call faults_run,1200,--all --table $(FAULTS_TABLE)); \
	echo "faults-table: $(FAULTS_TABLE)"; exit $$rc

faults: $(FAULTS_DEPS) $$(if $$(filter rpmem-%,$$(FAULTS)),$$(FAULTS_RPMEM_DEPS))
	@test -n "$(FAULTS)" || { echo "faults: name the scenarios: FAULTS=\"...\" ($(FAULTS_SH) --list)" >&2; exit 2; }
	@$(call faults_run,1200,$(FAULTS)); exit $$rc

CHECK_SLOW_TARGETS += check-faults
