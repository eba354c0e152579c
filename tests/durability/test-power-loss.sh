#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-power-loss.sh SERVER LOAD SHADOW -- a power cut simulated under
# rpma-server (SERVER): the interposer SHADOW (shadow.c, LD_PRELOAD) keeps
# the region file's "disk", a shadow that receives only what msync(MS_SYNC),
# fsync or fdatasync made durable. rpma-load (LOAD) writes and persists
# records with --verify --journal; the server is then killed with SIGKILL
# (the power cut: nothing it did not make durable survives) and the SHADOW,
# not the region file, is checked against the journal with --verify-file:
# every acknowledged persistent write must be there. The cases:
#   gpspm          persistence gpspm on an ordinary file: passes
#   auto-direct    persistence auto with direct_write: true on an ordinary
#                  file (page granularity): GPSPM, passes (APM before: the
#                  client's flush left the writes in the page cache, and the
#                  shadow missed them)
#   no-persist     plain writes, never persisted: the shadow check must FAIL
#                  (the check can fail: writes in the page cache are lost)
#   group-qd32     gpspm, 4 KiB write_persist at queue depth 32 (group commit,
#                  server/sgroup.c: the persists of a worker's turn made
#                  durable together, mostly one fdatasync each turn) and
#   group-qd2      the same at queue depth 2 (one msync per run of pages): the
#                  persists are grouped (fewer durability calls than half the
#                  persists at depth 32: one each without grouping)
# In every case rpma-load reads each acknowledged write_persist's record
# back from the shadow as soon as its reply has come (RPMA_LOAD_DURABLE_FILE):
# the shadow receives a call's bytes only once the call has returned, so a
# server that answered a persist before its msync/fdatasync returned is
# caught there, not only at the power cut.
#   apm-refused    persistence apm with direct_write: true on an ordinary
#                  file: the server refuses to start (exit 1), naming the
#                  region, the file and the granularity; the file is not left
#   apm-reload     the same region added to a running server by SIGHUP:
#                  refused, the server serving on
#   apm-forced     the same under PMEM2_FORCE_GRANULARITY=CACHE_LINE
#                  (libpmem2's testing switch): accepted as APM, with a warning
# and each started server's log names the region's persistence mechanism.
#   POWER_LOSS_TEST_PORT   the first of the 6 TCP ports used (default: at
#                          random in 30000-31794)
set -u
TOOL=$1
LOAD=$2
SHADOW=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
. "$(dirname "$0")/../../tools/tool-test.sh"
port=${POWER_LOSS_TEST_PORT:-$((30000 + RANDOM % 300 * 6))}
OPS=600	   # write+persist operations of a run
THREADS=2  # application threads of rpma-load
QD=4	   # their queue depth
SIZES="{uniform: [64, 8K]}"

# config PORT PERSISTENCE DIRECT -- server and client configuration of a case
config() {
	cat >"$tmp/c.yaml" <<YAML
workers: {count: 2, polling: event}
queues: {sq: 64, messages: {size: 4K, credits: 16}}
listen: {address: 127.0.0.1, port: $1, max_connections: 8}
targets: [{name: srv, address: 127.0.0.1, port: $1, connections: 2}]
regions:
  - name: data
    size: 2M
    backing: {file: $tmp/region.pmem, create: true}
    persistence: $2
    direct_write: $3
timeouts: {connect_ms: 2000, operation_ms: 5000}
log: {level: notice}
YAML
}

# workload KIND -- OPS operations of KIND on region data, 2 threads of 4
workload() {
	cat >"$tmp/w.yaml" <<YAML
region: data
mix: [{kind: $1, weight: 1}]
sizes: {$1: $SIZES}
threads: $THREADS
queue_depth: $QD
count: $OPS
seed: 7
YAML
}

