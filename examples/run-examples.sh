#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-examples.sh [BIN_DIR] -- run every example pair over softrdma on
# 127.0.0.1 and check what each side prints and how it exits.
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

srv_args=()
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

# expect FILE LINE... -- check that FILE holds every LINE (fixed strings)
expect() {
	local file=$1 line ok=0
	shift
	for line in "$@"; do
		if ! grep -qF -- "$line" "$file"; then
			echo "  missing in $(basename "$file"): $line"
			ok=1
		fi
	done
	return $ok
}

# simple NAME SERVER_LINES CLIENT_LINES [CLIENT_ARGS...] -- one server, one
# client; the lines are newline-separated lists; the server gets the
# arguments in the array srv_args (emptied before every example)
simple() {
	local name=$1 slines=$2 clines=$3 rc src ok=0
	shift 3
	srv_start "$name" "${srv_args[@]}" || return 1
	cli_run "$WORK/$name.client.out" "$name" "$@"
	rc=$?
	srv_wait
	src=$?
	expect_rc client "$rc" || ok=1
	expect_rc server "$src" || ok=1
	local IFS=$'\n'
	# shellcheck disable=SC2086
	expect "$SRV_OUT" $slines || ok=1
	# shellcheck disable=SC2086
	expect "$WORK/$name.client.out" $clines || ok=1
	return $ok
}

# several NAME CLIENTS SERVER_LINES CLIENT_ARG_PREFIX -- one server and
# CLIENTS clients at once; client i gets the argument PREFIX-i when PREFIX
# is not empty; every client must exit with 0
several() {
	local name=$1 n=$2 slines=$3 prefix=$4 i rc ok=0
	local -a cpids=()
	srv_start "$name" "$n" || return 1
	for ((i = 1; i <= n; i++)); do
		if [ -n "$prefix" ]; then
			cli_run "$WORK/$name.client$i.out" "$name" "$prefix-$i" &
		else
			cli_run "$WORK/$name.client$i.out" "$name" &
		fi
		cpids+=($!)
		PIDS+=($!)
	done
	for ((i = 1; i <= n; i++)); do
		wait "${cpids[$((i - 1))]}"
		rc=$?
		expect_rc "client $i" "$rc" || ok=1
	done
	srv_wait
	rc=$?
	expect_rc server "$rc" || ok=1
	local IFS=$'\n'
	# shellcheck disable=SC2086
	expect "$SRV_OUT" $slines || ok=1
	return $ok
}

# expect_file FILE TEXT -- check that a persistent file holds TEXT
expect_file() {
	if ! grep -qaF -- "$2" "$1"; then
		echo "  $(basename "$1") does not hold '$2'"
		return 1
	fi
}

ex_01() {
	simple 01-connection \
		"server: got private data 'hello from client'
server: connection 1 established
server: connection 1 closed
server: done" \
		"client: connection established
client: got private data 'hello from server'
client: connection closed"
}

ex_02() {
	simple 02-read-to-volatile \
		"server: client 1 connected, exposing 'hello from server'
server: client 1 disconnected
server: done" \
		"client: read 'hello from server'"
}

ex_03() {
	local file="$WORK/03.pmem"
	simple 03-read-to-persistent \
		"server: client 1 disconnected
server: done" \
		"client: read 'hello from server' into persistent memory" "$file" &&
		expect_file "$file" "hello from server"
}

ex_04() {
	local file="$WORK/04.pmem"
	srv_args=(1 "$file")
	simple 04-write-to-persistent \
		"server: client 1 connected
server: got 'hello from client' and persisted it
server: done" \
		"client: wrote 'hello from client'" &&
		expect_file "$file" "hello from client"
}

ex_05() {
	local file="$WORK/05.pmem"
	srv_args=(1 "$file")
	simple 05-flush-to-persistent \
		"server: client 1 connected
server: got 'hello from persistent flush'
server: done" \
		"client: the server supports direct write to PMem
client: wrote 'hello from persistent flush' and flushed it to persistence" \
		"hello from persistent flush" &&
		expect_file "$file" "hello from persistent flush"
}

