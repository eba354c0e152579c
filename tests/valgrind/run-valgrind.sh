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
TIMEOUT=${VALGRIND_TIMEOUT:-180}
BASE_PORT=${VALGRIND_BASE_PORT:-17600}
VG_ERROR=99

# shellcheck source=examples/run-lib.sh
. "$ROOT/examples/run-lib.sh"

LISTEN_TRIES=600   # a server under valgrind is slow to start

rl_init rpma-valgrind

# vg_run TAG BIN ARGS... -- run BIN ADDR PORT ARGS under memcheck over
# softrdma, bounded by timeout; its output goes to TAG.out, valgrind's
# report to TAG.vg.PID
vg_run() {
	local tag=$1 bin=$2
	shift 2
	# --fair-sched: valgrind runs one thread at a time, and its default lock
	# lets a polling thread starve softrdma's progress thread for seconds
	rl_run "$tag.out" "$VG" --tool=memcheck --fair-sched=yes --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=$VG_ERROR \
		--suppressions="$SUPP" --log-file="$tag.vg.%p" \
		"$bin" "$ADDR" "$PORT" "$@"
}

# srv_start NAME ARGS... -- start NAME's server on $PORT in the background
# and wait until it listens; sets SRV_PID and SRV_TAG
srv_start() {
	local name=$1
	shift
	SRV_TAG="$WORK/$name.server"
	rl_srv_start "$SRV_TAG.out" vg_run "$SRV_TAG" "$BIN/$name/server" "$@"
}

# cli_try TAG BIN ARGS... -- one try of a client: drop the valgrind reports
# of an earlier try, then vg_run TAG BIN ARGS
cli_try() {
	rm -f "$1".vg.*
	vg_run "$@"
}

# cli_run TAG NAME ARGS... -- run NAME's client against $PORT, again while
# it could not connect; returns its exit code
cli_run() {
	local tag=$1 name=$2
	shift 2
	rl_retry cli_try "$tag" "$BIN/$name/client" "$@"
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

if ! command -v "$VG" >/dev/null; then
	echo "valgrind is not available" >&2
	exit 1
fi
rl_need_softrdma
if [ ! -r "$SUPP" ]; then
	echo "no suppressions file $SUPP" >&2
	exit 1
fi

# what the programs printed and valgrind's reports of them (their error and
# leak records)
rl_run_all check_side "*.out" "*.vg.*"
