#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fuzz-seeds.sh LOAD SERVER DIR -- the seeds of fuzz/fuzz_vfile.c from a
# real run: rpma-load --verify --journal against rpma-server over softrdma
# on a small region, then the journal and the server's region file joined
# as the harness reads them (a little-endian u32 length of the journal,
# the journal, the region file): DIR/real-journal with both, DIR/real-scan
# with the region file alone (length 0xffffffff).
#   RPMA_LOAD_SEED_PORT   the TCP port used (default: random in 17900-17999)
set -eu
load=$1
server=$2
dir=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tools/common/service-start.sh"
port=${RPMA_LOAD_SEED_PORT:-$((17900 + RANDOM % 100))}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

cat >"$tmp/c.yaml" <<YAML
workers: {count: 1, polling: event}
queues: {sq: 16, messages: {size: 4K, credits: 8}}
listen: {address: 127.0.0.1, port: $port, max_connections: 2}
targets: [{name: srv, address: 127.0.0.1, port: $port, connections: 1}]
regions:
  - name: data
    size: 8K
    backing: {file: $tmp/data.pmem, create: true}
    persistence: gpspm
timeouts: {connect_ms: 2000, operation_ms: 3000}
log: {level: error}
YAML
cat >"$tmp/w.yaml" <<YAML
region: data
mix:
  - {kind: write_persist, weight: 1}
  - {kind: atomic, weight: 1}
sizes:
  write_persist: {uniform: [48, 192]}
threads: 1
queue_depth: 2
count: 40
YAML

# le32 N -- N as 4 bytes, little-endian
le32() {
	printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))"
	printf "\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"
}

"$root/tools/softrdma-run" "$server" -c "$tmp/c.yaml" --set log.level=notice >/dev/null \
	2>"$tmp/srv.log" &
pid=$!
service_wait "$tmp/srv.log" "$pid" "listening on" 100 || {
	cat "$tmp/srv.log" >&2
	exit 1
}
"$root/tools/softrdma-run" "$load" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify \
	--journal "$tmp/journal" >/dev/null
kill -TERM "$pid"
wait "$pid"
pid=
"$load" --verify-file "$tmp/data.pmem" --journal "$tmp/journal"
mkdir -p "$dir"
{ le32 "$(stat -c %s "$tmp/journal")"; cat "$tmp/journal" "$tmp/data.pmem"; } >"$dir/real-journal"
{ le32 4294967295; cat "$tmp/data.pmem"; } >"$dir/real-scan"
echo "$dir: real-journal, real-scan"
