#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-server-reload.sh BIN LOAD [N] -- a region resized by SIGHUP while
# rpma-load drives it over N connections (default 100): rpma-server (BIN)
# exports region "data" (4 MiB, a file it creates); rpma-load (LOAD) writes
# with persists and reads from 4 threads, 16 operations in flight each, with
# --verify and a journal. While it runs the region grows to 8 MiB, then
# shrinks to 6 MiB (what the load uses stays inside). Checked:
#   - every operation of the load succeeded (0 errors), every record read
#     back was right, and the region file, once the server stopped, holds
#     every record the journal says was written last (--verify-file);
#   - the server announced each change as a change ("region data changed"),
#     never removed and added it, and the file followed (6 MiB at the end);
#   - the N clients stopping left one summary line in the server's log
#     ("N clients disconnected ... (N by the client)"), no warning, and the
#     statistics count no connection lost.
#   RPMA_SERVER_TEST_PORT   the TCP port used (default: at random in 20800-21598)
set -u
TOOL=$1
LOAD=$2
N=${3:-100}
. "$(dirname "$0")/../tool-test.sh"
port=${RPMA_SERVER_TEST_PORT:-$((20800 + RANDOM % 400 * 2))}

# wait_in FILE TEXT SECONDS -- wait for TEXT in FILE while the server runs
wait_in() {
	service_wait "$1" "$pid" "$2" $(($3 * 10))
}

# server_yaml SIZE -- the server's configuration with region data of SIZE
server_yaml() {
	cat >"$tmp/s.yaml" <<YAML
workers: {count: 2, polling: event}
queues: {sq: 16, messages: {size: 1K, credits: 4}}
listen: {address: 127.0.0.1, port: $port, max_connections: $((N + 8))}
regions:
  - name: data
    size: $1
    backing: {file: $tmp/data.pmem, create: true}
stats: {file: $tmp/stats}
log: {level: info}
YAML
}

server_yaml 4M
cat >"$tmp/c.yaml" <<YAML
workers: {count: 2, polling: event}
queues: {sq: 16, messages: {size: 1K, credits: 4}}
targets:
  - {name: t, address: 127.0.0.1, port: $port, connections: $N}
timeouts: {connect_ms: 30000, operation_ms: 10000}
YAML
cat >"$tmp/w.yaml" <<YAML
region: data
mix:
  - {kind: write_persist, weight: 3}
  - {kind: read, weight: 1}
sizes: {write_persist: 4K, read: 4K}
threads: 4
queue_depth: 16
duration: 3s
YAML

"$run" "$TOOL" -c "$tmp/s.yaml" >"$tmp/out" 2>"$tmp/log" &
pid=$!
wait_in "$tmp/log" "listening on 127.0.0.1:$port" 10 && ok || ko start "the server did not start"
"$run" "$LOAD" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify --journal "$tmp/journal" \
	--json="$tmp/load.json" >"$tmp/load.out" 2>"$tmp/load.err" &
load=$!
# the load runs once its first progress line is out (every connection up)
wait_in "$tmp/load.err" "last " 120 || ko load "rpma-load did not start its run"
server_yaml 8M
kill -HUP "$pid"
wait_in "$tmp/log" "reloaded" 30 && ok || ko grow "the grow was not applied"
server_yaml 6M
kill -HUP "$pid"
for _ in $(seq 300); do [ "$(grep -c "reloaded" "$tmp/log")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c "reloaded" "$tmp/log")" -eq 2 ] && ok || ko shrink "the shrink was not applied"
timeout 120 tail --pid="$load" -f /dev/null
wait "$load"
rc=$?
[ "$rc" -eq 0 ] && ok || ko load "rpma-load exit $rc: $(grep -v '^\[' "$tmp/load.err" | tail -3)"
if python3 - "$tmp/load.json" <<'PY'; then ok; else ko load-figures "see above"; fi
import json, sys
j = json.load(open(sys.argv[1]))
t = j["total"]
print("resize under load: %d operations, %d failed; %d records read back, %d bad"
      % (t["count"], t["errors"], j["verify"]["checked"], j["verify"]["bad"]))
assert t["count"] > 0, "no operation ran"
assert t["errors"] == 0, "%d operations failed: %s" % (t["errors"], j.get("first_error"))
assert j["verify"]["bad"] == 0 and j["verify"]["not_checked"] == 0, j["verify"]
assert j["verify"]["checked"] > 0, j["verify"]
PY
[ "$(grep -c "reload: region data changed" "$tmp/log")" -eq 2 ] && ok ||
	ko changed "not two changes of region data in the log"
! grep -qE "region data (removed|added|replaced)" "$tmp/log" && ok ||
	ko changed "the region was removed and added again"
[ "$(stat -c %s "$tmp/data.pmem")" -eq $((6 << 20)) ] && ok ||
	ko shrink "the file is $(stat -c %s "$tmp/data.pmem") bytes, not 6 MiB"

# the N clients are gone: one summary line, no warning, none lost
wait_in "$tmp/log" "clients disconnected" 10
[ "$(grep -c "clients\? disconnected" "$tmp/log")" -eq 1 ] && ok ||
	ko disconnects "not one summary line: $(grep -c "disconnected" "$tmp/log") lines"
grep -qE "server: $N clients disconnected in [0-9.]+ s \($N by the client\)$" "$tmp/log" && ok ||
	ko disconnects "no \"$N clients disconnected\" line: $(grep "disconnected" "$tmp/log" | head -3)"
[ "$(grep -c "warning" "$tmp/log")" -eq 0 ] && ok ||
	ko warnings "$(grep -c "warning" "$tmp/log") warnings: $(grep warning "$tmp/log" | head -3)"
: >"$tmp/stats"
kill -USR1 "$pid"
for _ in $(seq 50); do grep -q '"what":"rpma-server"' "$tmp/stats" 2>/dev/null && break; sleep 0.1; done
if python3 - "$tmp/stats" "$N" <<'PY'; then ok; else ko lost "see above"; fi
import json, sys
s = json.loads(open(sys.argv[1]).readline())
n = int(sys.argv[2])
assert s["accepted"] == n, "accepted %d, expected %d" % (s["accepted"], n)
assert s["lost"] == 0, "lost %d after %d clients stopped" % (s["lost"], n)
assert s["connections"] == 0, "connections %d" % s["connections"]
PY

service_stop "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] && ok || ko term "exit $rc after SIGTERM"
timeout 60 "$LOAD" --verify-file "$tmp/data.pmem" --journal "$tmp/journal" >"$tmp/out" \
	2>"$tmp/err" && ok || ko verify-file "the region file does not hold what was written"

summary "rpma-server reload under load ($N connections)"
