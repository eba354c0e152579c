#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-interop.sh OURS_DIR DEBIAN_DIR [CASE...] -- run example pairs across
# the two implementations of librpma over softrdma on 127.0.0.1: for every
# CASE (an example's directory name, e.g. 01-connection) our server against
# Debian's client, then Debian's server against our client.
#
# OURS_DIR and DEBIAN_DIR hold CASE/server and CASE/client built against our
# librpma and against Debian's 1.2.0. What each case is given and must print
# comes from examples/expectations.sh, as for examples/run-examples.sh.
#
# Which librpma each side really loaded is proven twice and must match what
# was meant, else the case fails:
#   - every program runs with LD_DEBUG=libs and LD_DEBUG_OUTPUT in the work
#     directory: the dynamic loader itself writes which objects it
#     initialised, also for a client that lives only a few milliseconds;
#   - while the server is listening, its /proc/PID/maps is read.
# The libibverbs both sides loaded must also be softrdma's.
#
# Environment: INTEROP_OURS_LIB, INTEROP_DEB_LIB (the two libraries, default
# build/lib/librpma.so.1 and the unpacked Debian librpma.so.0),
# INTEROP_TIMEOUT (seconds per program, default 30), INTEROP_BASE_PORT
# (default 17500; every run of a case gets the next port),
# INTEROP_SOFTRDMA_RUN (default tools/softrdma-run). Prints PASS or FAIL per
# run with the libraries each side loaded, and a final "N passed, M failed"
# line; exits 1 when anything failed.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CASES_DEFAULT="01-connection 02-read-to-volatile 04-write-to-persistent \
05-flush-to-persistent 07-atomic-write 08-messages-ping-pong"

if [ $# -lt 2 ]; then
	echo "usage: $0 OURS_DIR DEBIAN_DIR [CASE...]" >&2
	exit 2
fi
OURS=$(cd "$1" && pwd) || exit 1
DEB=$(cd "$2" && pwd) || exit 1
shift 2
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || read -ra CASES <<<"$CASES_DEFAULT"

RUN=${INTEROP_SOFTRDMA_RUN:-$ROOT/tools/softrdma-run}
TIMEOUT=${INTEROP_TIMEOUT:-30}
BASE_PORT=${INTEROP_BASE_PORT:-17500}

# shellcheck source=examples/run-lib.sh
. "$ROOT/examples/run-lib.sh"

# real_path PATH -- PATH with every symbolic link resolved, from ROOT on
real_path() {
	(cd "$ROOT" && readlink -f -- "$1")
}

OURS_LIB=$(real_path "${INTEROP_OURS_LIB:-build/lib/librpma.so.1}")
DEB_LIB=$(real_path "${INTEROP_DEB_LIB:-build/debian-librpma/usr/lib/x86_64-linux-gnu/librpma.so.0}")
for lib in "$OURS_LIB" "$DEB_LIB"; do
	if [ ! -f "$lib" ]; then
		echo "no such library: $lib" >&2
		exit 1
	fi
done
if [ "$OURS_LIB" = "$DEB_LIB" ]; then
	echo "our library and Debian's are the same file: $OURS_LIB" >&2
	exit 1
fi

rl_init rpma-interop

# rel PATH -- PATH relative to ROOT when it lies below it
rel() {
	case $1 in
	"$ROOT"/*) echo "${1#"$ROOT"/}" ;;
	*) echo "$1" ;;
	esac
}

# launch OUT LDPREFIX BIN ARGS... -- run BIN ADDR PORT ARGS over softrdma
# under timeout, with the loader's report in LDPREFIX.PID
launch() {
	local out=$1 ldp=$2 bin=$3
	shift 3
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$ldp" rl_run "$out" "$bin" "$ADDR" "$PORT" "$@"
}

# program_pid PID BIN -- the process id of the descendant of PID that runs
# BIN (the background job runs timeout, which runs softrdma-run, which execs
# BIN), waiting up to 5 s for it to appear
program_pid() {
	local i pid want
	local -a todo
	want=$(readlink -f "$2")
	for ((i = 0; i < 50; i++)); do
		todo=("$1")
		while [ ${#todo[@]} -gt 0 ]; do
			pid=${todo[0]}
			todo=("${todo[@]:1}")
			if [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" = "$want" ]; then
				echo "$pid"
				return 0
			fi
			# shellcheck disable=SC2207
			todo+=($(pgrep -P "$pid" 2>/dev/null))
		done
		sleep 0.1
	done
	return 1
}

# srv_start BIN ARGS... -- start a server on $PORT in the background and
# wait until it listens, then copy its /proc/PID/maps to $SRV_MAPS; sets
# SRV_PID (timeout's pid) and SRV_OUT
srv_start() {
	local bin=$1
	shift
	SRV_OUT="$TAG.server.out"
	SRV_MAPS="$TAG.server.maps"
	rl_srv_start "$SRV_OUT" launch "$SRV_OUT" "$TAG.server.ld" "$bin" "$@" || return 1

	local pid
	pid=$(program_pid "$SRV_PID" "$bin") ||
		{ echo "  cannot find the process of $(rel "$bin")"; return 1; }
	cp "/proc/$pid/maps" "$SRV_MAPS" 2>/dev/null ||
		{ echo "  cannot read /proc/$pid/maps"; return 1; }
}

# cli_try BIN ARGS... -- one try of a client against $PORT with its output
# in $TAG.client.out: drop the loader's reports of an earlier try, launch it
cli_try() {
	rm -f "$TAG".client.ld.*
	launch "$TAG.client.out" "$TAG.client.ld" "$@"
}

# loaded LDPREFIX NAME -- every distinct object whose file name starts with
# NAME that the loader initialised in the processes of LDPREFIX.*, with
# symbolic links resolved, one a line
loaded() {
	local path
	# shellcheck disable=SC2016
	sed -n 's/^ *[0-9]*:[[:space:]]*calling init: //p' "$1".* 2>/dev/null |
		while IFS= read -r path; do
			case ${path##*/} in
			"$2"*) readlink -f -- "$path" ;;
			esac
		done | sort -u
}

