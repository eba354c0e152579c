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
service_workdir
trap service_cleanup EXIT

service_config "$WORK/c.yaml" "$port" "$WORK/data.pmem" sq=16 credits=8 max=2 size=8K \
	connect_ms=2000 operation_ms=3000
cat >"$WORK/w.yaml" <<YAML
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

service_start "$WORK/srv.log" "listening on" 100 "$root/tools/softrdma-run" "$server" \
	-c "$WORK/c.yaml" --set log.level=notice || {
	cat "$WORK/srv.log" >&2
	exit 1
}
"$root/tools/softrdma-run" "$load" -c "$WORK/c.yaml" -w "$WORK/w.yaml" --verify \
	--journal "$WORK/journal" >/dev/null
service_stop "$SERVICE_PID"
SERVICE_PID=
"$load" --verify-file "$WORK/data.pmem" --journal "$WORK/journal"
mkdir -p "$dir"
{ le32 "$(stat -c %s "$WORK/journal")"; cat "$WORK/journal" "$WORK/data.pmem"; } >"$dir/real-journal"
{ le32 4294967295; cat "$WORK/data.pmem"; } >"$dir/real-scan"
echo "$dir: real-journal, real-scan"
