#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-rpmem.sh BENCH RPMEMD [ARGS...] -- start rpmemd over softrdma with a
# 64 MiB pool set and a 64 MiB framework region, both on /dev/shm (so that
# persisting measures the protocol, not a disk), and run rpmem-bench against
# it: rpmem_persist() beside the framework's write + persist, one table.
# ARGS go to rpmem-bench (-s SECONDS, -T THREADS, -z SIZES). Port 18970.
set -euo pipefail
bench=$1
rpmemd=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
run="$root/tools/softrdma-run"
port=${BENCH_RPMEM_PORT:-18970}
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
"$run" "$bench" -c "$dir/client.yaml" -t "127.0.0.1:$port" -p bench.set -r bench "$@"
