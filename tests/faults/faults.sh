#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# faults.sh -- the multi-host fault harness: hosts as network namespaces
# behind one switch (tests/faults/hosts.sh), softrdma over TCP between
# them, and faults injected by the harness at a known time for a known
# time. Each scenario runs on hosts made for it alone:
#
#   host 0   the client: rpma-load -c client.yaml -w load.yaml --verify
#            --journal --keep-running --json --timeline (2 threads x queue
#            depth 4 of 4 KiB write_persist, LEAD s, the fault, AFTER s)
#   host 1.. rpma-server with a region of 16 MiB in a file (GPSPM)
#
# and checks, the pass criteria:
#   data       rpma-load's read-back finds no bad record, and once the
#              server has stopped (SIGTERM) rpma-load --verify-file finds
#              every acknowledged write's last record in the region file,
#              exactly (the journal)
#   accounted  every operation submitted ended once: refused, completed ok
#              or failed; none completed twice, late or never
#   no hang    the run ended within its duration + timeouts.operation_ms +
#              reconnect.max_ms + 1 s, and every process within its bound
#   no crash   each server ran to the end and exited 0 on SIGTERM
# and measures, without passing or failing on them unless FAULTS_STRICT=1:
#   failed     operations failed (refused, failed, or never completed)
#   recovery   seconds from the fault's end to the start of the first 100 ms
#              interval back at half the rate before the fault or more
#   gap        the longest time with no operation completed ok
#   goal       a fault shorter than operation_ms (short) costs 0 failed
#              operations (every operation of the load is idempotent); a
#              longer one (long) fails operations only at their deadline:
#              none within the fault's first operation_ms, and at most one
#              per operation in flight per operation_ms
# The librpmem scenarios run Debian's libpmemobj (the program of
# tests/librpmem, a transaction loop) with a remote replica on rpmemd on
# host 1 through our librpmem: what the application sees (it survives,
# fails, or hangs: a hang is a failure), the transactions' rate before and
# after, and every committed transaction found again when the pool is
# reopened.
# The checks are checked too: analyze.py's against made-up figures before
# the first scenario, and the data check of each scenario against a copy of
# the region file with one byte of a record changed, which it must reject.
#
# usage: faults.sh [--table FILE] [--keep DIR] SCENARIO... | --short | --all | --list
#   --short        the short set (make check-faults), --all every scenario
#   --table FILE   the results as a markdown table (doc/FAULTS.md has one)
#   --keep DIR     keep every scenario's files (logs, JSON, timelines) in DIR
# Environment: FAULTS_STRICT=1 makes the failure-count goal a pass
# criterion; BUILD (default build), the tree's build directory.
# One line per scenario: its result, failed operations, recovery, run
# time, data check. Exit 0 when every scenario passed, 1 otherwise, 77
# (skipped) when the hosts cannot be made here (namespaces need root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
RUN=$root/tools/softrdma-run
SERVER=$BUILD/tools/rpma-server
LOAD=$BUILD/tools/rpma-load
RPMEMD=$BUILD/tools/rpmemd
PMEMOBJ=$BUILD/librpmem/pmemobj_replica
STRICT=${FAULTS_STRICT:-0}
. "$here/hosts.sh"

# ---------------------------------------------------------------- parameters
OP_MS=5000      # timeouts.operation_ms of every scenario
CONNECT_MS=2000 # timeouts.connect_ms
HB_MS=1000      # timeouts.heartbeat_interval_ms
HB_MISSES=3     # timeouts.heartbeat_misses
RC_INIT_MS=100  # reconnect.initial_ms
RC_MAX_MS=1000  # reconnect.max_ms: the reconnect bound
THREADS=2
QD=4
WSIZE=4K
LEAD=3  # seconds of load before the fault
SHORT=3 # a short fault, below OP_MS
LONG=8  # a long fault, above OP_MS
AFTER=4 # seconds of load after the fault's end

# name|class|fault -- every scenario, in the table's order (class: the goal's, see above)
SCENARIOS=(
	"link-down-short|short|the server's link down ${SHORT} s"
	"link-down-long|long|the server's link down ${LONG} s"
	"drop-to-server|short|what the client sends to the server dropped ${SHORT} s (one direction)"
	"drop-from-server|short|what the server sends dropped ${SHORT} s (one direction)"
	"tbf-10mbit|short|the server's link limited to 10 Mbit/s (tc tbf, 200 ms of queue) ${SHORT} s"
	"tbf-1mbit|short|the server's link limited to 1 Mbit/s ${SHORT} s"
	"sigstop-short|short|the server frozen (SIGSTOP, SIGCONT) ${SHORT} s"
	"sigstop-long|long|the server frozen ${LONG} s"
	"kill-restart|short|the server killed (SIGKILL), started again 1 s later"
	"two-servers|short|two servers, a load on each; the second's link down ${SHORT} s"
	"disk-full|bystander|the region's file system (a tmpfs of 24 MiB, the region 16 MiB) filled by another file ${SHORT} s"
	"disk-too-small|none|the region (16 MiB) larger than its file system (a tmpfs of 4 MiB)"
	"disk-no-inode|none|the region's file cannot be created (a tmpfs with no free inode)"
	"rpmem-partition|short|libpmemobj replicating to rpmemd: the daemon's link down ${SHORT} s"
	"rpmem-freeze|short|libpmemobj replicating to rpmemd: the daemon frozen (SIGSTOP) ${SHORT} s"
)
SHORT_SET="link-down-short sigstop-short kill-restart disk-full disk-too-small disk-no-inode"

