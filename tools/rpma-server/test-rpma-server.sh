#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-server.sh BIN [LOAD] -- the rpma-server tool over softrdma (LOAD,
# rpma-load, its client; default: beside BIN): --version (softrdma-run's too),
# usage errors, a configuration that does not validate, a region file it
# cannot map, a key file it may not read, no RDMA device (the hint to
# softrdma-run), a second server on a taken port (said to be in use; its
# region file, statistics and Prometheus file not left behind) and one on the
# region file another serves (refused, naming the file and the holder's pid;
# the file untouched), each a clear message and exit 1 with nothing left
# listening, and a running server: "listening" once, its signals SIGUSR1
# (counters), SIGHUP (a region added, a file that does not validate refused,
# the region removed again), SIGTERM (drain, exit 0); clients that disconnect
# (not counted as lost), a client refused for listen.max_connections and one
# whose target never answers (each told apart), the JSON statistics line
# (version, uptime, latency per handler and of persists, per-region counters),
# the Prometheus file read by python3-prometheus-client's parser, and the log
# at debug (one form, ISO 8601 times, the configuration and the regions); at
# info the connections come and gone are summed up, not one line each.
#   RPMA_SERVER_TEST_PORT   the TCP port used, and the next one (default: even,
#                           at random in 20000-20798)
set -u
TOOL=$1
LOAD=${2:-$(dirname "$1")/rpma-load}
. "$(dirname "$0")/../tool-test.sh"
port=${RPMA_SERVER_TEST_PORT:-$((20000 + RANDOM % 400 * 2))}

# wait_log TEXT -- wait (10 s at most) for TEXT in the running server's log
wait_log() {
	service_wait "$tmp/log" "$pid" "$1" 100
}

# server_bg ARGS... -- the server on ARGS in the background ($pid), its output in
# $tmp/out and its log in $tmp/log, emptied first: a previous server's lines there
# would answer wait_log before this one runs (service_start in service-start.sh)
server_bg() {
	: >"$tmp/log"
	"$run" "$TOOL" "$@" >"$tmp/out" 2>>"$tmp/log" &
	pid=$!
}

# config FILE EXTRA -- a server configuration on $port with region "data", plus EXTRA
config() {
	cat >"$1" <<YAML
workers: {count: 1, polling: event}
queues: {sq: 16, messages: {size: 1K, credits: 4}}
listen: {address: 127.0.0.1, port: $port, max_connections: 4}
regions:
  - name: data
    size: 1M
    backing: {file: $tmp/data.pmem, create: true}
$2
stats: {file: $tmp/stats}
log: {level: info}
YAML
}

extra_region="  - name: extra
    size: 64K
    backing: anonymous"

# usage and bad inputs
expect help 0 "signals:" --help
# --version: the name and the Makefile's VERSION (the git revision when built from git);
# softrdma-run answers --help and --version itself instead of running them
version=$(sed -n 's/^VERSION_\(MAJOR\|MINOR\|PATCH\) := //p' "$(dirname "$0")/../../Makefile" | paste -sd.)
expect version 0 "^rpma-server $version( \(git [^)]+\))?$" --version
# (the same number; the git revision is the tree's now, the tool's when it was built)
"$run" --version | grep -qE "^softrdma-run $version( \(git [^)]+\))?$" && ok ||
	ko softrdma-run-version "softrdma-run --version: $("$run" --version 2>&1)"
"$run" --help >"$tmp/out" 2>&1 && grep -q "^softrdma-run CMD ARGS" "$tmp/out" && ok ||
	ko softrdma-run-help "softrdma-run --help did not print its help"
