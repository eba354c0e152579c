#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-demo.sh -- the demonstration of `make run`, over softrdma on loopback:
# a server exports a file mapped with libpmem2 as a persistent region, a
# client writes records into it, flushes them to persistence, reads them
# back and verifies them; afterwards the file is opened anew and checked.
#
# Settings (environment; `make run` passes them from its DEMO_* variables):
#   DEMO_BIN          the programs' directory (build/demo)
#   DEMO_RECORDS      records to write (16384)
#   DEMO_RECORD_SIZE  bytes per record (4096)
#   DEMO_BATCH        records per persistent flush (16)
#   DEMO_QUEUE_DEPTH  flushes in flight (8)
#   DEMO_REGION_MIB   the size of the server's file (64)
#   DEMO_ADDR         the address to listen on and connect to (127.0.0.1)
#   DEMO_PORT         the port (7204)
#   DEMO_TIMEOUT      seconds each program may take at most (120)
#   DEMO_FILE         keep the server's file at this path (default: a
#                     temporary file, removed at the end)
#
# Exits 0 when every step succeeded and every record was verified, 1
# otherwise. Whatever it started is killed, by process id, before it ends.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${DEMO_BIN:-$ROOT/build/demo}
RUN="$ROOT/tools/softrdma-run"
RECORDS=${DEMO_RECORDS:-16384}
RECORD_SIZE=${DEMO_RECORD_SIZE:-4096}
BATCH=${DEMO_BATCH:-16}
DEPTH=${DEMO_QUEUE_DEPTH:-8}
MIB=${DEMO_REGION_MIB:-64}
ADDR=${DEMO_ADDR:-127.0.0.1}
PORT=${DEMO_PORT:-7204}
TIMEOUT=${DEMO_TIMEOUT:-120}
NOT_CONNECTED=3
CLIENT_TRIES=5

WORK=$(mktemp -d /tmp/rpma-demo.XXXXXX) || exit 1
FILE=${DEMO_FILE:-$WORK/demo.pmem}
SRV_OUT="$WORK/server.out"
CLI_OUT="$WORK/client.out"
SRV_PID=
CLI_PID=
TAIL_PID=

# say -- print a line of the script's own
say() {
	echo "demo: $*"
}

# kill_tree PID -- kill a process and all its descendants, children first
kill_tree() {
	local child
	for child in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$child"
	done
	kill -KILL "$1" 2>/dev/null
}

# stop NAME PID -- end a process this script started: SIGTERM (timeout passes
# it on to the program and reaps it), then SIGKILL to the whole tree if it
# is still there after 2 s
stop() {
	local i
	kill -0 "$2" 2>/dev/null || return 0
	say "stopping the $1 (pid $2)"
	kill -TERM "$2" 2>/dev/null
	for ((i = 0; i < 20; i++)); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$2" 2>/dev/null && kill_tree "$2"
	wait "$2" 2>/dev/null
}

# cleanup -- stop the client and the server if they still run, remove the
# work directory
cleanup() {
	if [ -n "$TAIL_PID" ]; then
		kill -TERM "$TAIL_PID" 2>/dev/null
		{ wait "$TAIL_PID"; } 2>/dev/null
	fi
	[ -n "$CLI_PID" ] && stop client "$CLI_PID"
	[ -n "$SRV_PID" ] && stop server "$SRV_PID"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fail WHAT -- print the server's output not shown yet and end with 1
fail() {
	show_server
	say "FAILED: $*"
	exit 1
}

# show_server -- print the lines of the server's output not printed yet
SRV_SHOWN=0
show_server() {
	[ -e "$SRV_OUT" ] || return 0
	local total
	total=$(wc -l <"$SRV_OUT")
	if [ "$total" -gt "$SRV_SHOWN" ]; then
		tail -n "+$((SRV_SHOWN + 1))" "$SRV_OUT" | head -n "$((total - SRV_SHOWN))"
		SRV_SHOWN=$total
	fi
}

for prog in demo-server demo-client demo-verify; do
	[ -x "$BIN/$prog" ] || fail "$BIN/$prog is not built (make demo)"
done
"$RUN" true || fail "softrdma is not available (make softrdma)"

say "librpma over softrdma on $ADDR:$PORT: $RECORDS records of $RECORD_SIZE bytes" \
	"into a ${MIB} MiB file-backed region"

# the server, in the background, until it listens
timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/demo-server" -f "$FILE" -m "$MIB" "$ADDR" "$PORT" \
	>"$SRV_OUT" 2>&1 &
SRV_PID=$!
for ((i = 0; i < 300; i++)); do
	grep -qs '^server: listening on' "$SRV_OUT" && break
	kill -0 "$SRV_PID" 2>/dev/null || break
	sleep 0.1
done
show_server
grep -q '^server: listening on' "$SRV_OUT" || fail "the server did not start listening"

# the client, followed live; again while the server was not reachable yet
for ((try = 1; try <= CLIENT_TRIES; try++)); do
	: >"$CLI_OUT"
	timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/demo-client" -n "$RECORDS" -s "$RECORD_SIZE" \
		-b "$BATCH" -q "$DEPTH" "$ADDR" "$PORT" >"$CLI_OUT" 2>&1 &
	CLI_PID=$!
	# in the background too, so that a signal to this script acts at once
	tail -n +1 -s 0.1 -f --pid="$CLI_PID" "$CLI_OUT" &
	TAIL_PID=$!
	wait "$CLI_PID"
	rc=$?
	CLI_PID=
	wait "$TAIL_PID"
	TAIL_PID=
	[ "$rc" -ne "$NOT_CONNECTED" ] && break
	say "the client could not connect, trying again"
	sleep 0.5
done
[ "$rc" -eq 124 ] && fail "the client did not finish within $TIMEOUT s"
[ "$rc" -eq 0 ] || fail "the client exited with $rc"

# the server ends once the client is gone and the region is persisted
wait "$SRV_PID"
src=$?
show_server
SRV_PID=
[ "$src" -eq 124 ] && fail "the server did not finish within $TIMEOUT s"
[ "$src" -eq 0 ] || fail "the server exited with $src"

# the file, opened anew: are the records there?
"$BIN/demo-verify" -n "$RECORDS" -s "$RECORD_SIZE" "$FILE" ||
	fail "the file does not hold every record"

say "summary:"
grep -E '^client: (write\+flush|read\+verify|verified)' "$CLI_OUT" | sed 's/^client: /  /'
if [ -n "${DEMO_FILE:-}" ]; then
	say "$FILE holds all $RECORDS records after the server ended (kept)"
else
	say "the server's file held all $RECORDS records after the server ended (removed now)"
fi
say "PASS"
