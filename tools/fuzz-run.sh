#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fuzz-run.sh SECONDS BIN... -- run each libFuzzer harness for SECONDS on a
# scratch copy of its seed corpus (fuzz/corpus/NAME), print executions per
# second and total executions, and fail if any harness finds a problem (an
# input that runs over 60 s is one: libFuzzer reports it as a time-out).
set -u
seconds=$1
shift
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	work=$(mktemp -d)
	cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
	log=$(mktemp)
	if "$bin" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 -artifact_prefix="$work/" \
		"$work" >"$log" 2>&1; then
		execs=$(awk -F: '/stat::number_of_executed_units/ {gsub(/ /, "", $NF); print $NF}' "$log")
		rate=$(awk -F: '/stat::average_exec_per_sec/ {gsub(/ /, "", $NF); print $NF}' "$log")
		echo "PASS fuzz/$name: $execs executions, $rate exec/s in ${seconds}s"
	else
		status=1
		echo "FAIL fuzz/$name"
		tail -n 40 "$log" | sed 's/^/    /'
		ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null | sed 's/^/    artifact: /'
	fi
	rm -rf "$work" "$log"
done
exit $status