expect no-config 2 "a configuration file is needed" 
expect bad-option 2 "unknown option: --frob" --frob
expect missing-file 1 "nope.yaml" -c "$tmp/nope.yaml"
printf 'workers: {count: 0}\nlisten: {address: 127.0.0.1}\n' >"$tmp/bad.yaml"
expect invalid 1 "bad.yaml:1:" -c "$tmp/bad.yaml"
config "$tmp/s.yaml" ""
grep -v '^listen:' "$tmp/s.yaml" >"$tmp/nolisten.yaml"
expect no-listen 1 "no listen section" -c "$tmp/nolisten.yaml"
expect region-missing 1 "missing.pmem" -c "$tmp/s.yaml" \
	--set "regions[0].backing={file: $tmp/missing.pmem, create: false}"
[ ! -e "$tmp/missing.pmem" ] && ok || ko region-missing "the file was created"
printf '%064x\n' 7 >"$tmp/key" && chmod 644 "$tmp/key"
expect key-open 1 "key" -c "$tmp/s.yaml" --set "auth.key_file=$tmp/key"
# without softrdma (and no RDMA device here): the message names the ways to get one
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	timeout 30 "$TOOL" -c "$tmp/s.yaml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -qF "run under tools/softrdma-run" "$tmp/err" && ok ||
		ko no-device "exit $rc, or no hint to softrdma-run"
fi

# a running server
server_bg -c "$tmp/s.yaml"
if wait_log "listening on 127.0.0.1:$port"; then ok; else ko start "no listening line"; fi
[ "$(grep -c "listening" "$tmp/log")" -eq 1 ] && ok || ko start "\"listening\" is said more than once"
grep -qE "listening on 127.0.0.1:$port: 1 region, 1 worker" "$tmp/log" && ok ||
	ko start "no \"1 region, 1 worker\" in the listening line"
[ -s "$tmp/data.pmem" ] && [ "$(stat -c %s "$tmp/data.pmem")" -eq 1048576 ] && ok ||
	ko start "the region file is not 1 MiB"

# a second server on the same port: a clear error, no region file left, the first still serves
expect port-taken 1 "cannot start the server on 127.0.0.1:$port" -c "$tmp/s.yaml" \
	--set "regions[0].backing={file: $tmp/other.pmem, create: true}"
grep -qF "the port is in use (another server?): choose another with listen.port" "$tmp/err" &&
	ok || ko port-taken "the message does not say the port is in use"
kill -0 "$pid" 2>/dev/null && ok || ko port-taken "the first server died"
[ ! -e "$tmp/other.pmem" ] && ok || ko port-taken "the region file it created was left behind"
# a start that failed served nothing: no statistics line, on stderr or in stats.file
expect port-taken-stats 1 "cannot start the server" -c "$tmp/s.yaml" \
	--set "regions[0].backing={file: $tmp/other.pmem, create: true}" \
	--set "stats={file: $tmp/other.stats, prometheus_file: $tmp/other.prom, interval_ms: 100}"
! grep -q '"what":"rpma-server"' "$tmp/err" "$tmp/out" && [ ! -e "$tmp/other.stats" ] &&
	[ -z "$(ls "$tmp" | grep '^other\.')" ] && ok ||
	ko port-taken-stats "a failed start wrote statistics or left a file: $(ls "$tmp" | grep '^other\.')"

# a second server on the first one's region file (another port, a bigger
# size): refused, naming the file and the first server's pid; the file
# keeps its size and bytes, and the first server goes on (the checks below)
printf 'first server' | dd of="$tmp/data.pmem" bs=1 seek=4096 conv=notrunc status=none
expect region-locked 1 "data.pmem is in use: locked by pid $pid" -c "$tmp/s.yaml" \
	--set "listen.port=$((port + 1))" --set "regions[0].size=2M"
[ "$(stat -c %s "$tmp/data.pmem")" -eq 1048576 ] && ok || ko region-locked "the file was resized"
[ "$(dd if="$tmp/data.pmem" bs=1 skip=4096 count=12 status=none)" = "first server" ] && ok ||
	ko region-locked "the file's bytes changed"