# start_shadowed -- the server under the interposer; 0 once it listens
start_shadowed() {
	# the log too: the background start truncates it later than the first look below
	rm -f "$tmp/region.pmem" "$tmp/shadow" "$tmp/shadow.log" "$tmp/journal" "$tmp/log"
	: >"$tmp/shadow" # read by rpma-load from the start (RPMA_LOAD_DURABLE_FILE)
	LD_PRELOAD="$SHADOW" SHADOW_FILE="$tmp/region.pmem" SHADOW_OUT="$tmp/shadow" \
		SHADOW_LOG="$tmp/shadow.log" "$run" "$TOOL" -c "$tmp/c.yaml" \
		>"$tmp/srv.out" 2>"$tmp/log" &
	pid=$!
	for _ in $(seq 100); do
		grep -qsF "listening on" "$tmp/log" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# power_cut -- SIGKILL: the server makes nothing more durable
power_cut() {
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# run_case NAME PERSISTENCE DIRECT KIND WANT MECHANISM -- a run of KIND,
# the power cut, the shadow checked: WANT is 0 (every record there) or 1
# (records missing); the log must match MECHANISM
run_case() {
	local name=$1 want=$5 got
	port=$((port + 1))
	config "$port" "$2" "$3"
	workload "$4"
	if ! start_shadowed; then
		ko "$name" "the server did not start"
		power_cut
		return
	fi
	grep -qE -- "$6" "$tmp/log" && ok || ko "$name" "the log does not say /$6/"
	RPMA_LOAD_DURABLE_FILE="$tmp/shadow" timeout 60 "$run" "$LOAD" -c "$tmp/c.yaml" \
		-w "$tmp/w.yaml" --set log.level=error --verify --journal "$tmp/journal" \
		>"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq 0 ] && grep -q "verify: .* 0 bad" "$tmp/out" && ok ||
		ko "$name" "rpma-load exited $got or found bad records during the run"
	if [ "$4" = write_persist ]; then
		grep -qE "durable: $OPS acknowledged persists read back .*, 0 missing" "$tmp/err" &&
			ok || ko "$name" "a persist was acknowledged before it was durable"
	fi
	calls=$(cat "$tmp/shadow.log" 2>/dev/null | wc -l)
	power_cut
	# the shadow as large as the file: what was never made durable is zeros
	truncate -s 2M "$tmp/shadow"
	"$LOAD" --verify-file "$tmp/shadow" --journal "$tmp/journal" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		ko "$name" "the shadow check exited $got, expected $want ($(tail -n 1 "$tmp/out"))"
	else
		ok
		echo "  $name: after the power cut: $(tail -n 1 "$tmp/out")" \
			"($(cat "$tmp/shadow.log" 2>/dev/null | wc -l) durability calls)"
	fi
	# the region file itself holds every record: what the cut lost was in the page cache
	"$LOAD" --verify-file "$tmp/region.pmem" --journal "$tmp/journal" >"$tmp/out" 2>"$tmp/err" &&
		ok || ko "$name" "the region file itself fails the check"
}

run_case gpspm gpspm false write_persist 0 \
	"region data: .*region\.pmem, 2 MiB( \(file created\))?, GPSPM: .*msync.* \(page granularity"
run_case auto-direct auto true write_persist 0 \
	"region data: .*region\.pmem, 2 MiB( \(file created\))?, GPSPM: .*msync.* \(page granularity"
run_case no-persist gpspm false write 1 "region data: .*GPSPM"

# group commit: depth 32, one thread, 4 KiB (mostly an fdatasync a turn); then depth 2 (msync)
OPS=3000 THREADS=1 QD=32 SIZES=4K
run_case group-qd32 gpspm false write_persist 0 "region data: .*GPSPM"
[ "$calls" -lt $((OPS / 2)) ] && ok ||
	ko group-qd32 "$calls durability calls for $OPS persists: not grouped"
echo "  group-qd32: $OPS persists, $calls durability calls"
OPS=600 QD=2
run_case group-qd2 gpspm false write_persist 0 "region data: .*GPSPM"
grep -q "^msync " "$tmp/shadow.log" 2>/dev/null && ok || ko group-qd2 "no msync at depth 2"
OPS=600 THREADS=2 QD=4 SIZES="{uniform: [64, 8K]}"

# an explicit apm that cannot be durable: refused at start, nothing left behind
port=$((port + 1))
config "$port" apm true
rm -f "$tmp/region.pmem"
expect apm-refused 1 "region data: persistence apm cannot be durable on .*region\.pmem: \
libpmem2 reports page granularity" -c "$tmp/c.yaml"
[ ! -e "$tmp/region.pmem" ] && ok || ko apm-refused "the region file was left behind"

# the same region added by a reload (SIGHUP): refused, the server goes on
port=$((port + 1))
config "$port" gpspm false
if start_shadowed; then
	ok
	sed -i "s|^regions:|regions:\n  - {name: more, size: 1M, backing: {file: $tmp/more.pmem, create: true}, persistence: apm, direct_write: true}|" \
		"$tmp/c.yaml"
	kill -HUP "$pid"
	for _ in $(seq 100); do
		grep -qF "region more: persistence apm cannot be durable" "$tmp/log" && break
		sleep 0.1
	done
	grep -qF "region more: persistence apm cannot be durable on $tmp/more.pmem" "$tmp/log" &&
		ok || ko apm-reload "no refusal of region more in the log"
	kill -0 "$pid" 2>/dev/null && [ ! -e "$tmp/more.pmem" ] && ok ||
		ko apm-reload "the server stopped, or the refused region's file was left"
else
	ko apm-reload "the server did not start"
fi
power_cut

# libpmem2 told the mapping is persistent memory: APM is taken, with a warning
port=$((port + 1))
config "$port" apm true
if PMEM2_FORCE_GRANULARITY=CACHE_LINE start_shadowed; then
	ok
	grep -qE "region data: .*2 MiB( \(file created\))?, APM: .*\(cache-line granularity" "$tmp/log" && ok ||
		ko apm-forced "the log does not say APM at cache-line granularity"
	grep -qE "warning: .*PMEM2_FORCE_GRANULARITY=CACHE_LINE" "$tmp/log" && ok ||
		ko apm-forced "no warning about PMEM2_FORCE_GRANULARITY"
	# resized by a reload: changed in place, the same file, so APM still
	sed -i 's/size: 2M/size: 4M/' "$tmp/c.yaml"
	kill -HUP "$pid"
	for _ in $(seq 100); do
		grep -qE "region data: .*4 MiB" "$tmp/log" && break
		sleep 0.1
	done
	grep -qE "region data: .*4 MiB.*, APM: .*\(cache-line granularity" "$tmp/log" &&
		ok || ko apm-resized "the region resized by a reload is not APM: $(grep 'region data: .*4 MiB' "$tmp/log")"
else
	ko apm-forced "the server did not start"
fi
power_cut

summary "power loss"
