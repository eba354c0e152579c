#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-service.sh -- the service against bare librpma, case by case:
# rpma-load driving rpma-server through the framework beside rpma-bench on
# librpma alone, for the same operations, sizes and queue depths, with 1 and
# 2 workers, over softrdma on loopback, in interleaved rounds; then whether
# each goal of the comparison is met.
#
# usage: bench-service.sh [-t SECONDS] [-r ROUNDS] [-p PORT] [-m MODE] [-b DIR]
#                         [-k KINDS] [-q QDS] [-w WORKERS]
#   -t SECONDS  measured time of each case (2)
#   -r ROUNDS   rounds; each figure is the median of the rounds (3)
#   -p PORT     first of the 3 ports used (18960)
#   -m MODE     how both sides wait for completions: event (the framework's
#               polling: event, rpma-bench's rpma_cq_wait) or busy (polling:
#               busy, rpma-bench -b) (event)
#   -b DIR      the top of the build tree (build)
#   -k KINDS    the framework's kinds measured, comma-separated
#               (write_persist,read,call)
#   -q QDS      queue depths, comma-separated (1,32)
#   -w WORKERS  worker counts, comma-separated, 1 or 2 each (1,2)
#
# The cases: write_persist (rpma-bench's write_flush: a write and a
# persistent flush, APM), read, and a message call (rpma-bench's pingpong: a
# message and its echo), each at 64 B and 4 KiB, for each queue depth and
# worker count. "Workers" means, for the framework, workers.count on both
# sides with as many connections and application threads; for bare
# librpma, as many rpma-bench processes at once on ports of their own (each
# one connection, one client thread, its own server), whose rates add up
# and whose worst p99 is taken. Queue depth is per thread on both sides.
#
# Both sides touch the same amount of memory: rpma-bench reads and writes
# queue depth x 4 KiB slots of its buffers, so the region rpma-load works
# on is 32 x 4 KiB per worker, not a large one whose random blocks would
# come from memory where bare librpma's come from the cache.
#
# Like for like, for writes and reads: rpma-server's region is a file
# mapping, which softrdma's initiator maps and copies with memcpy; so
# rpma-bench runs with -S, its server's data in a shared mapping of a memfd
# that softrdma reaches the same way (anonymous memory would take a
# process_vm_readv or process_vm_writev per operation).
#
# Interleaving: a round measures, for each worker count and queue depth,
# the six cases of bare librpma (one rpma-bench run: three operations, two
# sizes) and the same six of the framework, bare first in odd rounds and
# the framework first in even ones, so that a change in the machine's load
# falls on both sides alike. A case's ratio is the median over the rounds
# of the ratio measured in each round.
#
# Prints one row per case: ops/s and p99 of each side (medians), the
# framework's ops/s as a ratio of bare librpma's and its p99 as a ratio of
# bare librpma's; then one line per goal, "met" or "not met" with the worst
# case. Exits non-zero when a run failed (not when a goal is missed).

set -u

. "$(dirname "$0")/../common/service-script.sh"
SECS=2
ROUNDS=3
PORT=18960
MODE=event
BUILD=$ROOT/build
KINDS_ARG=write_persist,read,call
QDS_ARG=1,32
WORKERS_ARG=1,2

options_parse "t:SECS r:ROUNDS p:PORT m:MODE b:BUILD k:KINDS_ARG q:QDS_ARG w:WORKERS_ARG" "$@"
case $MODE in
event) BARE_WAIT=() ;;
busy) BARE_WAIT=(-b) ;;
*) options_usage w ;;
esac
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || options_usage w

# the framework's kinds, rpma-bench's names for the same operation
declare -A BARE_OP=([write_persist]=write_flush [read]=read [call]=pingpong)
IFS=, read -r -a KINDS <<<"$KINDS_ARG"
IFS=, read -r -a QDS <<<"$QDS_ARG"
IFS=, read -r -a WORKERS <<<"$WORKERS_ARG"
SIZES=(64 4096)
for k in "${KINDS[@]}"; do [ -n "${BARE_OP[$k]:-}" ] || options_usage w; done
for q in "${QDS[@]}"; do
	[[ $q =~ ^[0-9]+$ ]] && [ "$q" -ge 1 ] && [ "$q" -le 32 ] || options_usage w
