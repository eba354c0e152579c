#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-examples.sh [BIN_DIR] -- run every example pair over softrdma on
# 127.0.0.1 and check what each side prints and how it exits; what each
# example is given and must print is in examples/expectations.sh.
#
# BIN_DIR defaults to build/examples. Every program runs under timeout
# ($EXAMPLES_TIMEOUT seconds, default 30); each example gets its own port
# from $EXAMPLES_BASE_PORT on (default 17400). A client that ends with code 3
# (connection rejected or unreachable: the server was not ready yet) is
# started again, a few times. Prints PASS or FAIL per example and a final
# "N passed, M failed" line; exits 1 when anything failed. Processes left by
# an example (there should be none) are killed by their process ids.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${1:-$ROOT/build/examples}" && pwd) || exit 1
RUN="$ROOT/tools/softrdma-run"
ADDR=127.0.0.1
TIMEOUT=${EXAMPLES_TIMEOUT:-30}
BASE_PORT=${EXAMPLES_BASE_PORT:-17400}
CLIENT_TRIES=5
NOT_CONNECTED=3

# shellcheck source=examples/expectations.sh
. "$ROOT/examples/expectations.sh"

WORK=$(mktemp -d /tmp/rpma-examples.XXXXXX) || exit 1
PIDS=()

# kill_tree PID -- kill a process and all its descendants, children first
kill_tree() {
	local child
	for child in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$child"
	done
	kill -KILL "$1" 2>/dev/null
}

# cleanup -- kill whatever this script started and is still running, remove
# the work directory
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill_tree "$pid"
	done
	PIDS=()
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# reap -- kill the processes of the current example that are still running
reap() {
	local pid
	for pid in "${PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "  killing leftover process $pid"
			kill_tree "$pid"
		fi
	done
	PIDS=()
}

# srv_start NAME ARGS... -- start NAME's server on $PORT in the background
# and wait until it listens; sets SRV_PID and SRV_OUT
srv_start() {
	local name=$1
	shift
	SRV_OUT="$WORK/$name.server.out"
	: >"$SRV_OUT"
	timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/$name/server" "$ADDR" "$PORT" "$@" \
		>"$SRV_OUT" 2>&1 &
	SRV_PID=$!
	PIDS+=("$SRV_PID")

	local i
	for ((i = 0; i < 100; i++)); do
		grep -q '^server: listening on' "$SRV_OUT" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "  the server did not start listening"
	return 1
}

# srv_wait -- wait for the server to end; returns its exit code
srv_wait() {
	wait "$SRV_PID"
}

# cli_run OUT NAME ARGS... -- run NAME's client against $PORT with its
# output in OUT, again while it could not connect; returns its exit code
cli_run() {
	local out=$1 name=$2 try rc
	shift 2
	for ((try = 1; try <= CLIENT_TRIES; try++)); do
		timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/$name/client" "$ADDR" "$PORT" "$@" \
			>"$out" 2>&1
		rc=$?
		[ "$rc" -ne "$NOT_CONNECTED" ] && break
		sleep 0.5
	done
	return "$rc"
}

# expect_rc WHAT RC -- check an exit code of 0
expect_rc() {
	if [ "$2" -ne 0 ]; then
		echo "  $1 exited with $2"
		return 1
	fi
}

# run_example NUM NAME -- run example NUM's server and its client(s) as
# examples/expectations.sh describes, then check the exit codes, the lines
# each side printed and the persistent file the example writes
run_example() {
	local num=$1 name=$2 i rc ok=0
	local -a cpids=()

	exp_load "$num" "$WORK" || { echo "  no expectations for it"; return 1; }
	srv_start "$name" "${EXP_SRV_ARGS[@]}" || return 1
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		cli_run "$WORK/$name.client.out" "$name" "${EXP_CLI_ARGS[@]}"
		rc=$?
		expect_rc client "$rc" || ok=1
	else
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			if [ -n "$EXP_CLI_PREFIX" ]; then
				cli_run "$WORK/$name.client$i.out" "$name" "$EXP_CLI_PREFIX-$i" &
			else
				cli_run "$WORK/$name.client$i.out" "$name" &
			fi
			cpids+=($!)
			PIDS+=($!)
		done
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			wait "${cpids[$((i - 1))]}"
			rc=$?
			expect_rc "client $i" "$rc" || ok=1
		done
	fi
	srv_wait
	rc=$?
	expect_rc server "$rc" || ok=1
	exp_check_lines "$SRV_OUT" "$EXP_SRV_LINES" || ok=1
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		exp_check_lines "$WORK/$name.client.out" "$EXP_CLI_LINES" || ok=1
	else
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			exp_check_lines "$WORK/$name.client$i.out" "$EXP_CLI_LINES" "$i" || ok=1
		done
	fi
	[ "$ok" -eq 0 ] && exp_check_file || ok=1
	return $ok
}

# show_outputs NAME -- print what the programs of a failed example printed
show_outputs() {
	local f
	for f in "$WORK/$1".*.out; do
		[ -e "$f" ] || continue
		echo "  --- $(basename "$f")"
		sed 's/^/  | /' "$f"
	done
}

if ! "$RUN" true; then
	echo "softrdma is not available" >&2
	exit 1
fi

passed=0
failed=0
idx=0
for dir in "$ROOT"/examples/[0-9][0-9]-*/; do
	name=$(basename "$dir")
	num=${name%%-*}
	PORT=$((BASE_PORT + idx))
	idx=$((idx + 1))
	if ! declare -F "exp_$num" >/dev/null; then
		echo "FAIL $name (no test for it)"
		failed=$((failed + 1))
		continue
	fi
	if [ ! -x "$BIN/$name/server" ] || [ ! -x "$BIN/$name/client" ]; then
		echo "FAIL $name (not built)"
		failed=$((failed + 1))
		continue
	fi
	if run_example "$num" "$name"; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		show_outputs "$name"
		failed=$((failed + 1))
	fi
	reap
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
