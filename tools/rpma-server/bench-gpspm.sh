#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-gpspm.sh -- GPSPM persists on an ordinary file (page granularity: a
# persist is an msync): rpma-load write_persist against rpma-server with
# one GPSPM region on a file on a disk file system, at queue depth 1 and
# 32, 64 B and 4 KiB, the four cases interleaved in each round; prints each
# case's ops/s (the median of the rounds) and the ratio QD32/QD1. With
# several -b, each build runs its own server (its own file and port) and
# every case runs on each build in turn, so that a before and an after are
# measured side by side in one run.
#
# usage: bench-gpspm.sh [-t SECONDS] [-r ROUNDS] [-p PORT] [-d DIR] [-b DIR]...
#   -t SECONDS  measured time of each case (2)
#   -r ROUNDS   rounds (3)
#   -p PORT     the first TCP port, one per build (random in 20000-29990)
#   -d DIR      where the region file goes: a disk file system, not tmpfs (/var/tmp
#               when /tmp is tmpfs, else /tmp)
#   -b DIR      the top of a build tree (build); repeat to compare builds
#
# One worker on each side, one connection, one application thread; polling
# event. The region is 64 MiB, written at random 64-byte aligned offsets.

set -u

. "$(dirname "$0")/../common/service-script.sh"
SECS=2
ROUNDS=3
PORT=$((20000 + RANDOM % 999 * 10))
DIR=
BUILDS=()

options_parse "t:SECS r:ROUNDS p:PORT d:DIR b:BUILDS[]" "$@"
for i in "${!BUILDS[@]}"; do BUILDS[i]=$(cd "${BUILDS[i]}" && pwd) || exit 2; done
[ "${#BUILDS[@]}" -gt 0 ] || BUILDS=("$ROOT/build")
if [ -z "$DIR" ]; then
	DIR=/tmp
	[ "$(stat -f -c %T /tmp)" = tmpfs ] && DIR=/var/tmp
fi
FSTYPE=$(stat -f -c %T "$DIR")
case $FSTYPE in
tmpfs | ramfs) service_fail "$DIR is on $FSTYPE: an msync there makes nothing durable" ;;
esac

for b in "${BUILDS[@]}"; do service_need "$b/tools/rpma-server" "$b/tools/rpma-load"; done

service_workdir "$DIR" || exit 1
SRV_PIDS=()

# cleanup -- stop the servers, remove the work directory
cleanup() {
	for p in "${SRV_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# server_start I -- build I's server, answering once a persist went through
server_start() {
	local b=${BUILDS[$1]} pid
	service_config "$WORK/c$1.yaml" $((PORT + $1)) "$WORK/region$1.pmem" sq=128 credits=64 \
		max=4 size=64M connect_ms=4000 operation_ms=10000
	"$RUN" "$b/tools/rpma-server" -c "$WORK/c$1.yaml" >"$WORK/srv$1.out" 2>"$WORK/srv$1.log" &
	pid=$!
	SRV_PIDS+=("$pid")
	printf 'region: data\nmix: [{kind: write_persist, weight: 1}]\ncount: 1\n' >"$WORK/ping.yaml"
	for _ in $(seq 100); do
		"$RUN" "$b/tools/rpma-load" -c "$WORK/c$1.yaml" -w "$WORK/ping.yaml" --csv \
			>/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench-gpspm: the server of $b did not start" >&2
	cat "$WORK/srv$1.log" >&2
	exit 1
}

for i in "${!BUILDS[@]}"; do server_start "$i"; done

# one_case I SIZE QD -- one measured run on build I; prints its ops/s
one_case() {
	cat >"$WORK/w.yaml" <<YAML
region: data
mix: [{kind: write_persist, weight: 1}]
sizes: {write_persist: $2}
threads: 1
queue_depth: $3
duration: ${SECS}s
warmup: 0.5s
seed: 1
YAML
	"$RUN" "${BUILDS[$1]}/tools/rpma-load" -c "$WORK/c$1.yaml" -w "$WORK/w.yaml" --csv \
		2>"$WORK/load.err" |
		awk -F, '$2 == "write_persist" { printf "%d", $5 }'
}

# median -- the median of the numbers on standard input
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

CASES="64:1 64:32 4096:1 4096:32"
for r in $(seq "$ROUNDS"); do
	for c in $CASES; do
		for i in "${!BUILDS[@]}"; do
			ops=$(one_case "$i" "${c%%:*}" "${c##*:}")
			[ -n "$ops" ] || {
				echo "bench-gpspm: ${BUILDS[$i]}: ${c%%:*} B at queue depth ${c##*:}" \
					"failed:" >&2
				tail -5 "$WORK/load.err" >&2
				exit 1
			}
			echo "$ops" >>"$WORK/res.$i.${c%%:*}.${c##*:}"
		done
	done
done

echo "bench-gpspm: write_persist, GPSPM region on $FSTYPE ($DIR), median of $ROUNDS" \
	"round(s) of ${SECS} s"
printf "%-28s %-6s %12s %12s %10s\n" build size "qd1 ops/s" "qd32 ops/s" "qd32/qd1"
for i in "${!BUILDS[@]}"; do
	for s in 64 4096; do
		q1=$(median <"$WORK/res.$i.$s.1")
		q32=$(median <"$WORK/res.$i.$s.32")
		printf "%-28s %-6s %12s %12s %10s\n" "$(basename "$(dirname "${BUILDS[$i]}")")/$(basename "${BUILDS[$i]}")" "$s" "$q1" "$q32" \
			"$(awk -v a="$q32" -v b="$q1" 'BEGIN { printf "%.1f", b ? a / b : 0 }')"
	done
done
