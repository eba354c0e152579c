#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-tests.sh SUITE BIN... -- run each test program with a time limit, report
# each one, and close with "N passed, M failed, K skipped"; exits non-zero on
# any failure. A program that exits 77 could not run here (it prints a SKIP
# line saying why): it is counted as skipped, never as passed.
# TEST_TIMEOUT: seconds per program (120); TEST_WRAPPER: a command to run each
# program under (tools/softrdma-run, say).
set -u
suite=$1
shift
limit=${TEST_TIMEOUT:-120}
passed=0
failed=0
skipped=0
failures=()
for bin in "$@"; do
	log=$(mktemp)
	# shellcheck disable=SC2086 # the wrapper may be empty or carry arguments
	if timeout -k 5 "$limit" ${TEST_WRAPPER:-} "$bin" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "PASS $suite/$(basename "$bin")"
	else
		rc=$?
		if [ "$rc" -eq 77 ]; then
			# the program said it cannot run here (a SKIP line says why):
			# reported and counted apart, never as passed
			skipped=$((skipped + 1))
			echo "SKIP $suite/$(basename "$bin"): $(grep -m1 '^SKIP' "$log" | cut -c1-200)"
			rm -f "$log"
			continue
		fi
		failed=$((failed + 1))
		failures+=("$(basename "$bin")")
		echo "FAIL $suite/$(basename "$bin") (exit $rc)"
		tail -n 60 "$log" | sed 's/^/    /'
	fi
	rm -f "$log"
done
echo "$suite: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
