#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-framework-valgrind.sh BIN... -- run each integration test program of
# the framework (the server's, the pool's) over softrdma's TCP transport
# under valgrind's memcheck, together with every process it starts (the
# pool test runs its servers as children):
#   valgrind --tool=memcheck --trace-children=yes --leak-check=full
#            --errors-for-leak-kinds=definite,indirect --error-exitcode=99
# A program passes when it exits 0 and no report of it or of its children
# holds an error record or a definite or indirect leak (a child killed by
# its test leaves no exit code: its report is what counts). A pool test's
# server that exits reports through its exit code too: the test ends it
# with SIGTERM and wants 0.
#
# tests/valgrind/softrdma.supp is passed to valgrind (reports inside
# softrdma's own objects only). Environment: VALGRIND (default valgrind),
# VALGRIND_TIMEOUT (seconds per program, default 600), VALGRIND_SOFTRDMA_RUN
# (default tools/softrdma-run). Prints PASS or FAIL per program and a final
# "N passed, M failed" line; exits 1 when anything failed.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=${VALGRIND_SOFTRDMA_RUN:-$ROOT/tools/softrdma-run}
VG=${VALGRIND:-valgrind}
SUPP="$ROOT/tests/valgrind/softrdma.supp"
TIMEOUT=${VALGRIND_TIMEOUT:-600}
VG_ERROR=99
# the first line of every memcheck error record, and of the leak records that count
RECORD='^==[0-9]+== (Invalid (read|write|free)|Mismatched free|Conditional jump|Use of uninitialised|Syscall param|Source and destination overlap|Argument .* of function|Jump to|Process terminating|[0-9,]+ (\([0-9,]+ direct, [0-9,]+ indirect\) )?bytes in [0-9,]+ blocks are (definitely|indirectly) lost)'

if ! command -v "$VG" >/dev/null; then
	echo "valgrind is not available" >&2
	exit 1
fi
WORK=$(mktemp -d /tmp/rpmaf-valgrind.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT

passed=0
failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	start=$(date +%s)
	SOFTRDMA_TRANSPORT=tcp timeout -k 10 "$TIMEOUT" "$RUN" "$VG" -q --tool=memcheck --fair-sched=yes \
		--trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=$VG_ERROR --suppressions="$SUPP" \
		--log-file="$WORK/$name.vg.%p" "$bin" >"$WORK/$name.out" 2>&1
	rc=$?
	ok=1
	if [ "$rc" -eq "$VG_ERROR" ]; then
		echo "  $name: valgrind found errors (exit code $rc)"
		ok=0
	elif [ "$rc" -ne 0 ]; then
		echo "  $name exited with $rc"
		ok=0
	fi
	bad=$(grep -lE "$RECORD" "$WORK/$name".vg.* 2>/dev/null)
	if [ -n "$bad" ]; then
		echo "  $name: error records in $(echo "$bad" | wc -l) valgrind report(s)"
		ok=0
	fi
	if [ $ok -eq 1 ]; then
		passed=$((passed + 1))
		echo "PASS $name ($(( $(date +%s) - start )) s)"
	else
		failed=$((failed + 1))
		echo "FAIL $name ($(( $(date +%s) - start )) s)"
		tail -n 40 "$WORK/$name.out" | sed 's/^/    /'
		for f in $bad; do
			echo "    --- $(basename "$f")"
			head -n 80 "$f" | sed 's/^/    /'
		done
	fi
done
echo "framework-valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