ex_06() {
	several 06-multiple-connections 3 \
		"server: 'client-1' connected
server: 'client-2' connected
server: 'client-3' connected
server: got 'hello from client-1'
server: got 'hello from client-2'
server: got 'hello from client-3'
server: 'client-1' disconnected
server: 'client-2' disconnected
server: 'client-3' disconnected
server: served 3 clients
server: done" client || return 1
	local i ok=0
	for i in 1 2 3; do
		expect "$WORK/06-multiple-connections.client$i.out" \
			"client: got 'welcome client-$i'" || ok=1
	done
	return $ok
}

ex_07() {
	simple 07-atomic-write \
		"server: client 1 connected
server: log used 17 bytes: 'hello from client'
server: done" \
		"client: appended 'hello from client' and set used to 17"
}

ex_08() {
	simple 08-messages-ping-pong \
		"server: client 1 connected for 4 rounds
server: round 1: got 0, sending 1
server: round 4: got 3, sending 4
server: client 1 disconnected
server: done" \
		"client: round 1: sent 0, got 1
client: round 4: sent 3, got 4
client: counter is 4 after 4 rounds" 4
}

ex_09() {
	# every client plays the default 5 rounds
	several 09-messages-ping-pong-with-srq 3 \
		"server: 3 clients connected, 15 rounds to play
server: answered 15 messages from 3 clients through the SRQ
server: all clients disconnected
server: done" "" || return 1
	local i ok=0
	for i in 1 2 3; do
		expect "$WORK/09-messages-ping-pong-with-srq.client$i.out" \
			"client: round 5: sent 4, got 5" \
			"client: counter is 5 after 5 rounds" || ok=1
	done
	return $ok
}

ex_10() {
	simple 10-send-with-imm \
		"server: got 'hello from client' with imm 4242
server: done" \
		"client: sent 'hello from client' with imm 4242" 4242
}

ex_11() {
	simple 11-write-with-imm \
		"server: got 'hello from client' with imm 5678
server: done" \
		"client: wrote 'hello from client' with imm 5678"
}

ex_12() {
	simple 12-receive-completion-queue \
		"server: client 1 connected for 3 rounds
server: round 3: got 2 on the receive CQ
server: client 1 disconnected
server: done" \
		"client: receive CQ size 4
client: round 3: sent 2, got 3 on the receive CQ
client: counter is 3 after 3 rounds" 3
}

ex_13() {
	simple 13-messages-ping-pong-with-shared-completion-channel \
		"server: client 1 connected for 3 rounds, CQs share a channel
server: round 3: got 2, sending 3
server: client 1 disconnected
server: done" \
		"client: connected, CQ and receive CQ share a completion channel
client: round 3: sent 2, got 3
client: counter is 3 after 3 rounds" 3
}

ex_14() {
	local file="$WORK/14.pmem"
	srv_args=(1 "$file")
	simple 14-flush-to-persistent-gpspm \
		"server: persisted 18 bytes at offset 128: 'hello from client'
server: done" \
		"client: wrote 'hello from client', the server persisted 18 bytes at offset 128" \
		128 &&
		expect_file "$file" "hello from client"
}

ex_15() {
	simple 15-log \
		"server: log threshold is 'error'
server: log: [error] rpma_mr_reg() at
server: rpma_mr_reg(size 0) failed as expected: Invalid argument
server: log: [error] rpma_conn_wait() at
server: rpma_conn_wait() failed as expected:
server: client 1 disconnected
server: 2 messages logged
server: done" \
		"client: threshold 'disabled': the invalid timeout logged 0 messages
client: rpma_errormsg(): 'cfg is NULL or timeout_ms (-1) is negative'
client: log: [error] rpma_conn_cfg_set_timeout() at
client: threshold 'error': the invalid timeout logged 1 message
client: threshold 'debug': the invalid timeout logged 1 message
client: connected with threshold 'debug'
client: done"
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
	if ! declare -F "ex_$num" >/dev/null; then
		echo "FAIL $name (no test for it)"
		failed=$((failed + 1))
		continue
	fi
	if [ ! -x "$BIN/$name/server" ] || [ ! -x "$BIN/$name/client" ]; then
		echo "FAIL $name (not built)"
		failed=$((failed + 1))
		continue
	fi
	srv_args=()
	if "ex_$num"; then
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
