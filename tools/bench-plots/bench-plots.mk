# SPDX-License-Identifier: BSD-3-Clause
#
# tools/bench-plots/bench-plots.mk -- the charts of doc/BENCHMARKS.md,
# included by the top-level Makefile (GNU make):
#   make bench-plots        draw every data file doc/bench/NAME.csv with
#                           tools/bench-plots/NAME.gp (gnuplot) into
#                           doc/bench/NAME.svg; the same data gives the same bytes
#   make check-bench-plots  draw them again into build/bench-plots/ and compare
#                           with the committed charts; check that every data file
#                           has its script, its chart and the command that made it,
#                           that its numbers are those of the document's table,
#                           that every chart parses and the document embeds it
#                           (tools/bench-plots/check.py)
#   make bench-cdf          run rpma-load --histogram against rpma-server for each
#                           kind of operation into doc/bench/latency-cdf.csv and
#                           draw it (tools/bench-plots/bench-cdf.sh; knobs
#                           BENCH_CDF_ARGS, e.g. "-t 5 -s 4096 -q 32")
#   make check-bench-cdf-smoke  the same in 0.2 s per kind into
#                           build/bench-cdf-smoke/ (a port at random), drawn
#                           there: rpma-load's histogram, bench-cdf.sh and
#                           latency-cdf.gp still agree

BENCH_PLOTS_DATA := doc/bench
BENCH_PLOTS_OUT := $(BUILD)/bench-plots
BENCH_PLOTS_TOOLS := tools/bench-plots

.PHONY: bench-plots check-bench-plots bench-cdf check-bench-cdf-smoke

bench-plots:
	@$(BENCH_PLOTS_TOOLS)/render.sh $(BENCH_PLOTS_DATA) $(BENCH_PLOTS_DATA)

check-bench-plots:
	@rm -rf $(BENCH_PLOTS_OUT)
	@$(BENCH_PLOTS_TOOLS)/render.sh $(BENCH_PLOTS_DATA) $(BENCH_PLOTS_OUT) >/dev/null
	@python3 $(BENCH_PLOTS_TOOLS)/check.py doc/BENCHMARKS.md $(BENCH_PLOTS_DATA) \
		$(BENCH_PLOTS_TOOLS) $(BENCH_PLOTS_OUT)

BENCH_CDF_ARGS ?=
bench-cdf: $$(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) softrdma
	@$(BENCH_PLOTS_TOOLS)/bench-cdf.sh -b $(BUILD) $(BENCH_CDF_ARGS)
	@$(BENCH_PLOTS_TOOLS)/render.sh $(BENCH_PLOTS_DATA) $(BENCH_PLOTS_DATA)

BENCH_CDF_SMOKE := $(BUILD)/bench-cdf-smoke
check-bench-cdf-smoke: $$(RPMA_LOAD_BIN) $$(RPMA_SERVER_BIN) softrdma
	@rm -rf $(BENCH_CDF_SMOKE) && mkdir -p $(BENCH_CDF_SMOKE)
	@$(BENCH_PLOTS_TOOLS)/bench-cdf.sh -b $(BUILD) -t 0.2 -p $$((18000 + $$$$ % 900)) \
		-o $(BENCH_CDF_SMOKE)/latency-cdf.csv
	@$(BENCH_PLOTS_TOOLS)/render.sh $(BENCH_CDF_SMOKE) $(BENCH_CDF_SMOKE)
	@echo "PASS bench-cdf smoke: $$(grep -cvE '^(#|kind,)' $(BENCH_CDF_SMOKE)/latency-cdf.csv) rows, drawn"

CHECK_TARGETS += check-bench-plots
CHECK_SLOW_TARGETS += check-bench-cdf-smoke
