#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-service-start.sh -- the daemon helpers of service-start.sh, on stand-in
# programs (no RDMA): a start waits for the new program's own line, not one a
# previous program left in the log; a process that does not stop on its
# signal is shown and killed within the bound, its status 137; a zombie is
# not running; an exit status comes back as it was.
set -u
. "$(dirname "$0")/service-start.sh"
tmp=$(mktemp -d)
trap 'service_cleanup; rm -rf "$tmp"' EXIT
passed=0
failed=0

check() { # check NAME WHY CONDITION...
	local name=$1 why=$2
	shift 2
	if "$@"; then passed=$((passed + 1)); else
		echo "FAIL $name: $why"
		failed=$((failed + 1))
	fi
}

# a stale line: the previous daemon said it listened; the new one says so 0.5 s later
echo "listening on (the previous daemon)" >"$tmp/log"
service_start "$tmp/log" "listening on" 50 sh -c 'sleep 0.5; echo "listening on (new)"'
rc=$?
check stale-log "service_start returned $rc before the new program's line" \
	grep -qF "listening on (new)" "$tmp/log"
check stale-log "the previous daemon's line is still in the log" \
	test "$(grep -c previous "$tmp/log")" -eq 0
service_reap "$SERVICE_PID" 50
check stale-log "the stand-in exited $?" test $? -eq 0

# a start that never says the line: 1 within the bound, the process left to the caller
start=$SECONDS
service_start "$tmp/log" "listening on" 10 sleep 30
rc=$?
check no-line "exit $rc, expected 1" test "$rc" -eq 1
check no-line "took $((SECONDS - start)) s for a 1 s bound" test $((SECONDS - start)) -le 3
service_running "$SERVICE_PID"
check no-line "the process is not running" test $? -eq 0

# it ignores SIGTERM: shown, killed, 137, within the bound
service_stop "$SERVICE_PID" 10 2>"$tmp/err"
check ends "sleep exited $?, expected 143" test $? -eq 143
sh -c 'trap "" TERM; sleep 30 & wait' &
p=$!
sleep 0.2
start=$SECONDS
service_stop "$p" 10 2>"$tmp/err"
rc=$?
check stuck "exit $rc, expected 137" test "$rc" -eq 137
check stuck "took $((SECONDS - start)) s for a 1 s bound" test $((SECONDS - start)) -le 5
check stuck "no line saying it still runs" grep -qF "process $p still runs after 1 s since SIGTERM" \
	"$tmp/err"
check stuck "its tree is not shown" grep -qF "process $p: sh -c" "$tmp/err"
service_running "$p"
check stuck "it still runs" test $? -ne 0

# a zombie (exited, not reaped) is not running; its status comes back
sh -c 'exit 7' &
p=$!
sleep 0.3
service_running "$p"
check zombie "an exited process counts as running" test $? -ne 0
service_reap "$p" 10
check zombie "status $?, expected 7" test $? -eq 7

echo "service-start: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
