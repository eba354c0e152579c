#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-load.sh LOAD SERVER -- the rpma-load tool over softrdma: a 2 s
# mixed run with --verify against a running rpma-server (exit 0, the table,
# the JSON object), --verify-file on the server's region file once it has
# stopped (passes; fails after one byte of a record is changed), bad
# workloads (an unknown key, a negative weight, no region: FILE:LINE:COLUMN
# and a non-zero exit) and no server at all (a clear error within
# timeouts.connect_ms, never a hang).
#   RPMA_LOAD_TEST_PORT   the TCP port used (default 17840, in 17800-17899)
set -u
TOOL=$1
server=$2
. "$(dirname "$0")/../tool-test.sh"
port=${RPMA_LOAD_TEST_PORT:-17840}

cat >"$tmp/c.yaml" <<YAML
workers: {count: 1, polling: event}
queues: {sq: 64, messages: {size: 4K, credits: 16}}
listen: {address: 127.0.0.1, port: $port, max_connections: 8}
targets: [{name: srv, address: 127.0.0.1, port: $port, connections: 2}]
regions:
  - name: data
    size: 1M
    backing: {file: $tmp/data.pmem, create: true}
    persistence: gpspm
timeouts: {connect_ms: 2000, operation_ms: 3000}
log: {level: error}
YAML
cat >"$tmp/w.yaml" <<YAML
region: data
mix:
  - {kind: write, weight: 2}
  - {kind: write_persist, weight: 3}
  - {kind: read, weight: 3}
  - {kind: atomic, weight: 1}
  - {kind: call, weight: 1}
sizes:
  write: 1K
  write_persist: {uniform: [512, 4K]}
  read: {uniform: [64, 8K]}
  call: 128
threads: 2
queue_depth: 4
duration: 2s
YAML

# bad inputs: each a FILE:LINE:COLUMN message and a non-zero exit
sed 's/^threads: 2/threads: 2\nthreadz: 1/' "$tmp/w.yaml" >"$tmp/unknown.yaml"
expect unknown-key nz "unknown.yaml:[0-9]+:1: threadz: unknown key \(did you mean threads" \
	-c "$tmp/c.yaml" -w "$tmp/unknown.yaml"
sed 's/kind: read, weight: 3/kind: read, weight: -3/' "$tmp/w.yaml" >"$tmp/neg.yaml"
expect negative-weight nz "neg.yaml:5:[0-9]+: mix\[2\]\.weight: \"-3\" is out of range" \
	-c "$tmp/c.yaml" -w "$tmp/neg.yaml"
grep -v '^region:' "$tmp/w.yaml" >"$tmp/noregion.yaml"
expect no-region nz "noregion.yaml:1:1: region: missing" -c "$tmp/c.yaml" -w "$tmp/noregion.yaml"
expect bad-set nz "--set rate=fast: rate: found \"fast\"" -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
	--set workload.rate=fast
expect usage 2 "a configuration and a workload are needed" -w "$tmp/w.yaml"

# no server: a clear error within the connect timeout (2 s), never a hang
start=$(date +%s%N)
expect no-server nz "not ready after 2000 ms.*is the server running at 127.0.0.1:$port" \
	-c "$tmp/c.yaml" -w "$tmp/w.yaml"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 6000 ] && ok || ko no-server "took $ms ms"

# a running server
server_start "$server" "$tmp/c.yaml"

expect run-verify 0 "verify: [1-9][0-9]* records read back, 0 bad" \
	-c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify --journal "$tmp/journal"
for k in write write_persist read atomic call; do
	grep -qE "^$k +[1-9]" "$tmp/out" && ok || ko "run-verify" "no row for $k"
done
expect json 0 '^\{"seconds":.*"verify":\{"checked":[1-9]' -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
	--verify --json --set workload.duration=500ms --set workload.rate=400
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || ko json "more than one line"
# a run of a count of operations, in one thread
sed 's/^duration: 2s/count: 400/' "$tmp/w.yaml" >"$tmp/count.yaml"
expect run-count 0 "^total +400 " -c "$tmp/c.yaml" -w "$tmp/count.yaml" --verify --journal "$tmp/journal" \
	--set workload.threads=1

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] && ok || ko server-stop "exit $rc after SIGTERM"

expect verify-file 0 "records good, 0 bad \(against the journal\)" \
	--verify-file "$tmp/data.pmem" --journal "$tmp/journal"
expect verify-file-scan 0 "records good, 0 bad" --verify-file "$tmp/data.pmem"

# one byte of the first journaled record's payload changed
read -r slot _ len _ < <(sed -n 4p "$tmp/journal")
size=$(sed -n 2p "$tmp/journal" | awk '{print $6}')
off=$((slot * size + len / 2))
byte=$(dd if="$tmp/data.pmem" bs=1 skip="$off" count=1 status=none | od -An -tu1)
printf "\\x$(printf %02x $((byte ^ 255)))" |
	dd of="$tmp/data.pmem" bs=1 seek="$off" conv=notrunc status=none
expect corrupt-journal 1 "offset $((slot * size)): checksum mismatch" \
	--verify-file "$tmp/data.pmem" --journal "$tmp/journal"
expect corrupt-scan 1 "offset $((slot * size)): checksum mismatch" --verify-file "$tmp/data.pmem"

summary rpma-load