done
for w in "${WORKERS[@]}"; do [[ $w == 1 || $w == 2 ]] || options_usage w; done

SERVER=$BUILD/tools/rpma-server
LOAD=$BUILD/tools/rpma-load
BARE=$BUILD/bench/rpma-bench-ours
service_need "$SERVER" "$LOAD" "$BARE"

service_workdir || exit 1
BARE_PIDS=()

# cleanup -- stop whatever is still running, remove the work directory
cleanup() {
	for p in "${BARE_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	service_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# fw_server W -- rpma-server with W workers on a new region, listening
fw_server() {
	rm -f "$WORK/region"
	service_config "$WORK/config.yaml" "$PORT" "$WORK/region" workers="$1" polling="$MODE" \
		sq=128 msg=8K credits=32 target=bench conns="$1" size=$((128 * $1))K persistence=apm \
		level=warning
	service_start_apm "$RUN" "$SERVER" "$WORK/config.yaml" "$WORK/server.log" ||
		service_fail "rpma-server did not start"
}

# load_case W KIND SIZE QD -- one rpma-load run; prints "ops/s p99"
load_case() {
	cat >"$WORK/workload.yaml" <<EOF
region: data
mix: [{kind: $2, weight: 1}]
sizes: {$2: $3}
threads: $1
queue_depth: $4
warmup: 0.2s
duration: ${SECS}s
EOF
	"$RUN" "$LOAD" -c "$WORK/config.yaml" -w "$WORK/workload.yaml" --json \
		>"$WORK/load.json" 2>"$WORK/load.err" ||
		service_fail "rpma-load $2 size $3 qd $4 workers $1 failed: $(tail -n 3 "$WORK/load.err")"
	sed -n 's/.*"total":{[^}]*"ops_per_sec":\([0-9.]*\),.*"p99_us":\([0-9.]*\),.*/\1 \2/p' \
		"$WORK/load.json"
}

# fw_group W QD -- the framework's cases of W workers at queue depth QD into
# $WORK/fw (one line "kind size ops/s p99" each)
fw_group() {
	: >"$WORK/fw"
	fw_server "$1"
	for kind in "${KINDS[@]}"; do
		for size in "${SIZES[@]}"; do
			echo "$kind $size $(load_case "$1" "$kind" "$size" "$2")" >>"$WORK/fw"
		done
	done
	service_stop "$SERVICE_PID" || service_fail "rpma-server exited with $?"
	SERVICE_PID=
}

# bare_group W QD -- W rpma-bench processes at once at queue depth QD; their
# RESULT lines into $WORK/bare.N
bare_group() {
	rm -f "$WORK"/bare.*
	BARE_PIDS=()
	for ((i = 0; i < $1; i++)); do
		"$RUN" "$BARE" "${BARE_WAIT[@]}" -S -q "$2" -t "$SECS" -p $((PORT + 1 + i)) \
			>"$WORK/bare.$i" 2>&1 &
		BARE_PIDS+=($!)
	done
	for p in "${BARE_PIDS[@]}"; do
		wait "$p" || service_fail "rpma-bench failed: $(tail -n 3 "$WORK"/bare.*)"
	done
	BARE_PIDS=()
}

# bare_case KIND SIZE QD -- the bare figures of a case: summed ops/s, worst p99
bare_case() {
	cat "$WORK"/bare.* | awk -v op="${BARE_OP[$1]}" -v size="$2" -v qd="$3" '
		$1 == "RESULT" {
			delete f
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			if (f["op"] != op || f["size"] != size || f["qd"] != qd) next
			ops += f["ops_per_sec"]; n++
			if (f["p99_us"] > p99) p99 = f["p99_us"]
		}
		END { if (n) printf "%.0f %.1f\n", ops, p99 }'
}

# group W QD ROUND -- both sides' cases of W workers at QD, in the round's
# order, into $WORK/figures (one line per case)
group() {
	if (($3 % 2)); then
		bare_group "$1" "$2"
		fw_group "$1" "$2"
	else
		fw_group "$1" "$2"
		bare_group "$1" "$2"
	fi
	for kind in "${KINDS[@]}"; do
		for size in "${SIZES[@]}"; do
			fw=$(awk -v k="$kind" -v s="$size" '$1 == k && $2 == s { print $3, $4 }' \
				"$WORK/fw")
			bare=$(bare_case "$kind" "$size" "$2")
			[ -n "$fw" ] && [ -n "$bare" ] || service_fail "no figures for $kind $size $2"
			echo "$kind $size $2 $1 $fw $bare" >>"$WORK/figures"
		done
	done
}

# the figures: one line per round and case in $WORK/figures
: >"$WORK/figures"
for ((round = 1; round <= ROUNDS; round++)); do
	for w in "${WORKERS[@]}"; do
		for qd in "${QDS[@]}"; do
			echo "# round $round, $w worker(s), queue depth $qd" >&2
			group "$w" "$qd" "$round"
		done
	done
done

# the table: medians over the rounds, and the rows for the goals
echo "# bench-service: $SECS s per case, $ROUNDS round(s) interleaved, polling $MODE," \
	"$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| op | size | QD | workers | rpma-load ops/s | p99 µs | rpma-bench ops/s | p99 µs | ratio | p99 ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
: >"$WORK/rows"
for kind in "${KINDS[@]}"; do
	for size in "${SIZES[@]}"; do
		for qd in "${QDS[@]}"; do
			for w in "${WORKERS[@]}"; do
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
					r[n] = $7 > 0 ? $5 / $7 : 0
					pr[n] = $8 > 0 ? $6 / $8 : 0
				}
				END {
					printf "| %s | %s | %s | %s | %.0f | %.1f | %.0f | %.1f | %.2f | %.2f |\n",
						k, s, q, w, median(fo, n), median(fp, n), median(bo, n),
						median(bp, n), median(r, n), median(pr, n)
				}' "$WORK/figures" | tee -a "$WORK/rows"
			done
		done
	done
