#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-all.sh TEST_BINARIES...: run softrdma's cmocka tests and the external
# program tests, each bounded by timeout; print "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${SOFTRDMA_ROOT:-$(cd "$here/../.." && pwd)}
export SOFTRDMA_RUN="$root/tools/softrdma-run"
logs=$(mktemp -d /tmp/softrdma-check.XXXXXX)
pass=0
fail=0
skip=0

# Record the outcome of one test.
result() {
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS: $1"
	elif [ "$2" -eq 77 ]; then
		skip=$((skip + 1))
		echo "SKIP: $1 ($(grep -m1 '^SKIP' "$3" 2>/dev/null | cut -c1-200))"
	else
		fail=$((fail + 1))
		echo "FAIL: $1 (rc=$2)"
	fi
}

for t in "$@"; do
	timeout 120 "$SOFTRDMA_RUN" "$t" > "$logs/$(basename "$t").log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && tail -20 "$logs/$(basename "$t").log"
	result "$(basename "$t")" $rc "$logs/$(basename "$t").log"
done

for s in "$here"/ext_*.sh; do
	[ -e "$s" ] || continue
	timeout 180 bash "$s" > "$logs/$(basename "$s").log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && tail -20 "$logs/$(basename "$s").log"
	result "$(basename "$s" .sh)" $rc "$logs/$(basename "$s").log"
done

echo "$pass passed, $fail failed, $skip skipped (logs in $logs)"
[ "$fail" -eq 0 ]
