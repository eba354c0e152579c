#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-valgrind.sh [BIN_DIR] -- run every example pair over softrdma on
# 127.0.0.1 with both sides under valgrind's memcheck:
#   valgrind --tool=memcheck --leak-check=full
#            --errors-for-leak-kinds=definite,indirect --error-exitcode=99
# so that any memory error or any definite or indirect leak makes a program
# exit with 99. Each side must exit with 0, report "ERROR SUMMARY: 0 errors"
# and print what examples/expectations.sh expects of it, as in
# examples/run-examples.sh.
#
# BIN_DIR defaults to build/examples. tests/valgrind/softrdma.supp is passed
# to valgrind: it holds suppressions limited to softrdma's own objects, never
# to librpma or the examples. Environment: VALGRIND_TIMEOUT (seconds per
# program, default 180), VALGRIND_BASE_PORT (default 17600; one port per
# example), VALGRIND_SOFTRDMA_RUN (default tools/softrdma-run), VALGRIND (the
# valgrind binary, default valgrind). Prints PASS or FAIL per example and a
# final "N passed, M failed" line; exits 1 when anything failed.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "${1:-$ROOT/build/examples}" && pwd) || exit 1
RUN=${VALGRIND_SOFTRDMA_RUN:-$ROOT/tools/softrdma-run}
VG=${VALGRIND:-valgrind}
SUPP="$ROOT/tests/valgrind/softrdma.supp"
ADDR=127.0.0.1
TIMEOUT=${VALGRIND_TIMEOUT:-180}
BASE_PORT=${VALGRIND_BASE_PORT:-17600}
CLIENT_TRIES=5
NOT_CONNECTED=3
VG_ERROR=99

# shellcheck source=examples/expectations.sh
. "$ROOT/examples/expectations.sh"

WORK=$(mktemp -d /tmp/rpma-valgrind.XXXXXX) || exit 1
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

# vg_run TAG BIN ARGS... -- run BIN ADDR PORT ARGS under memcheck over
# softrdma, bounded by timeout; its output goes to TAG.out, valgrind's
# report to TAG.vg.PID
vg_run() {
	local tag=$1 bin=$2
	shift 2
	timeout -k 5 "$TIMEOUT" "$RUN" "$VG" --tool=memcheck --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=$VG_ERROR \
		--suppressions="$SUPP" --log-file="$tag.vg.%p" \
		"$bin" "$ADDR" "$PORT" "$@" >"$tag.out" 2>&1
}

# srv_start NAME ARGS... -- start NAME's server on $PORT in the background
# and wait until it listens; sets SRV_PID and SRV_TAG
srv_start() {
	local name=$1 i
	shift
	SRV_TAG="$WORK/$name.server"
	: >"$SRV_TAG.out"
	vg_run "$SRV_TAG" "$BIN/$name/server" "$@" &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	for ((i = 0; i < 600; i++)); do
		grep -q '^server: listening on' "$SRV_TAG.out" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "  the server did not start listening"
	return 1
}

# cli_run TAG NAME ARGS... -- run NAME's client against $PORT, again while
# it could not connect; returns its exit code
cli_run() {
	local tag=$1 name=$2 try rc
	shift 2
	for ((try = 1; try <= CLIENT_TRIES; try++)); do
		rm -f "$tag".vg.*
		vg_run "$tag" "$BIN/$name/client" "$@"
		rc=$?
		[ "$rc" -ne "$NOT_CONNECTED" ] && break
		sleep 0.5
	done
	return "$rc"
}

# check_side WHAT TAG RC -- check a program's exit code and valgrind's
# report of it
check_side() {
	local what=$1 tag=$2 rc=$3 ok=0 f
	if [ "$rc" -eq "$VG_ERROR" ]; then
		echo "  $what: valgrind found errors (exit code $rc)"
		ok=1
	elif [ "$rc" -ne 0 ]; then
		echo "  $what exited with $rc"
		ok=1
	fi
	set -- "$tag".vg.*
	if [ ! -e "$1" ]; then
		echo "  $what: no valgrind report"
		return 1
	fi
	# the program's own process must say so; a report of a helper it forked
	# counts too when it says anything else
	for f in "$@"; do
		grep -q 'ERROR SUMMARY: ' "$f" || continue
		if ! grep -q 'ERROR SUMMARY: 0 errors' "$f"; then
			echo "  $what: $(grep -o 'ERROR SUMMARY: .*' "$f" | head -n 1)"
			ok=1
		fi
	done
	if ! grep -q 'ERROR SUMMARY: 0 errors' "$@"; then
		echo "  $what: no 'ERROR SUMMARY: 0 errors' in the valgrind report"
		ok=1
	fi
	return $ok
}

# run_example NUM NAME -- run example NUM's server and client(s) under
# valgrind and check them
run_example() {
	local num=$1 name=$2 i rc ok=0
	local -a cpids=()

	exp_load "$num" "$WORK" || { echo "  no expectations for it"; return 1; }
	srv_start "$name" "${EXP_SRV_ARGS[@]}" || return 1
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		cli_run "$WORK/$name.client" "$name" "${EXP_CLI_ARGS[@]}"
		rc=$?
		check_side client "$WORK/$name.client" "$rc" || ok=1
	else
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			if [ -n "$EXP_CLI_PREFIX" ]; then
				cli_run "$WORK/$name.client$i" "$name" "$EXP_CLI_PREFIX-$i" &
			else
				cli_run "$WORK/$name.client$i" "$name" &
			fi
			cpids+=($!)
			PIDS+=($!)
		done
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			wait "${cpids[$((i - 1))]}"
			rc=$?
			check_side "client $i" "$WORK/$name.client$i" "$rc" || ok=1
		done
	fi
	wait "$SRV_PID"
	rc=$?
	check_side server "$SRV_TAG" "$rc" || ok=1
	exp_check_lines "$SRV_TAG.out" "$EXP_SRV_LINES" || ok=1
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		exp_check_lines "$WORK/$name.client.out" "$EXP_CLI_LINES" || ok=1
	else
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			exp_check_lines "$WORK/$name.client$i.out" "$EXP_CLI_LINES" "$i" || ok=1
		done
	fi
	exp_check_file || ok=1
	return $ok
}

# show_outputs NAME -- print what the programs of a failed example printed
# and valgrind's reports of them (their error and leak records)
show_outputs() {
	local f
	for f in "$WORK/$1".*.out "$WORK/$1".*.vg.*; do
		[ -e "$f" ] || continue
		echo "  --- $(basename "$f")"
		sed 's/^/  | /' "$f"
	done
}

if ! command -v "$VG" >/dev/null; then
	echo "valgrind is not available" >&2
	exit 1
fi
if ! "$RUN" true; then
	echo "softrdma is not available" >&2
	exit 1
fi
if [ ! -r "$SUPP" ]; then
	echo "no suppressions file $SUPP" >&2
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