kill -0 "$pid" 2>/dev/null && ok || ko region-locked "the first server died"

kill -USR1 "$pid"
for i in $(seq 50); do grep -q '"what":"rpma-server"' "$tmp/stats" 2>/dev/null && break; sleep 0.1; done
grep -q '"regions":1' "$tmp/stats" 2>/dev/null && ok || ko usr1 "no counters line with 1 region"

config "$tmp/s.yaml" "$extra_region"
kill -HUP "$pid"
wait_log "region extra added" && wait_log "reloaded" && ok || ko reload-add "no region added"

echo "workers: {count: -1}" >>"$tmp/s.yaml"
kill -HUP "$pid"
wait_log "reload refused: nothing changed" && ok || ko reload-invalid "not refused"

config "$tmp/s.yaml" ""
kill -HUP "$pid"
wait_log "region extra removed" && ok || ko reload-remove "no region removed"

service_stop "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] && ok || ko term "exit $rc after SIGTERM, expected 0"
grep -qF "draining" "$tmp/log" && grep -qF "stopped" "$tmp/log" && ok || ko term "no drain lines"

# the lock went with the server: the file is served again (and kept, not created)
server_bg -c "$tmp/s.yaml"
wait_log "listening on 127.0.0.1:$port" && ok || ko restart "the file is still locked"
service_stop "$pid"
pid=
[ "$(dd if="$tmp/data.pmem" bs=1 skip=4096 count=12 status=none)" = "first server" ] && ok ||
	ko restart "the file's bytes changed"

# clients that run and disconnect are not lost connections
cat >"$tmp/c.yaml" <<YAML
workers: {count: 1, polling: event}
queues: {sq: 16, messages: {size: 1K, credits: 4}}
targets:
  - {name: t, address: 127.0.0.1, port: $port, connections: 2}
YAML
cat >"$tmp/w.yaml" <<YAML
region: data
mix:
  - {kind: write_persist, weight: 4}
  - {kind: call, weight: 1}
sizes: {write_persist: 4K, call: 64}
count: 200
YAML
server_bg -c "$tmp/s.yaml"
wait_log "listening on 127.0.0.1:$port" || ko load "the server did not start"
for i in 1 2 3; do
	timeout 30 "$run" "$LOAD" -c "$tmp/c.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" ||
		ko load "rpma-load run $i failed"
done
# by_client -- the clients the log's summary lines say disconnected by themselves
by_client() {
	sed -nE 's/.*server: [0-9]+ clients? disconnected in [0-9.]+ s \(([0-9]+) by the client\)$/\1/p' \
		"$tmp/log" | awk '{ n += $1 } END { print n + 0 }'
}
for i in $(seq 100); do
	[ "$(by_client)" -eq 6 ] && break
	sleep 0.1
done
[ "$(by_client)" -eq 6 ] && ok || ko clean-disconnects "the log's summaries count $(by_client) of 6"
! grep -qF "closed: disconnected by the client" "$tmp/log" && ok ||
	ko clean-disconnects "a line per connection at log.level info"
: >"$tmp/stats"
kill -USR1 "$pid"
for i in $(seq 50); do grep -q '"what":"rpma-server"' "$tmp/stats" 2>/dev/null && break; sleep 0.1; done
if python3 - "$tmp/stats" <<'PY'; then ok; else ko clean-disconnects "see above"; fi
import json, sys
s = json.loads(open(sys.argv[1]).readline())
assert s["accepted"] == 6, "accepted %d, expected 6" % s["accepted"]
assert s["lost"] == 0, "lost %d after 6 clean disconnects" % s["lost"]
assert s["connections"] == 0, "connections %d" % s["connections"]
PY

# a client asking 6 connections of a server taking 4 (listen.max_connections): the two
# refused are told so once each, not "lost" at every retry, and the pool's summary says 4 of 6
sed "s/connections: 2}/connections: 6}/" "$tmp/c.yaml" >"$tmp/c6.yaml"
timeout 30 "$run" "$LOAD" -c "$tmp/c6.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" ||
	ko max-connections "rpma-load failed with 4 of 6 connections"