done

# goal NAME KINDS QD COLUMN OP LIMIT -- one line: whether every row of the
# kinds (a regular expression) at queue depth QD has COLUMN (10: ratio, 11:
# p99 ratio) OP (">=" or "<=") LIMIT, with the worst row; nothing when no
# row was measured
goal() {
	awk -F'|' -v name="$1" -v kinds="^ ($2) $" -v qd="$3" -v col="$4" -v op="$5" \
		-v lim="$6" '
		$2 ~ kinds && $4 + 0 == qd {
			v = $col + 0; n++
			if (n == 1 || (op == ">=" ? v < worst : v > worst)) {
				worst = v; at = $2 $3 " B," $5 " worker(s)"
				gsub(/  +/, " ", at)
			}
		}
		END {
			if (!n) exit
			ok = op == ">=" ? worst >= lim : worst <= lim
			printf "goal %s: %s (worst %.2f:%s; %d cases)\n", name,
				ok ? "met" : "not met", worst, at, n
		}' "$WORK/rows"
}

echo
goal "writes+persists and reads at queue depth 1, >= 0.95x bare" "write_persist|read" 1 10 ">=" 0.95
goal "writes+persists and reads at queue depth 32, >= 1.0x bare" "write_persist|read" 32 10 ">=" 1.0
goal "calls at queue depth 1, >= 0.9x bare ping-pong" "call" 1 10 ">=" 0.9
goal "calls at queue depth 1, p99 <= 1.5x bare's" "call" 1 11 "<=" 1.5
exit 0
