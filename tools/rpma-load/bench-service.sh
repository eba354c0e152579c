#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-service.sh -- the service against bare librpma, case by case:
# rpma-load driving rpma-server through the framework beside rpma-bench on
# librpma alone, for the same operations, sizes and queue depths, with 1 and
# 2 workers, over softrdma on loopback.
#
# usage: bench-service.sh [-t SECONDS] [-r ROUNDS] [-p PORT] [-m MODE] [-b DIR]
#   -t SECONDS  measured time of each case (2)
#   -r ROUNDS   rounds, alternating bare and framework; each figure is the
#               median of the rounds (1)
#   -p PORT     first of the 3 ports used (18960)
#   -m MODE     how both sides wait for completions: event (the framework's
#               polling: event, rpma-bench's rpma_cq_wait) or busy (polling:
#               busy, rpma-bench -b) (event)
#   -b DIR      the top of the build tree (build)
#
# The cases: write_persist (rpma-bench's write_flush: a write and a
# persistent flush, APM), read, and a message call (rpma-bench's pingpong: a
# message and its echo), each at 64 B and 4 KiB, queue depth 1 and 32.
# "Workers" means, for the framework, workers.count on both sides with as
# many connections and application threads; for bare librpma, as many
# rpma-bench processes at once on ports of their own (each one connection,
# one client thread, its own server), whose rates add up and whose worst p99
# is taken. Queue depth is per thread on both sides.
#
# Prints one row per case: ops/s and p99 of each side, and the framework's
# ops/s as a ratio of bare librpma's. Exits non-zero when a run failed.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN="$ROOT/tools/softrdma-run"
SECS=2
ROUNDS=1
PORT=18960
MODE=event
BUILD=$ROOT/build

usage() {
	sed -n '/^# usage:/,/^#   -b/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

while getopts "t:r:p:m:b:h" opt; do
	case $opt in
	t) SECS=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	p) PORT=$OPTARG ;;
	m) MODE=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	*) usage ;;
	esac
done
[ "$OPTIND" -gt "$#" ] || usage
case $MODE in
event) BARE_WAIT=() ;;
busy) BARE_WAIT=(-b) ;;
*) usage ;;
esac

SERVER=$BUILD/tools/rpma-server
LOAD=$BUILD/tools/rpma-load
BARE=$BUILD/bench/rpma-bench-ours
for b in "$SERVER" "$LOAD" "$BARE"; do
	[ -x "$b" ] || {
		echo "bench-service: $b is missing (make bench-service builds it)" >&2
		exit 1
	}
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-service.XXXXXX") || exit 1
SRV_PID=
BARE_PIDS=()