[ "$(grep -c "connecting failed: refused by the target: it is full (its listen.max_connections)" \
	"$tmp/err")" -eq 2 ] && ok || ko max-connections "not two refusals naming max_connections"
! grep -qi "lost" "$tmp/err" && ok || ko max-connections "a refusal reported as lost"
grep -qF "pool: target t: 4 of 6 connections up: refused by the target" "$tmp/err" && ok ||
	ko max-connections "the pool's summary does not say 4 of 6"
grep -qF "a connection request refused: listen.max_connections (4) reached" "$tmp/log" && ok ||
	ko max-connections "the server does not say why it refused"
service_stop "$pid"
pid=

# a target that takes softrdma's CM connection and never answers: timed out, not refused or lost
silent=$((port + 1))
python3 -c "
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $silent))
s.listen(16)
s.settimeout(0.2)
held, end = [], time.time() + 10
while time.time() < end:
    try:
        held.append(s.accept())
    except OSError:
        pass
" &
silent_pid=$!
sleep 0.3
sed "s/port: $port, connections: 2}/port: $silent, connections: 1}/" "$tmp/c.yaml" >"$tmp/ct.yaml"
echo "timeouts: {connect_ms: 1000}" >>"$tmp/ct.yaml"
timeout 30 "$run" "$LOAD" -c "$tmp/ct.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err"
kill "$silent_pid" 2>/dev/null
wait "$silent_pid" 2>/dev/null
grep -qF "connecting failed: timed out: no answer within timeouts.connect_ms" "$tmp/err" &&
	! grep -qiE "refused|lost" "$tmp/err" && ok || ko timed-out "not told apart as timed out"

# the statistics line: version, uptime, each handler's and the persists' latency, each region's
# counters; and the same in stats.prometheus_file, read by the Prometheus client's own parser
# (Debian's python3-prometheus-client, so Debian's python3), the counters growing between two
# intervals, no temporary file left beside it
pypro=/usr/bin/python3
[ -x "$pypro" ] || pypro=python3
: >"$tmp/stats"
server_bg -c "$tmp/s.yaml" --set "stats.prometheus_file=$tmp/metrics.prom" \
	--set stats.interval_ms=200
wait_log "listening on 127.0.0.1:$port" || ko prometheus "the server did not start"
timeout 30 "$run" "$LOAD" -c "$tmp/c.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" ||
	ko prometheus "rpma-load failed"
sleep 0.5
cp "$tmp/metrics.prom" "$tmp/first.prom"
timeout 30 "$run" "$LOAD" -c "$tmp/c.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" ||
	ko prometheus "rpma-load failed"
sleep 0.5
if python3 - "$tmp/stats" "$version" <<'PY'; then ok; else ko stats-json "see above"; fi
import json, sys
s = json.loads(open(sys.argv[1]).readlines()[-1])
assert s["version"].split()[0] == sys.argv[2], "version %r" % s["version"]
assert s["uptime_ms"] > 0, "uptime_ms %r" % s["uptime_ms"]
for name in ("persist", "handler_1"):
    h = s["latency_ns"][name]
    assert h["count"] > 0 and 0 < h["min"] <= h["p50"] <= h["p99"] <= h["max"], (name, h)
assert s["latency_ns"]["persist"]["count"] == s["persists"], s["latency_ns"]
r = s["region_stats"]["data"]
assert r["persists"] == s["persists"] and r["persist_bytes"] == s["persist_bytes"], r
# a GPSPM region on an ordinary file: msync at page granularity (doc/DURABILITY.md)
assert (r["persistence"], r["mechanism"], r["granularity"]) == ("gpspm", "msync", "page"), r
PY
if "$pypro" - "$tmp/first.prom" "$tmp/metrics.prom" <<'PY'; then ok; else ko prometheus "see above"; fi
import sys
from prometheus_client.parser import text_string_to_metric_families as parse

