# SPDX-License-Identifier: BSD-3-Clause
#
# tools/run/run.mk -- the framework's service at work, included by the
# top-level Makefile (GNU make):
#   make run         install missing Debian packages, build librpma, softrdma,
#                    librpmaf, rpma-server, rpma-load and rpma-config (the
#                    README's tour uses all three), then run
#                    tools/run/run-service.sh: the server of
#                    config/examples/demo.yaml and the load of
#                    config/examples/workloads/demo.yaml over softrdma on
#                    127.0.0.1, the data verified during the run and in the
#                    server's region file afterwards; PASS or FAIL last
#   make check-run   the same with a shorter run on a port of its own (make check)
#   make check-tour  the README's five-minute tour, its commands run as written
#                    (tools/run/check-tour.sh; port 7204 and /tmp/rpma-demo.pmem,
#                    as demo.yaml says)
#
# RUN_CONFIG, RUN_WORKLOAD: what runs; RUN_PORT: the port (default: the
# configuration's); RUN_TIMEOUT: the seconds each step may take at most.
# check-run uses RUN_CHECK_PORT and RUN_CHECK_DURATION instead.

RUN_SCRIPT := tools/run/run-service.sh
RUN_CONFIG ?= config/examples/demo.yaml
RUN_WORKLOAD ?= config/examples/workloads/demo.yaml
RUN_PORT ?=
RUN_TIMEOUT ?= 30
RUN_CHECK_PORT ?= 17900
RUN_CHECK_DURATION ?= 1s

# run_service EXTRA -- the script on the built tools with the settings above
run_service = $(RUN_SCRIPT) -b $(BUILD)/tools -c $(RUN_CONFIG) -w $(RUN_WORKLOAD) \
	-t $(RUN_TIMEOUT) $(1)

.PHONY: run check-run run-service run-service-check check-tour

# The packages must be in place before anything is compiled, also under -j:
# hence `deps` first, then a make of the rest (as `make check` does).
run: deps
	@$(MAKE) --no-print-directory run-service

check-run: deps
	@$(MAKE) --no-print-directory run-service-check

run-service: librpma softrdma rpma-server rpma-load $(RPMA_CONFIG_BIN)
	@$(call run_service,$(if $(RUN_PORT),-p $(RUN_PORT)))

run-service-check: librpma softrdma rpma-server rpma-load
	@$(call run_service,-p $(RUN_CHECK_PORT) -d $(RUN_CHECK_DURATION))

check-tour: librpma softrdma rpma-server rpma-load $(RPMA_CONFIG_BIN)
	@tools/run/check-tour.sh README.md

CHECK_TARGETS += check-run check-tour
