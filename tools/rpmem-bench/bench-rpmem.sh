#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-rpmem.sh BENCH RPMEMD [ARGS...] -- start rpmemd over softrdma with a
# 64 MiB pool set and a 64 MiB framework region, both on /dev/shm (so that
# persisting measures the protocol, not a disk), and run rpmem-bench against
# it: rpmem_persist() beside the framework's write + persist, one table.
# ARGS go to rpmem-bench (-s SECONDS, -T THREADS, -z SIZES). Port 18970.
# With BENCH_RPMEM_CALLGRIND=DIR, rpmem-bench runs under callgrind in its
# instructions mode (BENCH_RPMEM_OPS operations a phase, 10000 by default)
# and the script prints the instructions per operation of each phase (every
# thread of the client process; the daemon is not counted), profiles in DIR.
set -euo pipefail
bench=$1
rpmemd=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
run="$root/tools/softrdma-run"
port=${BENCH_RPMEM_PORT:-18970}
# valgrind lacks pidfd_open, so a client under callgrind cannot take softrdma's
# same-host path: both sides then use its TCP transport
[ -n "${BENCH_RPMEM_CALLGRIND:-}" ] && export SOFTRDMA_TRANSPORT=tcp
dir=$(mktemp -d /dev/shm/rpmem-bench.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

cat >"$dir/daemon.yaml" <<EOC
workers: {count: 1, polling: adaptive}
listen: {address: 127.0.0.1, port: $port, max_connections: 16}
regions:
  - {name: bench, size: 64M, backing: {file: $dir/region, create: true}, persistence: gpspm}
rpmem: {poolset_dir: $dir, persistence: gpspm}
log: {level: warning}
EOC
cat >"$dir/client.yaml" <<EOC
workers: {count: 1, polling: adaptive}
targets: [{name: daemon, address: 127.0.0.1, port: $port, connections: 2}]
log: {level: warning}
EOC
# the pool takes its first 4096 bytes for its header: one page more than the 64 MiB it holds
printf 'PMEMPOOLSET\n65M %s/pool.part\n' "$dir" >"$dir/bench.set"

"$run" "$rpmemd" -c "$dir/daemon.yaml" --set log.level=notice 2>"$dir/daemon.log" &
pid=$!
for _ in $(seq 100); do
	grep -qF "listening on" "$dir/daemon.log" && break
	sleep 0.1
done
grep -qF "listening on" "$dir/daemon.log" || { cat "$dir/daemon.log"; exit 1; }
args=(-c "$dir/client.yaml" -t "127.0.0.1:$port" -p bench.set -r bench "$@")
if [ -z "${BENCH_RPMEM_CALLGRIND:-}" ]; then
	"$run" "$bench" "${args[@]}"
	exit
fi
cg=$BENCH_RPMEM_CALLGRIND
ops=${BENCH_RPMEM_OPS:-10000}
rm -rf "$cg" && mkdir -p "$cg"
"$run" valgrind --tool=callgrind --instr-atstart=no --separate-threads=no \
	--callgrind-out-file="$cg/cg.%p" "$bench" "${args[@]}" -I "$ops" >"$cg/out.txt" \
	2>"$cg/valgrind.log" || { cat "$cg/out.txt" "$cg/valgrind.log" >&2; exit 1; }
echo "instructions per operation (callgrind Ir / $ops ops, every thread of the client process;"
echo "librpmem: the self cost of librpmem.so's own code, the compatibility layer)"
printf '%-18s %10s %10s\n' phase total librpmem
for f in "$cg"/cg.*.*; do
	phase=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f" | head -n 1)
	[ -n "$phase" ] || continue
	total=$(awk '/^totals:/ { print $2 }' "$f")
	own=$(callgrind_annotate --auto=no --threshold=100 --inclusive=no "$f" 2>/dev/null |
		awk '$1 ~ /^[0-9,]+$/ && (/librpmem\.so/ || / librpmem\/src\//) { v = $1; gsub(",", "", v); s += v }
		END { print s + 0 }')
	awk -v p="$phase" -v t="$total" -v o="$own" -v n="$ops" 'BEGIN { printf("%-18s %10.0f %10.0f\n", p, t / n, o / n) }'
done | sort -t- -k2,2n -k1,1r