# cleanup -- stop whatever is still running, remove the work directory
cleanup() {
	[ -n "$SRV_PID" ] && kill -KILL "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	for p in "${BARE_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# fail -- say why and stop
fail() {
	echo "bench-service: $*" >&2
	exit 1
}

# the framework's kinds, rpma-bench's names for the same operation
KINDS=(write_persist read call)
declare -A BARE_OP=([write_persist]=write_flush [read]=read [call]=pingpong)
SIZES=(64 4096)
QDS=(1 32)

# write_config W -- the configuration of both sides with W workers
write_config() {
	cat >"$WORK/config.yaml" <<EOF
workers: {count: $1, polling: $MODE}
queues: {sq: 128, messages: {size: 8K, credits: 32}}
listen: {address: 127.0.0.1, port: $PORT, max_connections: 8}
targets: [{name: bench, address: 127.0.0.1, port: $PORT, connections: $1}]
regions:
  - {name: data, size: 64M, backing: {file: $WORK/region, create: true},
     usage: [read, write, flush], persistence: apm, direct_write: true}
log: {level: warning}
EOF
}

# server_start -- rpma-server on the configuration, waited for until it listens
# (the region is an ordinary file, where rpma-server refuses persistence apm:
# PMEM2_FORCE_GRANULARITY, libpmem2's testing switch, calls it persistent
# memory, as rpma-bench declares direct write to PMem on its memory; both
# measure the APM path, neither is durable here: doc/DURABILITY.md)
server_start() {
	PMEM2_FORCE_GRANULARITY=CACHE_LINE "$RUN" "$SERVER" -c "$WORK/config.yaml" \
		--set log.level=info >"$WORK/server.log" 2>&1 &
	SRV_PID=$!
	for _ in $(seq 50); do
		grep -q "listening on" "$WORK/server.log" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/server.log" >&2
	fail "rpma-server did not start"
}

# server_stop -- SIGTERM, and its exit status
server_stop() {
	kill -TERM "$SRV_PID"
	wait "$SRV_PID" || fail "rpma-server exited with $?"
	SRV_PID=
}

# load_case W KIND SIZE QD -- one rpma-load run; prints "ops/s p99"
load_case() {
	cat >"$WORK/workload.yaml" <<EOF
region: data
mix: [{kind: $2, weight: 1}]
sizes: {$2: $3}
threads: $1
queue_depth: $4
duration: ${SECS}s
EOF
	"$RUN" "$LOAD" -c "$WORK/config.yaml" -w "$WORK/workload.yaml" --json \
		>"$WORK/load.json" 2>"$WORK/load.err" ||
		fail "rpma-load $2 size $3 qd $4 workers $1 failed: $(tail -n 3 "$WORK/load.err")"
	sed -n 's/.*"total":{[^}]*"ops_per_sec":\([0-9.]*\),.*"p99_us":\([0-9.]*\),.*/\1 \2/p' \
		"$WORK/load.json"
}

# bare_run W -- W rpma-bench processes at once, every case; their RESULT
# lines into $WORK/bare.W.N
bare_run() {
	BARE_PIDS=()
	for ((i = 0; i < $1; i++)); do
		"$RUN" "$BARE" "${BARE_WAIT[@]}" -q 1,32 -t "$SECS" -p $((PORT + 1 + i)) \
			>"$WORK/bare.$1.$i" 2>&1 &
		BARE_PIDS+=($!)
	done
	for p in "${BARE_PIDS[@]}"; do
		wait "$p" || fail "rpma-bench failed: $(tail -n 3 "$WORK"/bare.$1.*)"
	done
	BARE_PIDS=()
}

# bare_case W KIND SIZE QD -- the bare figures of a case: summed ops/s, worst p99
bare_case() {
	cat "$WORK"/bare.$1.* | awk -v op="${BARE_OP[$2]}" -v size="$3" -v qd="$4" '
		$1 == "RESULT" {
			delete f
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			if (f["op"] != op || f["size"] != size || f["qd"] != qd) next
			ops += f["ops_per_sec"]; n++
			if (f["p99_us"] > p99) p99 = f["p99_us"]
		}
		END { if (n) printf "%.0f %.1f\n", ops, p99 }'
}

# the figures: one line per round and case in $WORK/figures
: >"$WORK/figures"
for ((round = 1; round <= ROUNDS; round++)); do
	for w in 1 2; do
		echo "# round $round, $w worker(s): bare librpma" >&2
		bare_run "$w"
		echo "# round $round, $w worker(s): rpma-load against rpma-server" >&2
		write_config "$w"
		server_start
		for kind in "${KINDS[@]}"; do
			for size in "${SIZES[@]}"; do
				for qd in "${QDS[@]}"; do
					fw=$(load_case "$w" "$kind" "$size" "$qd")
					bare=$(bare_case "$w" "$kind" "$size" "$qd")
					[ -n "$fw" ] && [ -n "$bare" ] ||
						fail "no figures for $kind $size $qd"
					echo "$kind $size $qd $w $fw $bare" >>"$WORK/figures"
				done
			done
		done
		server_stop
	done
done

# the table: medians over the rounds
echo "# bench-service: $SECS s per case, $ROUNDS round(s), polling $MODE, $(nproc) CPUs"
echo "| op | size | QD | workers | rpma-load ops/s | p99 µs | rpma-bench ops/s | p99 µs | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for kind in "${KINDS[@]}"; do
	for size in "${SIZES[@]}"; do
		for qd in "${QDS[@]}"; do
			for w in 1 2; do
				awk -v k="$kind" -v s="$size" -v q="$qd" -v w="$w" '
				function median(a, n,   i, j, t) {
					for (i = 2; i <= n; i++)
						for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
							t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
						}
					return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
				}
				$1 == k && $2 == s && $3 == q && $4 == w {
					n++; fo[n] = $5; fp[n] = $6; bo[n] = $7; bp[n] = $8
				}
				END {
					o1 = median(fo, n); p1 = median(fp, n)
					o2 = median(bo, n); p2 = median(bp, n)
					printf "| %s | %s | %s | %s | %.0f | %.1f | %.0f | %.1f | %.2f |\n",
						k, s, q, w, o1, p1, o2, p2, o2 ? o1 / o2 : 0
				}' "$WORK/figures"
			done
		done
	done
done