def load(path):
    fams = {f.name: f for f in parse(open(path).read())}
    vals = {}
    for f in fams.values():
        for s in f.samples:
            vals[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return fams, vals

fams, first = load(sys.argv[1])
_, second = load(sys.argv[2])
# the parser names a counter family without its _total
want = {"rpmaf_server_connections_accepted": "counter", "rpmaf_server_persists": "counter",
        "rpmaf_server_connections_lost": "counter", "rpmaf_region_persists": "counter",
        "rpmaf_worker_polls": "counter", "rpmaf_server_connections": "gauge",
        "rpmaf_server_uptime_seconds": "gauge", "rpmaf_server_info": "gauge",
        "rpmaf_server_persist_duration_seconds": "histogram",
        "rpmaf_server_handler_duration_seconds": "histogram"}
for name, typ in want.items():
    assert name in fams, "no family %s in %s" % (name, sorted(fams))
    assert fams[name].type == typ, "%s is a %s" % (name, fams[name].type)
for key in (("rpmaf_server_persists_total", ()),
            ("rpmaf_server_connections_accepted_total", ()),
            ("rpmaf_region_persists_total", (("region", "data"),)),
            ("rpmaf_server_handler_duration_seconds_count", (("handler", "1"),)),
            ("rpmaf_server_persist_duration_seconds_count", ())):
    assert second[key] > first[key] > 0, "%s: %s then %s" % (key, first[key], second[key])
assert second[("rpmaf_server_connections_lost_total", ())] == 0
info = (("granularity", "page"), ("mechanism", "msync"), ("persistence", "gpspm"),
        ("region", "data"))
assert fams["rpmaf_region_info"].type == "gauge", fams["rpmaf_region_info"].type
assert second[("rpmaf_region_info", info)] == 1, [k for k in second if k[0] == "rpmaf_region_info"]
inf = second[("rpmaf_server_persist_duration_seconds_bucket", (("le", "+Inf"),))]
assert inf == second[("rpmaf_server_persist_duration_seconds_count", ())], inf
PY
ls "$tmp" | grep -q '^metrics\.prom\.' && ko prometheus "a temporary file was left" || ok
service_stop "$pid"
pid=
# log.level debug: every line, the library's too, in one form with an ISO 8601 time; the
# resolved configuration and each region (name, path, size, how it is made durable)
server_bg -c "$tmp/s.yaml" --set log.level=debug
wait_log "listening on 127.0.0.1:$port" || ko debug "the server did not start"
service_stop "$pid"
pid=
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}'
bad=$(grep -cvE "^$iso rpma-server: (error|warning|notice|info|debug): " "$tmp/log")
[ "$bad" -eq 0 ] && ok || ko log-form "$bad line(s) not in the one form"
grep -qE "^$iso rpma-server: notice: server: stopped$" "$tmp/log" && ok ||
	ko log-form "the library's lines do not come through the tool's log"
grep -qE "debug:   listen:$" "$tmp/log" && grep -qE "debug:     port: $port$" "$tmp/log" &&
	grep -qE "debug:     heartbeat_misses: 3$" "$tmp/log" && ok ||
	ko debug "the resolved configuration is not logged"
grep -qE "notice: server: region data: $tmp/data.pmem, 1 MiB, GPSPM: a persist is an msync\(\) to the file's device \(page granularity: not persistent memory\)$" \
	"$tmp/log" && ok || ko debug "the region is not described"

# a Prometheus file without an interval is refused at start
expect prometheus-interval 1 "stats.prometheus_file: needs stats.interval_ms above 0" \
	-c "$tmp/s.yaml" --set "stats.prometheus_file=$tmp/x.prom"

summary rpma-server
