# SPDX-License-Identifier: BSD-3-Clause
#
# tool-test.sh -- what the tools' test scripts share, sourced after TOOL is
# set to the program under test: a temporary directory $tmp (removed at
# exit, with the background process $pid killed), counting checks, and
# running the tool over softrdma with its exit status and output checked.
#   ok                        count a passed check
#   ko NAME WHY               count a failed one: say why, show the output's end
#   expect NAME STATUS PATTERN ARGS...
#                             run "$TOOL ARGS..." (30 s at most: then its stacks
#                             are shown and it is killed, exit 137): it must exit
#                             with STATUS ("nz": any failure but a kill) and
#                             print PATTERN (an extended regular expression) on
#                             its standard output ($tmp/out) or error ($tmp/err)
#   summary NAME              the line "NAME: P passed, F failed"; the exit status
#   server_start SERVER CONFIG  start rpma-server SERVER on CONFIG in the background
#                             ($pid; its output in $tmp/srv.log) and count a
#                             check: it says "listening on" within 10 s
#   server_stop               SIGTERM the server $pid and count a check: it exits 0
#                             within 30 s (else its stacks are shown and it is killed)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/tools/common/service-start.sh"
run="$root/tools/softrdma-run"
tmp=$(mktemp -d)
pid=
passed=0
failed=0

# cleanup -- nothing left behind, whatever happened
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passed=$((passed + 1)); }

ko() {
	local f
	echo "FAIL $1: $2"
	for f in out err log; do [ -s "$tmp/$f" ] && sed 's/^/    /' "$tmp/$f" | tail -12; done
	failed=$((failed + 1))
}

expect() {
	local name=$1 want=$2 text=$3 got
	shift 3
	"$run" "$TOOL" "$@" >"$tmp/out" 2>"$tmp/err" &
	service_reap $! 300
	got=$?
	if [ "$want" = nz ] && { [ "$got" -eq 0 ] || [ "$got" -ge 124 ]; }; then
		ko "$name" "exit $got, expected a failure"
	elif [ "$want" != nz ] && [ "$got" -ne "$want" ]; then
		ko "$name" "exit $got, expected $want"
	elif ! grep -qE -- "$text" "$tmp/out" "$tmp/err"; then
		ko "$name" "no /$text/ in the output"
	else
		ok
	fi
}

summary() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

server_start() {
	service_start "$tmp/srv.log" "listening on" 100 "$run" "$1" -c "$2" --set log.level=notice &&
		ok || ko server "did not start"
	pid=$SERVICE_PID
}

server_stop() {
	local rc
	service_stop "$pid"
	rc=$?
	pid=
	[ "$rc" -eq 0 ] && ok || ko server-stop "exit $rc after SIGTERM"
}