# ---------------------------------------------------------------- the run's state
work=$(mktemp -d /tmp/faults.XXXXXX)
keep=
table=
results=$work/results
W=           # the scenario's directory
MOUNTS=()    # tmpfs mounted by the harness
SRV_PID=()   # by host: the server (rpma-server or rpmemd) running there
NOTES=()     # what the scenario found, beyond the figures
FAILS=()     # why the scenario failed
port=$((20000 + RANDOM % 10000))

# cleanup -- the hosts and their processes, the mounts, the files (unless kept)
cleanup() {
	local m
	hosts_remove
	for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
	[ -n "$keep" ] && [ -d "$work" ] && mkdir -p "$keep" && cp -a "$work"/. "$keep"/
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# now -- the wall clock, Unix time with nanoseconds
now() { date +%s.%N; }

# sleep_until EPOCH -- sleep until then (at once when it has passed)
sleep_until() {
	local d
	d=$(awk -v a="$1" -v b="$(now)" 'BEGIN { d = a - b; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$d"
}

# fail WHY -- the scenario fails, saying why
fail() { FAILS+=("$*"); }

# note WHAT -- something the scenario found, reported beside its figures
note() { NOTES+=("$*"); }

# wait_pid PID SECONDS -- wait for a child at most SECONDS; its exit status, or 124
# after it was killed for running too long
wait_pid() {
	local pid=$1 limit=$2 t=0
	while kill -0 "$pid" 2>/dev/null && [ "$t" -lt $((limit * 10)) ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid"
}

# signame STATUS -- an exit status as words
signame() {
	if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "killed by SIG$(kill -l $(($1 - 128)))"
	else
		echo "exit $1"
	fi
}

# ---------------------------------------------------------------- configurations
# yaml_common -- what every configuration of the harness shares
yaml_common() {
	cat <<YAML
workers: {count: 2}
timeouts: {connect_ms: $CONNECT_MS, operation_ms: $OP_MS, heartbeat_interval_ms: $HB_MS, heartbeat_misses: $HB_MISSES}
reconnect: {initial_ms: $RC_INIT_MS, max_ms: $RC_MAX_MS}
log: {level: notice}
YAML
}

# server_yaml I FILE -- rpma-server on host I: region data$I backed by FILE
server_yaml() {
	yaml_common
	cat <<YAML
listen: {address: ${HOST_ADDR[$1]}, port: $port, max_connections: 16}
regions: [{name: data$1, size: 16M, backing: {file: $2, create: true}, persistence: gpspm}]
YAML
}

# client_yaml I... -- the client's pool: the servers on hosts I... as targets s1, s2, ...
client_yaml() {
	local i
	yaml_common
	echo "targets:"
	for i in "$@"; do
		echo "  - {name: s$i, address: ${HOST_ADDR[$i]}, port: $port, connections: 2}"
	done
}

# load_yaml I SECONDS -- the load on region data$I
load_yaml() {
	cat <<YAML
region: data$1
mix: [{kind: write_persist, weight: 1}]
sizes: {write_persist: $WSIZE}
threads: $THREADS
queue_depth: $QD
duration: ${2}s
YAML
}

# ---------------------------------------------------------------- processes
# server_start I -- rpma-server on host I in the background (SRV_PID[I]), its region file
# $W/region$I unless REGION_FILE says where; it must say "listening on" within 10 s
server_start() {
	local i=$1 file=${REGION_FILE:-$W/region$1} log=$W/server$1.log _
	[ -f "$W/server$i.yaml" ] || server_yaml "$i" "$file" >"$W/server$i.yaml"
	echo "--- start $(now)" >>"$log"
	# a simple command, not a function, in the background: $! is the server itself (ip
	# netns exec, env and softrdma-run each exec the next)
	ip netns exec "${HOST_NS[$i]}" env SOFTRDMA_TRANSPORT=tcp "$RUN" "$SERVER" \
		-c "$W/server$i.yaml" >>"$W/server$i.out" 2>>"$log" &
	SRV_PID[$i]=$!
	for _ in $(seq 100); do
		[ "$(grep -c "listening on" "$log")" -ge "$(grep -c -- "^--- start" "$log")" ] &&
			return 0
		kill -0 "${SRV_PID[$i]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "the server on host $i did not start: $(tail -n 2 "$log" | tr '\n' ' ')"
	return 1
}

# server_stop I -- host I's server thawed and stopped (SIGTERM): it must be alive until
# then and exit 0 within 15 s
server_stop() {
	local i=$1 pid=${SRV_PID[$1]:-} rc
	[ -n "$pid" ] || return 0
	SRV_PID[$i]=
	kill -CONT "$pid" 2>/dev/null
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		rc=$?
		fail "the server on host $i died during the run: $(signame "$rc")"
		return 1
	fi
	kill -TERM "$pid"
	wait_pid "$pid" 15
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	fail "the server on host $i did not stop cleanly on SIGTERM: $([ "$rc" -eq 124 ] &&
		echo "still running after 15 s" || signame "$rc")"
	return 1
}

# load_start I SECONDS [TAG] -- rpma-load on host 0 against region data$I for SECONDS, in
# the background (LOAD_PID[TAG]); it must start its run (the timeline's first line) within
# connect_ms + 5 s: RUN_START[TAG] is then its wall clock
declare -A LOAD_PID RUN_START
load_start() {
	local i=$1 tag=${3:-$1} f _
	f=$W/load$tag
	load_yaml "$i" "$2" >"$f.yaml"
	ip netns exec "${HOST_NS[0]}" env SOFTRDMA_TRANSPORT=tcp "$RUN" "$LOAD" -c "$W/client.yaml" \
		-w "$f.yaml" --verify --journal "$f.journal" --keep-running --json="$f.json" --timeline "$f.csv" \
		>"$f.out" 2>"$f.err" &
	LOAD_PID[$tag]=$!
	for _ in $(seq $((CONNECT_MS / 100 + 50))); do
		if [ "$(sed -n 2p "$f.csv" 2>/dev/null | cut -d, -f1)" = 0.000 ]; then
			RUN_START[$tag]=$(sed -n 2p "$f.csv" | cut -d, -f2)
			return 0
		fi
		kill -0 "${LOAD_PID[$tag]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "rpma-load did not start its run: $(tail -n 2 "$f.err" | tr '\n' ' ')"
	return 1
}

# load_wait TAG SECONDS -- wait for the load (its run of SECONDS): it must end within
# SECONDS + operation_ms + reconnect.max_ms + 1 s + 10 s (its connection, its read-back)
load_wait() {
	local tag=$1 limit=$(($2 + (OP_MS + RC_MAX_MS) / 1000 + 11)) rc
	wait_pid "${LOAD_PID[$tag]}" "$limit"
	rc=$?
	echo "$rc" >"$W/load$tag.rc"
	[ "$rc" -eq 124 ] && fail "hang: rpma-load ($tag) still ran $limit s after it started"
	return 0
}

# ---------------------------------------------------------------- checks
# check_load TAG SECONDS START END CLASS -- load TAG's figures (analyze.py) into the
# associative array A, its pass criteria checked (as said on top)
declare -A A
check_load() {
	local tag=$1 secs=$2 f=$W/load$1 bound key val
	bound=$(awk -v d="$secs" -v o="$OP_MS" -v r="$RC_MAX_MS" 'BEGIN { print d + (o + r) / 1000 + 1 }')
	A=()
	if [ ! -s "$f.json" ]; then
		fail "load $tag: no JSON: $(tail -n 2 "$f.err" | tr '\n' ' ')"
		return 1
	fi
	while IFS='=' read -r key val; do
		A[$key]=$val
	done < <(python3 "$here/analyze.py" --json "$f.json" "$f.csv" --start "$3" --end "$4" \
		--bound "$bound" --op-ms "$OP_MS" --inflight $((THREADS * QD)) --class "$5")
	A[bound]=$bound
	[ "${A[accounted]:-}" = yes ] || fail "load $tag: operations not accounted for: ${A[accounted]:-?}"
	[ "${A[hang]:-}" = no ] || fail "hang: load $tag ran ${A[run_s]:-?} s, beyond $bound s"
	case ${A[verify]:-} in
	*/0/0) ;;
	*/0/*) note "load $tag: records not read back: ${A[verify]}" ;;
	*) fail "load $tag: read back: ${A[verify]:-none} (checked/bad/not checked)" ;;
	esac
	if [ "$STRICT" = 1 ] && [ "${A[goal]:-}" != met ] && [ "${A[goal]:-}" != - ]; then
		fail "goal (FAULTS_STRICT): load $tag: ${A[goal]}"
	fi
}

# check_file I TAG -- after the server on host I stopped: every acknowledged write of
# load TAG in its region file ("intact (N records)" into DATA[TAG]). A region file on a
# full tmpfs cannot be mapped whole (a hole of it faults with SIGBUS): a copy (read(2)
# gives a hole as zeros) is checked then, and the crash said
declare -A DATA
check_file() {
	local i=$1 tag=$2 f=$W/load$2 out rc file=${REGION_FILE:-$W/region$1}
	if [ ! -s "$f.journal" ]; then
		DATA[$tag]="no journal"
		fail "load $tag: no journal"
		return 1
	fi
	out=$("$LOAD" --verify-file "$file" --journal "$f.journal" 2>&1)
	rc=$?
	if [ "$rc" -gt 128 ]; then
		note "rpma-load --verify-file on the region file: $(signame "$rc"); checked on a copy"
		cp "$file" "$W/region$i.copy" || fail "cannot copy $file"
		out=$("$LOAD" --verify-file "$W/region$i.copy" --journal "$f.journal" 2>&1)
		rc=$?
		rm -f "$W/region$i.copy"
	fi
	echo "$out" >"$W/verify-file$tag.out"
	if [ "$rc" -eq 0 ] && [[ $out =~ :\ ([0-9]+)\ records\ good,\ 0\ bad ]]; then
		DATA[$tag]="intact (${BASH_REMATCH[1]} records)"
		check_can_fail "$file" "$f.journal"
	else
		DATA[$tag]="LOST: $(echo "$out" | head -n 3 | tr '\n' ' ')"
		fail "load $tag: acknowledged writes missing from the region file: $out"
	fi
}

# check_can_fail FILE JOURNAL -- the data check finds a lost write: a copy of FILE whose
# last journaled record has one byte changed must fail it
check_can_fail() {
	local copy=$W/damaged slot size len off byte
	read -r slot _ len _ < <(tail -n 1 "$2")
	[[ $slot =~ ^[0-9]+$ ]] || return 0 # no record written
	size=$(sed -n 2p "$2" | awk '{ print $6 }')
	off=$((slot * size + len / 2))
	cp "$1" "$copy" || { fail "cannot copy $1"; return; }
	byte=$(dd if="$copy" bs=1 skip="$off" count=1 status=none | od -An -tu1)
	printf "\\x$(printf %02x $((byte ^ 255)))" | dd of="$copy" bs=1 seek="$off" conv=notrunc status=none
	"$LOAD" --verify-file "$copy" --journal "$2" >/dev/null 2>&1 &&
		fail "the data check cannot fail: a changed byte at offset $off went unnoticed"
	rm -f "$copy"
}

# ---------------------------------------------------------------- results
# result NAME FAILED RECOVERY GAP RUN DATA ACCOUNTED GOAL -- the scenario's line, and its row
result() {
	local verdict=PASS why="" notes=""
	[ "${#FAILS[@]}" -gt 0 ] && verdict=FAIL && why=$(printf '%s; ' "${FAILS[@]}")
	[ "${#NOTES[@]}" -gt 0 ] && notes=$(printf '%s; ' "${NOTES[@]}")
	printf 'faults: %-16s %s  failed %s  recovery %s s  gap %s s  run %s s  data %s  accounted %s  goal %s\n' \
		"$1" "$verdict" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
	[ -n "$why" ] && echo "  FAIL: ${why%; }"
	[ -n "$notes" ] && echo "  found: ${notes%; }"
	# fields apart by the unit separator, which (unlike a tab) read never merges
	printf '%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\n' "$1" "$verdict" "$2" \
		"$3" "$4" "$5" "$6" "$7" "$8" "${why%; }" "${notes%; }" | sed "s|$W/||g" >>"$results"
}

# failed_str -- A's failed operations, and how many of them were refused at submission
failed_str() {
	if [ -n "${A[rejected]:-}" ] && [ "${A[failed]:-0}" != 0 ]; then
		echo "${A[failed]} (${A[rejected]} refused at submission)"
	else
		echo "${A[failed]:-?}"
	fi
}

# one_result NAME -- the result of a scenario of one load (tag 1), from A and DATA
one_result() {
	result "$1" "$(failed_str)" "${A[recovery]:-?}" "${A[gap]:-?}" "${A[run_s]:-?}" \
		"${DATA[1]:-?}" "${A[accounted]:-?}" "${A[goal]:-?}"
}

# ---------------------------------------------------------------- rpma-server scenarios
# fault_* / clear_* -- the faults, on the server's host 1 (or I)
fault_link() { link_down "${1:-1}"; }
clear_link() { link_up "${1:-1}"; }
fault_drop_to() { link_drop 1 to; }
fault_drop_from() { link_drop 1 from; }
clear_tc() { link_clear 1; }
fault_tbf10() { link_limit 1 10mbit; }
fault_tbf1() { link_limit 1 1mbit; }
fault_stop() { kill -STOP "${SRV_PID[1]}"; }
clear_stop() { kill -CONT "${SRV_PID[1]}"; }
fault_kill() {
	kill -9 "${SRV_PID[1]}"
	wait "${SRV_PID[1]}" 2>/dev/null
	SRV_PID[1]=
	sleep 1
}
clear_kill() { server_start 1; }

# one_load NAME CLASS FAULT CLEAR SECONDS -- the server on host 1, the load on host 0; the
# fault (FAULT, then CLEAR SECONDS later) LEAD s into the run
one_load() {
	local name=$1 class=$2 inject=$3 clear=$4 dur=$5 total fs fe
	total=$((LEAD + dur + AFTER))
	hosts_make flt 2
	client_yaml 1 >"$W/client.yaml"
	server_start 1 || { one_result "$name"; return; }
	if load_start 1 "$total"; then
		sleep_until "$(awk -v s="${RUN_START[1]}" -v l="$LEAD" 'BEGIN { printf "%.3f", s + l }')"
		fs=$(now)
		$inject
		sleep_until "$(awk -v s="$fs" -v d="$dur" 'BEGIN { printf "%.3f", s + d }')"
		fe=$(now)
		$clear
		echo "$fs $fe" >"$W/fault"
		load_wait 1 "$total"
	fi
	server_stop 1
	if [ -n "${fs:-}" ]; then
		check_load 1 "$total" "$fs" "$fe" "$class"
		check_file 1 1
	fi
	one_result "$name"
}

sc_link_down_short() { one_load "$1" "$2" fault_link clear_link "$SHORT"; }
sc_link_down_long() { one_load "$1" "$2" fault_link clear_link "$LONG"; }
sc_drop_to_server() { one_load "$1" "$2" fault_drop_to clear_tc "$SHORT"; }
sc_drop_from_server() { one_load "$1" "$2" fault_drop_from clear_tc "$SHORT"; }
sc_tbf_10mbit() { one_load "$1" "$2" fault_tbf10 clear_tc "$SHORT"; }
sc_tbf_1mbit() { one_load "$1" "$2" fault_tbf1 clear_tc "$SHORT"; }
sc_sigstop_short() { one_load "$1" "$2" fault_stop clear_stop "$SHORT"; }
sc_sigstop_long() { one_load "$1" "$2" fault_stop clear_stop "$LONG"; }
sc_kill_restart() { one_load "$1" "$2" fault_kill clear_kill 1; }

# sc_two_servers -- servers on hosts 1 and 2, one load on each region (rpma-load drives
# one region, so one target: two loads share the client host); host 2's link goes down:
# the load on host 1 must not notice (a bystander), the other is a short fault's
sc_two_servers() {
	local name=$1 total=$((LEAD + SHORT + AFTER)) fs fe a1
	hosts_make flt 3
	client_yaml 1 2 >"$W/client.yaml"
	if server_start 1 && server_start 2 && load_start 1 "$total" 1 && load_start 2 "$total" 2; then
		sleep_until "$(awk -v s="${RUN_START[2]}" -v l="$LEAD" 'BEGIN { printf "%.3f", s + l }')"
		fs=$(now)
		link_down 2
		sleep "$SHORT"
		fe=$(now)
		link_up 2
		load_wait 1 "$total"
		load_wait 2 "$total"
	fi
	server_stop 1
	server_stop 2
	if [ -n "${fs:-}" ]; then
		check_load 1 "$total" "$fs" "$fe" bystander
		a1="${A[failed]:-?} (gap ${A[gap]:-?} s, goal ${A[goal]:-?})"
		check_file 1 1
		check_load 2 "$total" "$fs" "$fe" short
		check_file 2 2
		note "the load on the other server: failed $a1"
	fi
	result "$name" "$(failed_str)" "${A[recovery]:-?}" "${A[gap]:-?}" "${A[run_s]:-?}" \
		"${DATA[2]:-?}; the other server's: ${DATA[1]:-?}" "${A[accounted]:-?}" "${A[goal]:-?}"
}

# mount_tmpfs DIR OPTIONS -- a tmpfs at DIR (made), unmounted at the end
mount_tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "$2" tmpfs "$1" || {
		fail "cannot mount a tmpfs at $1 ($2)"
		return 1
	}
	MOUNTS+=("$1")
}

# fault_fill / clear_fill -- the region's file system filled by another file, and freed
fault_fill() {
	dd if=/dev/zero of="$W/mnt/filler" bs=1M status=none 2>/dev/null
	note "the file system filled: $(df -k --output=avail "$W/mnt" | awk 'END { print $1 }') KiB free"
}
clear_fill() { rm -f "$W/mnt/filler"; }

# sc_disk_full -- the file system of the region's file (a tmpfs of 24 MiB, the region
# 16 MiB) filled up by another file during the run: the server gave the region its blocks
# when it started, so the client's writes go on as before and none fails
sc_disk_full() {
	mount_tmpfs "$W/mnt" size=24m || { one_result "$1"; return; }
	REGION_FILE=$W/mnt/region1
	one_load "$1" "$2" fault_fill clear_fill "$SHORT"
	unset REGION_FILE
}

# disk_refused NAME OPTIONS EXPECT -- rpma-server with its region on a tmpfs mounted with
# OPTIONS must refuse to start, at once, with the log line EXPECT naming the file and why
disk_refused() {
	local name=$1 rc t0 t1
	hosts_make flt 2
	mount_tmpfs "$W/mnt" "$2" || { result "$name" - - - - - - -; return; }
	server_yaml 1 "$W/mnt/region1" >"$W/server1.yaml"
	t0=$(date +%s%N)
	timeout 20 ip netns exec "${HOST_NS[1]}" env SOFTRDMA_TRANSPORT=tcp "$RUN" "$SERVER" \
		-c "$W/server1.yaml" >"$W/server1.out" 2>"$W/server1.log"
	rc=$?
	t1=$((($(date +%s%N) - t0) / 1000000))
	if [ "$rc" -eq 124 ]; then
		fail "hang: rpma-server still ran 20 s after it started"
	elif [ "$rc" -eq 0 ] || [ "$rc" -gt 128 ]; then
		fail "rpma-server: $(signame "$rc"), expected a refusal (exit 1)"
	elif ! grep -qF "$3" "$W/server1.log"; then
		fail "no clear error: $(head -n 2 "$W/server1.log" | tr '\n' ' ')"
	else
		note "rpma-server refused to start in $t1 ms: $(grep -m1 -F "$3" "$W/server1.log" |
			sed 's/^[^ ]* //')"
	fi
	result "$name" - - - "$(awk -v m="$t1" 'BEGIN { printf "%.1f", m / 1000 }')" "nothing written" - -
}

# sc_disk_too_small -- a region larger than its file system: refused at start, not found
# by a client's write into a page the file system cannot give
sc_disk_too_small() {
	disk_refused "$1" size=4m "region data1: $W/mnt/region1: no space left for its 16777216 bytes"
}

# sc_disk_no_inode -- the region's file cannot be created (a tmpfs with no inode left)
sc_disk_no_inode() {
	disk_refused "$1" size=4m,nr_inodes=1 "region data1: open($W/mnt/region1): No space left on device"
}

# ---------------------------------------------------------------- librpmem scenarios
# rpmem_setup -- rpmemd on host 1 with a pool set directory, the client's librpmem
# configuration, the sets of a pool "f" (32 MiB, its replica on rpmemd) created with 40
# objects by the program on host 0
rpmem_setup() {
	mkdir -p "$W/sets" "$W/local"
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$W/key" && echo >>"$W/key" && chmod 600 "$W/key"
	{
		yaml_common | grep -v '^log:'
		echo "auth: {key_file: $W/key}"
	} >"$W/librpmem.yaml"
	{
		echo "workers: {count: 2}"
		echo "listen: {address: ${HOST_ADDR[1]}, port: $port, max_connections: 16}"
		echo "rpmem: {poolset_dir: $W/sets, persistence: gpspm}"
		echo "auth: {key_file: $W/key}"
		echo "log: {level: info}"
	} >"$W/rpmemd.yaml"
	printf 'PMEMPOOLSET\n32M %s\n' "$W/sets/f.part0" >"$W/sets/f.set"
	printf 'PMEMPOOLSET\n32M %s\nREPLICA %s:%s f.set\n' "$W/local/f.part0" "${HOST_ADDR[1]}" \
		"$port" >"$W/f.set"
	rpmemd_start || return 1
	pmemobj create "$W/f.set" 40 "$W/m0" >"$W/create.out" 2>&1 || {
		fail "the pool could not be created: $(tail -n 2 "$W/create.out" | tr '\n' ' ')"
		return 1
	}
}

# rpmemd_start -- rpmemd on host 1 (SRV_PID[1]): "listening on" within 10 s
rpmemd_start() {
	local _
	: >"$W/rpmemd.log" # now: the job's own redirection may come after the first look below
	ip netns exec "${HOST_NS[1]}" env SOFTRDMA_TRANSPORT=tcp "$RUN" "$RPMEMD" \
		-c "$W/rpmemd.yaml" >"$W/rpmemd.out" 2>>"$W/rpmemd.log" &
	SRV_PID[1]=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$W/rpmemd.log" && return 0
		kill -0 "${SRV_PID[1]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "rpmemd did not start: $(tail -n 2 "$W/rpmemd.log" | tr '\n' ' ')"
	return 1
}

# pmemobj ARGS... -- the program of tests/librpmem on host 0, with our librpmem (60 s at most)
pmemobj() {
	timeout -k 5 60 "${PMEMOBJ_RUN[@]}" "$@"
}

# sampler PID OUT CSV -- while PID runs: every 100 ms the last "committed K" of OUT, as a
# timeline (seconds,epoch,ok,failed: ok the transactions committed since the last line)
sampler() {
	local pid=$1 out=$2 csv=$3 t0 last=0 k e
	t0=$(now)
	echo "seconds,epoch,ok,failed" >"$csv"
	while kill -0 "$pid" 2>/dev/null; do
		e=$(now)
		k=$(tail -n 1 "$out" 2>/dev/null)
		k=${k#committed }
		[[ $k =~ ^[0-9]+$ ]] || k=$last
		awk -v e="$e" -v t="$t0" -v d=$((k - last)) 'BEGIN { printf "%.3f,%.3f,%d,0\n", e - t, e, d }' >>"$csv"
		last=$k
		sleep 0.1
	done
}

# rpmem_scenario NAME FAULT CLEAR -- the transaction loop on host 0 through the fault; then
# (the loop stopped with SIGKILL if it still runs) the pool reopened, every committed
# transaction in it, and its replica equal to it where libpmemobj persisted
rpmem_scenario() {
	local name=$1 inject=$2 clear=$3 lp sp fs fe rc c0 c1 least committed after died fate="?" data="?"
	hosts_make flt 2
	PMEMOBJ_RUN=(ip netns exec "${HOST_NS[0]}" env SOFTRDMA_TRANSPORT=tcp LD_LIBRARY_PATH="$BUILD/lib"
		LIBRPMEM_CONFIG="$W/librpmem.yaml" "$RUN" "$PMEMOBJ")
	rpmem_setup || { result "$name" - - - - - - -; return; }
	# in a subshell that keeps its status ($W/loop.rc) and whose own stderr is dropped (the
	# shell's word on a job killed by a signal): $W/loop.pid is the program itself
	(
		"${PMEMOBJ_RUN[@]}" loop "$W/f.set" 100000000 >"$W/loop.out" 2>"$W/loop.err" &
		echo $! >"$W/loop.pid"
		wait $!
		echo $? >"$W/loop.rc"
	) 2>/dev/null &
	sp=$!
	for _ in $(seq 50); do [ -s "$W/loop.pid" ] && break; sleep 0.1; done
	lp=$(cat "$W/loop.pid")
	sampler "$lp" "$W/loop.out" "$W/loop.csv" &
	sp="$sp $!"
	for _ in $(seq 100); do
		grep -q '^committed 1$' "$W/loop.out" && break
		sleep 0.1
	done
	c0=$(now)
	sleep "$LEAD"
	fs=$(now)
	$inject
	sleep "$SHORT"
	fe=$(now)
	$clear
	sleep "$AFTER"
	if kill -0 "$lp" 2>/dev/null; then
		after=$(tail -n 1 "$W/loop.out")
		sleep 1
		if [ "$(tail -n 1 "$W/loop.out")" = "$after" ]; then
			fail "hang: the application made no progress in the last second, $AFTER s after the fault"
			fate="hung"
		else
			fate="survived, 0 errors"
		fi
		kill -9 "$lp" 2>/dev/null
	else
		# shellcheck disable=SC2086
		wait $sp
		rc=$(cat "$W/loop.rc")
		died=$(awk -v d="$(tail -n 1 "$W/loop.csv" | cut -d, -f2)" -v s="$fs" \
			'BEGIN { printf "%.1f", d - s }')
		fate="the application died ($(signame "$rc")) $died s into the fault"
		note "$fate; its last words: $(grep -v '^$' "$W/loop.err" | tail -n 1 |
			sed 's/^[0-9T:.+-]* //' | cut -c1-160)"
		[ "$STRICT" = 1 ] && fail "goal (FAULTS_STRICT): $fate"
	fi
	# shellcheck disable=SC2086
	wait $sp
	c1=$(now)
	kill -CONT "${SRV_PID[1]}" 2>/dev/null
	committed=$(grep -c '^committed' "$W/loop.out")
	least=$((40 + (committed + 3) / 4))
	[ "$least" -gt 400 ] && least=400
	if pmemobj verify "$W/f.set" "$least+" "$W/m1" >"$W/verify.out" 2>&1; then
		data="intact ($committed transactions committed, $(sed -n 's/^verify: reopened, \([0-9]*\) objects intact/\1 objects/p' "$W/verify.out"))"
		if ! rpmem_compare 2>"$W/compare.err"; then
			data="$data; THE REPLICA DIFFERS"
			fail "$(cat "$W/compare.err")"
		fi
	else
		data="LOST: $(grep -v '^$' "$W/verify.out" | tail -n 2 | tr '\n' ' ')"
		fail "the pool does not reopen with the $committed committed transactions: $data"
	fi
	if [ -n "${SRV_PID[1]:-}" ] && ! kill -0 "${SRV_PID[1]}" 2>/dev/null; then
		fail "rpmemd died during the run"
	fi
	kill -TERM "${SRV_PID[1]}" 2>/dev/null
	wait_pid "${SRV_PID[1]}" 15 || note "rpmemd did not exit 0 on SIGTERM"
	SRV_PID[1]=
	while IFS='=' read -r key val; do
		A[$key]=$val
	done < <(python3 "$here/analyze.py" --json - "$W/loop.csv" --start "$fs" --end "$fe" \
		--bound 0 --op-ms "$OP_MS" --inflight 1 --class short)
	note "$(awk -v r="${A[pre_rate]:-0}" 'BEGIN { printf "%d", r }') transactions/s before the fault"
	result "$name" "$([[ $fate == survived* ]] && echo 0 || echo "${fate#the }")" \
		"${A[recovery]:-?}" "${A[gap]:-?}" "$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }')" \
		"$data" - "$([[ $fate == survived* ]] && echo met || echo "missed: ${fate%% (*}")"
}

# rpmem_compare -- every range the manifest of the last verify names (and the pool
# descriptor) equal in the local pool and its replica on rpmemd
rpmem_compare() {
	python3 - "$W/m1" "$W/local/f.part0" "$W/sets/f.part0" <<'PY'
import sys
ranges = [(4096, 2592, "descriptor")]
for line in open(sys.argv[1]):
    off, length, what = line.split()
    ranges.append((int(off), int(length), what))
a = open(sys.argv[2], "rb").read()
b = open(sys.argv[3], "rb").read()
bad = [w for off, n, w in ranges if a[off:off + n] != b[off:off + n]]
if bad:
    print("the replica differs in: " + ", ".join(bad[:5]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

rpmem_fault_link() { link_down 1; }
rpmem_clear_link() { link_up 1; }
rpmem_fault_stop() { kill -STOP "${SRV_PID[1]}"; }
rpmem_clear_stop() { kill -CONT "${SRV_PID[1]}"; }
sc_rpmem_partition() { rpmem_scenario "$1" rpmem_fault_link rpmem_clear_link; }
sc_rpmem_freeze() { rpmem_scenario "$1" rpmem_fault_stop rpmem_clear_stop; }

# ---------------------------------------------------------------- the runner
# scenario NAME -- one scenario on hosts of its own; they are removed after it
scenario() {
	local entry name class
	for entry in "${SCENARIOS[@]}"; do
		IFS='|' read -r name class _ <<<"$entry"
		[ "$name" = "$1" ] || continue
		W=$work/$name
		mkdir -p "$W"
		FAILS=()
		NOTES=()
		SRV_PID=()
		LOAD_PID=()
		RUN_START=()
		DATA=()
		A=()
		"sc_${name//-/_}" "$name" "$class"
		hosts_remove
		for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
		MOUNTS=()
		return 0
	done
	echo "faults: no scenario $1 (--list names them)" >&2
	return 2
}

# write_table FILE -- the results as a markdown table, with how they were made
write_table() {
	{
		echo "| scenario | fault | failed operations | recovery (s) | longest gap (s) | run (s) | data | operations accounted | goal | result | found |"
		echo "|---|---|---:|---:|---:|---:|---|---|---|---|---|"
		while IFS=$'\x1f' read -r name verdict failed rec gap runs data acc goal why notes; do
			local desc entry n c d
			for entry in "${SCENARIOS[@]}"; do
				IFS='|' read -r n c d <<<"$entry"
				[ "$n" = "$name" ] && desc=$d
			done
			echo "| $name | $desc | $failed | $rec | $gap | $runs | $data | $acc | $goal | $verdict${why:+: $why} | ${notes:--} |"
		done <"$results"
	} >"$1"
}

# requirements -- the programs every scenario needs, and the right to make hosts
requirements() {
	local f
	[ "$(id -u)" = 0 ] || hosts_skip "the fault harness makes network namespaces and mounts: it needs root"
	command -v python3 >/dev/null || { echo "faults: python3 is needed" >&2; exit 1; }
	for f in "$SERVER" "$LOAD"; do
		[ -x "$f" ] || { echo "faults: $f is not built (make rpma-server rpma-load softrdma)" >&2; exit 1; }
	done
}

list=()
while [ $# -gt 0 ]; do
	case $1 in
	--table) table=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--short) read -ra s <<<"$SHORT_SET"; list+=("${s[@]}"); shift ;;
	--all) for e in "${SCENARIOS[@]}"; do list+=("${e%%|*}"); done; shift ;;
	--list) for e in "${SCENARIOS[@]}"; do IFS='|' read -r n c d <<<"$e"; printf '%-18s %-6s %s\n' "$n" "$c" "$d"; done; exit 0 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "faults: unknown option $1" >&2; exit 2 ;;
	*) list+=("$1"); shift ;;
	esac
done
[ "${#list[@]}" -gt 0 ] || { echo "usage: faults.sh [--table FILE] [--keep DIR] SCENARIO... | --short | --all | --list" >&2; exit 2; }
requirements
python3 "$here/analyze.py" --self-test || { echo "faults: analyze.py fails its self-test" >&2; exit 1; }
for n in "${list[@]}"; do
	case $n in rpmem-*)
		[ -x "$RPMEMD" ] && [ -x "$PMEMOBJ" ] && [ -f "$BUILD/lib/librpmem.so.1" ] || {
			echo "faults: $n needs rpmemd, librpmem and $PMEMOBJ (make rpmemd librpmem $PMEMOBJ)" >&2
			exit 1
		} ;;
	esac
done

: >"$results"
t0=$(date +%s)
echo "faults: operation_ms $OP_MS, heartbeat ${HB_MS} ms x $HB_MISSES, reconnect ${RC_INIT_MS}..${RC_MAX_MS} ms;" \
	"$THREADS threads x queue depth $QD of $WSIZE write_persist; fault at ${LEAD} s, ${AFTER} s after it" \
	"$([ "$STRICT" = 1 ] && echo "; the goals are pass criteria (FAULTS_STRICT=1)")"
for n in "${list[@]}"; do
	scenario "$n" || exit 2
done
[ -n "$table" ] && write_table "$table"
npass=$(awk -F'\037' '$2 == "PASS"' "$results" | wc -l)
nall=$(wc -l <"$results")
echo "faults: $npass of $nall scenarios passed in $(($(date +%s) - t0)) s"
[ "$npass" -eq "$nall" ]
