#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-service.sh -- the framework's service at work, over softrdma on
# loopback (what `make run` shows): rpma-server exports the configuration's
# file-backed persistent region, rpma-load drives a workload against it with
# --verify (every record it wrote is read back and checked), the server is
# stopped with SIGTERM (it drains and persists), and rpma-load --verify-file
# checks the server's region file against the run's journal.
#
# The summary names each region's persistence mechanism as the server logs
# it (doc/DURABILITY.md): an msync() to the file's device for a region file
# on an ordinary file system, a CPU cache flush on persistent memory (DAX).
#
# usage: run-service.sh [-c CONFIG] [-w WORKLOAD] [-p PORT] [-d DURATION]
#                       [-t SECONDS] [-b DIR]
#   -c CONFIG     the configuration (config/examples/demo.yaml): a listen
#                 section, one target on this host and region "data" of the
#                 workload, backed by a file
#   -w WORKLOAD   the workload (config/examples/workloads/demo.yaml)
#   -p PORT       the port, for listen.port and targets[0].port (default: the
#                 configuration's)
#   -d DURATION   the workload's duration instead of its own (e.g. 1s)
#   -t SECONDS    how long each step may take at most (30)
#   -b DIR        where rpma-server and rpma-load are (build/tools)
#
# SOFTRDMA_RUN names another softrdma-run than the tree's (an installed one).
# The region file and the journal live in a new directory under $TMPDIR (or
# /tmp), removed at the end. Prints PASS or FAIL last; exits 0 when every
# step succeeded and every record checked out, 1 otherwise, 2 on wrong usage.
# Whatever it started is stopped, by process id, before it ends.

set -u

. "$(dirname "$0")/../common/service-script.sh"
CONFIG=$ROOT/config/examples/demo.yaml
WORKLOAD=$ROOT/config/examples/workloads/demo.yaml
BIN=$ROOT/build/tools
PORT=
DURATION=
TIMEOUT=30
SERVER_TRIES=50 # tenths of a second to wait for the server's "listening on"
DRAIN_TRIES=150 # tenths of a second to wait for the server's exit after SIGTERM

options_parse "c:CONFIG w:WORKLOAD p:PORT d:DURATION t:TIMEOUT b:BIN" "$@"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpma-run.XXXXXX") || {
	echo "run: FAIL: cannot create a temporary directory"
	exit 1
}
REGION=$WORK/region.pmem
JOURNAL=$WORK/journal
SRV_LOG=$WORK/server.log
LOAD_OUT=$WORK/load.out
LOAD_PID=
TAIL_PID=

# the overrides: the region file in $WORK, the port if given; the server
# logs only what matters (notice and up), rpma-load only its errors
SETS=(--set "regions[0].backing.file=$REGION")
[ -n "$PORT" ] && SETS+=(--set "listen.port=$PORT" --set "targets[0].port=$PORT")
LOAD_SETS=("${SETS[@]}" --set log.level=warning)
[ -n "$DURATION" ] && LOAD_SETS+=(--set "workload.duration=$DURATION")

# say -- a line of the script's own
say() {
	echo "run: $*"
}

# cleanup -- stop whatever still runs, remove the work directory
cleanup() {
	[ -n "$TAIL_PID" ] && kill -TERM "$TAIL_PID" 2>/dev/null
	[ -n "$LOAD_PID" ] && service_stop "$LOAD_PID" 20
	[ -n "$SERVICE_PID" ] && service_stop "$SERVICE_PID" 20
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'say "interrupted"; say FAIL; exit 1' INT TERM HUP

# fail WHAT -- the server's log, the reason, FAIL, exit 1
fail() {
	if [ -s "$SRV_LOG" ]; then
		say "the server's log:"
		sed 's/^/  | /' "$SRV_LOG" | tail -n 20
	fi
	say "$*"
	say FAIL
	exit 1
}

# step_status NAME STATUS -- fail unless a step's exit STATUS is 0
step_status() {
	[ "$2" -eq 124 ] || [ "$2" -eq 137 ] && fail "$1 did not finish within $TIMEOUT s"
	[ "$2" -eq 0 ] || fail "$1 exited with status $2"
}

for prog in rpma-server rpma-load; do
	[ -x "$BIN/$prog" ] || fail "$BIN/$prog is not built (make $prog)"
done
for f in "$CONFIG" "$WORKLOAD"; do
	[ -r "$f" ] || fail "cannot read $f"
done
"$RUN" true || fail "softrdma is not built (make softrdma)"

say "rpma-server and rpma-load over softrdma on loopback"
say "  configuration ${CONFIG#"$PWD"/}, region file $REGION"
say "  workload ${WORKLOAD#"$PWD"/}${DURATION:+, for $DURATION}${PORT:+, port $PORT}"

# 1. the server, in the background, until it listens; it has the whole run
# (three steps) to live
if ! service_start "$SRV_LOG" 'rpma-server: notice: listening on' "$SERVER_TRIES" \
	timeout -k 5 $((3 * TIMEOUT)) "$RUN" "$BIN/rpma-server" -c "$CONFIG" "${SETS[@]}" \
	--set log.level=notice; then
	kill -0 "$SERVICE_PID" 2>/dev/null &&
		fail "the server did not start listening within $((SERVER_TRIES / 10)) s"
	wait "$SERVICE_PID"
	rc=$?
	SERVICE_PID=
	fail "the server exited with status $rc before it listened"
fi
say "server: $(sed -n 's/.*rpma-server: notice: \(listening on\)/\1/p' "$SRV_LOG" | head -n 1)"
# each region and how a persist makes it durable: why a persist costs what it costs
regions=$(sed -n 's/.*rpma-server: notice: server: \(region .*\)/\1/p' "$SRV_LOG")
[ -n "$regions" ] || fail "the server did not say how its regions are made durable"
while IFS= read -r line; do say "server: $line"; done <<<"$regions"

# 2. the load, followed live (progress lines, then the table); in the
# background so that a signal to this script acts at once
say "load: rpma-load --verify --journal (a progress line a second, then the figures)"
timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/rpma-load" -c "$CONFIG" -w "$WORKLOAD" "${LOAD_SETS[@]}" \
	--verify --journal "$JOURNAL" >"$LOAD_OUT" 2>&1 &
LOAD_PID=$!
tail -n +1 -s 0.1 -f --pid="$LOAD_PID" "$LOAD_OUT" &
TAIL_PID=$!
wait "$LOAD_PID"
rc=$?
LOAD_PID=
wait "$TAIL_PID"
TAIL_PID=
step_status "rpma-load" "$rc"
verified=$(grep -o 'verify: .*' "$LOAD_OUT")

# 3. the server drains, persists and exits 0 on SIGTERM
say "server: SIGTERM"
service_stop "$SERVICE_PID" "$DRAIN_TRIES"
rc=$?
SERVICE_PID=
[ "$rc" -eq 137 ] && fail "the server did not exit within $((DRAIN_TRIES / 10)) s of SIGTERM"
step_status "the server, stopped with SIGTERM," "$rc"
say "server: drained and exited 0"

# 4. the region file, read anew: does every slot hold its last record?
say "region file: rpma-load --verify-file --journal"
timeout -k 5 "$TIMEOUT" "$RUN" "$BIN/rpma-load" --verify-file "$REGION" --journal "$JOURNAL" \
	2>&1 | tee "$WORK/vfile.out"
step_status "rpma-load --verify-file" "${PIPESTATUS[0]}"

say "${verified/verify: /during the run: }; after the server's exit:" \
	"$(grep -o '[0-9]* records good, 0 bad' "$WORK/vfile.out") in its region file"
say PASS