# mapped MAPS NAME -- every distinct file whose name starts with NAME in a
# copy of /proc/PID/maps, one a line
mapped() {
	awk -v name="$2" 'NF >= 6 { n = split($6, p, "/"); if (index(p[n], name) == 1) print $6 }' \
		"$1" | sort -u
}

# check_side SIDE LDPREFIX WANT -- check that SIDE loaded WANT and no other
# librpma, and softrdma's libibverbs; sets GOT to what it loaded
check_side() {
	local side=$1 ldp=$2 want=$3 verbs ok=0
	GOT=$(loaded "$ldp" librpma. | paste -sd ' ')
	if [ -z "$GOT" ]; then
		echo "  the loader reported no librpma for the $side"
		GOT="(none)"
		ok=1
	elif [ "$GOT" != "$want" ]; then
		echo "  the $side loaded $GOT instead of $want"
		ok=1
	fi
	verbs=$(loaded "$ldp" libibverbs. | paste -sd ' ')
	if [ "$verbs" != "$SOFTRDMA_VERBS" ]; then
		echo "  the $side loaded libibverbs '$verbs', not softrdma's $SOFTRDMA_VERBS"
		ok=1
	fi
	return $ok
}

# check_maps WANT -- check that the server's /proc/PID/maps maps WANT and
# no other librpma
check_maps() {
	local got
	got=$(mapped "$SRV_MAPS" librpma. | paste -sd ' ')
	if [ "$got" != "$1" ]; then
		echo "  the server's /proc/PID/maps has librpma '$got' instead of $1"
		return 1
	fi
}

# run_case NAME DIRECTION SRV_BIN SRV_LIB CLI_BIN CLI_LIB -- one server and
# one client of example NAME; checks the exit codes, the output, the
# persistent file and the libraries each side loaded
run_case() {
	local name=$1 dir=$2 sbin=$3 slib=$4 cbin=$5 clib=$6 num=${1%%-*} rc ok=0
	local sgot cgot
	TAG="$WORK/$name.$dir"
	mkdir -p "$TAG.files"
	if ! exp_load "$num" "$TAG.files"; then
		echo "  no expectations for $name"
		return 1
	fi
	if [ "$EXP_CLIENTS" -ne 1 ]; then
		echo "  $name runs $EXP_CLIENTS clients at once; only pairs are supported"
		return 1
	fi
	srv_start "$sbin" "${EXP_SRV_ARGS[@]}" || return 1
	check_maps "$slib" || ok=1
	# a client again while it could not connect
	rl_retry cli_try "$cbin" "${EXP_CLI_ARGS[@]}"
	rc=$?
	wait "$SRV_PID"
	rl_expect_rc server $? || ok=1
	rl_expect_rc client "$rc" || ok=1
	rl_check_lines "$TAG" || ok=1
	exp_check_file || ok=1
	check_side server "$TAG.server.ld" "$slib" || ok=1
	sgot=$GOT
	check_side client "$TAG.client.ld" "$clib" || ok=1
	cgot=$GOT
	PROOF="server: $(rel "$sgot") / client: $(rel "$cgot")"
	return $ok
}

rl_need_softrdma
# the libibverbs softrdma-run puts first on the library path
# shellcheck disable=SC2016
SOFTRDMA_VERBS=$(readlink -f "$("$RUN" sh -c 'echo "${LD_LIBRARY_PATH%%:*}"')/libibverbs.so.1")

idx=0
for name in "${CASES[@]}"; do
	for dir in ours-debian debian-ours; do
		PORT=$((BASE_PORT + idx))
		idx=$((idx + 1))
		if [ "$dir" = ours-debian ]; then
			sbin=$OURS/$name/server slib=$OURS_LIB
			cbin=$DEB/$name/client clib=$DEB_LIB
			label="$name: ours-server x debian-client"
		else
			sbin=$DEB/$name/server slib=$DEB_LIB
			cbin=$OURS/$name/client clib=$OURS_LIB
			label="$name: debian-server x ours-client"
		fi
		if [ ! -x "$sbin" ] || [ ! -x "$cbin" ]; then
			rl_fail "$label (not built)"
			continue
		fi
		PROOF=
		if run_case "$name" "$dir" "$sbin" "$slib" "$cbin" "$clib"; then
			rl_pass "$label"
			echo "  $PROOF"
		else
			rl_fail "$label"
			[ -n "$PROOF" ] && echo "  $PROOF"
			rl_show_outputs "$TAG".*.out
		fi
		rl_reap
	done
done

rl_summary
