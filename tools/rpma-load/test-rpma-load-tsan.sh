#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-load-tsan.sh LOAD SERVER -- rpma-load built with the framework
# and librpma on ThreadSanitizer (LOAD) against a running rpma-server
# (SERVER), over softrdma: closed loops run on the workers, and completions
# of connections owned by another worker are forwarded to the thread's own.
#   1. 3 threads over 3 connections on 2 workers, 2 s, every kind, --verify,
#      with a timeline and --keep-running (the main thread reads the
#      threads' counters every 100 ms), every operation accounted for once;
#   2. a count of 5000 operations over 1 connection: the threads bound to
#      the worker without a connection get every completion forwarded.
# Each must exit 0 with every record verified and no ThreadSanitizer
# report (halt_on_error: a report ends the run with an error).
#   3. SIGINT in the middle of a 20 s run (what is in flight is abandoned
#      and completed by the pool's deletion): exit 130, no report.
#   RPMA_LOAD_TEST_PORT   the TCP port used (default 17890, in 17800-17899)
#   TSAN_SUPP             the suppressions file (softrdma's and liburcu's)
set -u
TOOL=$1
server=$2
. "$(dirname "$0")/../tool-test.sh"
. "$(dirname "$0")/test-workload.sh"
port=${RPMA_LOAD_TEST_PORT:-17890}
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=${TSAN_SUPP:?}"

service_config "$tmp/c.yaml" "$port" "$tmp/data.pmem" workers=2 conns=3 size=4M connect_ms=5000 \
	operation_ms=10000
workload_every_kind "$tmp/w.yaml" 3 8
grep -v '^duration' "$tmp/w.yaml" >"$tmp/count.yaml"
echo "count: 5000" >>"$tmp/count.yaml"

server_start "$server" "$tmp/c.yaml"

# expect_tsan NAME ARGS... -- a clean run: exit 0, all verified, no report
expect_tsan() {
	local name=$1
	shift
	timeout 120 "$run" "$TOOL" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne 0 ]; then
		ko "$name" "exit $rc"
	elif grep -q "ThreadSanitizer" "$tmp/err"; then
		ko "$name" "a ThreadSanitizer report"
	elif ! grep -qE "verify: [1-9][0-9]* records read back, 0 bad" "$tmp/out"; then
		ko "$name" "no clean verification"
	else
		ok
	fi
}

expect_tsan duration -c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify --timeline "$tmp/tl.csv" \
	--keep-running --json="$tmp/d.json"
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["accounting"]
assert a["submitted"] == a["rejected"] + a["completed_ok"] + a["completed_failed"] > 0, a
assert a["never_completed"] == a["completed_twice"] == a["late"] == a["in_flight"] == 0, a
' "$tmp/d.json" && [ "$(wc -l <"$tmp/tl.csv")" -ge 15 ] && ok ||
	ko duration "the accounting does not add up, or no timeline"
expect_tsan count -c "$tmp/c.yaml" -w "$tmp/count.yaml" --verify \
	--set "targets[0].connections=1"
grep -qE "^total +5000 " "$tmp/out" && ok || ko count "not 5000 operations"

timeout 120 "$run" "$TOOL" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify \
	--set workload.duration=20s >"$tmp/out" 2>"$tmp/err" &
load=$!
sleep 4
kill -INT "$load"
wait "$load"
rc=$?
[ "$rc" -eq 130 ] && ok || ko interrupted "exit $rc, expected 130"
grep -q "ThreadSanitizer" "$tmp/err" && ko interrupted "a ThreadSanitizer report" || ok

server_stop
summary rpma-load-tsan
