#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-load.sh LOAD SERVER -- the rpma-load tool over softrdma: a 2 s
# mixed run with --verify against a running rpma-server (exit 0, the table,
# the JSON object), --verify-file on the server's region file once it has
# stopped (passes; fails after one byte of a record is changed), bad
# workloads (an unknown key, a negative weight, no region: FILE:LINE:COLUMN
# and a non-zero exit) and no server at all (a clear error within
# timeouts.connect_ms, never a hang). What perftest and fio users expect:
# -V/--version, usage errors exit 2, units stated, a command line count or
# duration replacing the file's, SIGINT while connecting to a target that
# never answers and SIGTERM while running (exit 130 within a bound, marked
# interrupted), JSON metadata and min/mean/stdev (parsed by python3), CSV
# and histogram files, a warm-up, a size sweep, progress lines per
# interval, the timeline and the accounting of every operation, and a
# server killed during a run (the run stops, records not read back are
# "not checked", never bad; with --keep-running it runs to its end).
#   RPMA_LOAD_TEST_PORT   the TCP port of the server (default: at random in
#                         17800-17849); a silent listener takes port + 50
set -u
TOOL=$1
server=$2
. "$(dirname "$0")/../tool-test.sh"
. "$(dirname "$0")/test-workload.sh"
port=${RPMA_LOAD_TEST_PORT:-$((17800 + RANDOM % 50))}
silent_port=$((port + 50))

service_config "$tmp/c.yaml" "$port" "$tmp/data.pmem" conns=2 connect_ms=2000 operation_ms=3000
workload_every_kind "$tmp/w.yaml" 2 4

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

# the version, as perftest's -V: the very text rpma-server prints, the Makefile's VERSION and
# the git revision when built from git (one version for every tool); every usage error exits 2
version=$("$server" --version) && version=${version#rpma-server } && [ -n "$version" ] ||
	version="(rpma-server --version failed)"
expect version 0 . -V
[ "$(cat "$tmp/out")" = "rpma-load $version" ] && ok ||
	ko version "-V: not \"rpma-load $version\" as rpma-server has it"
expect version-long 0 . --version
[ "$(cat "$tmp/out")" = "rpma-load $version" ] && ok ||
	ko version-long "--version: not \"rpma-load $version\" as rpma-server has it"
expect usage-set 2 "--set takes KEY=VALUE: foo" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set foo
expect usage-set-wl 2 "--set takes KEY=VALUE" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.=1
expect usage-warmup 2 "--warmup takes seconds" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --warmup soon
expect usage-unknown 2 "unknown option" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --bogus
expect usage-two-stdout 2 "both to the standard output" -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
	--json --csv
expect usage-timeline-sweep 2 "--timeline holds one run: not with -a" -c "$tmp/c.yaml" \
	-w "$tmp/w.yaml" -a --timeline "$tmp/tl.csv"
sed 's/^duration: 2s/count: 400/' "$tmp/w.yaml" >"$tmp/count.yaml"
expect warmup-count nz "a warm-up with count" -c "$tmp/c.yaml" -w "$tmp/count.yaml" --warmup 1
# the units, said in --help
expect help-units 0 "MB = 10\^6 bytes" --help
grep -q "K, M, G = 1024" "$tmp/out" && ok || ko help-units "no K = 1024 in --help"
grep -q "kind,size,upper_us,count,cumulative" "$tmp/out" && ok ||
	ko help-histogram "no histogram format in --help"

# SIGINT while connecting to a target that accepts TCP and never answers:
# exit 130 within a bound (the goal is 100 ms; 1 s of slack for a loaded
# machine), where the connect timeout is 15 s
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held = []
while True:
    held.append(s.accept()[0])
' "$silent_port" &
silent=$!
sed -e "s/port: $port, connections/port: $silent_port, connections/" \
	-e 's/connect_ms: 2000/connect_ms: 15000/' "$tmp/c.yaml" >"$tmp/silent.yaml"
sleep 0.5
# (a background job of a script inherits SIGINT ignored, as under make run;
# a watchdog, not timeout(1), which would reset it)
for sig in INT TERM; do
	"$run" "$TOOL" -c "$tmp/silent.yaml" -w "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" &
	load=$!
	(
		for _ in $(seq 250); do
			kill -0 "$load" 2>/dev/null || exit 0
			sleep 0.1
		done
		kill -KILL "$load"
	) &
	watchdog=$!
	sleep 1
	start=$(date +%s%N)
	kill -$sig "$load"
	wait "$load"
	rc=$?
	wait "$watchdog"
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "SIG$sig while connecting: exit $rc after $ms ms"
	[ "$rc" -eq 130 ] && ok || ko "sig$sig-connecting" "exit $rc, expected 130"
	[ "$ms" -lt 1000 ] && ok || ko "sig$sig-connecting" "took $ms ms"
	grep -q "interrupted" "$tmp/err" && ok || ko "sig$sig-connecting" "no 'interrupted'"
done
kill "$silent"
wait "$silent" 2>/dev/null

# no server: a clear error within the connect timeout (2 s), never a hang
start=$(date +%s%N)
expect no-server nz "not ready after 2000 ms.*is the server running at 127.0.0.1:$port" \
	-c "$tmp/c.yaml" -w "$tmp/w.yaml"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 6000 ] && ok || ko no-server "took $ms ms"

# a running server
server_start "$server" "$tmp/c.yaml"

# a count on the command line replaces the file's duration, and the other way round
sed 's/^duration: 2s/count: 400/' "$tmp/w.yaml" >"$tmp/count.yaml"
expect count-over-duration 0 "^total +300 " -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
	--set workload.count=300
expect duration-over-count 0 "^0\.[0-9]+ s" -c "$tmp/c.yaml" -w "$tmp/count.yaml" \
	--set workload.duration=300ms
# the units in the table's header; progress lines of the last interval (a
# second or more: a loaded machine wakes the reporter late)
expect units-header 0 "^# MB = 10\^6 bytes; latencies in microseconds" -c "$tmp/c.yaml" \
	-w "$tmp/w.yaml" --set workload.duration=1500ms
grep -qE "^\[ +[0-9]+\.[0-9]s\] last [0-9]+\.[0-9]s: +[0-9]+ ops/s" "$tmp/err" && ok ||
	ko progress "no progress line of the last interval"
grep -qE "^kind +size\(B\) +count +ops/s +MB/s +min +mean +stdev +p50" "$tmp/out" && ok ||
	ko table-columns "no min, mean, stdev in the header"

# JSON to a file (the table on stdout), CSV to a file, the histogram, a warm-up
expect outputs 0 "^total " -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=1s \
	--warmup 0.5 --json="$tmp/r.json" --csv="$tmp/r.csv" --histogram "$tmp/h.csv" --verify
python3 - "$tmp/r.json" "$tmp/r.csv" "$tmp/h.csv" "$version" <<'PY' && ok || ko outputs "see above"
import csv, json, re, sys
j = json.load(open(sys.argv[1]))
assert j["version"] == sys.argv[4], "version %r, not %r" % (j["version"], sys.argv[4])
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", j["start_time"]), j["start_time"]
assert j["host"], "no host"
assert re.fullmatch(r"[0-9a-f]{64}", j["config_sha256"]), j["config_sha256"]
assert j["interrupted"] is False and j["unreachable"] is False
assert j["units"]["mb"] == 1000000
assert j["warmup_seconds"] == 0.5 and 0.9 < j["seconds"] < 1.4, (j["warmup_seconds"], j["seconds"])
t = j["total"]
assert t["count"] > 0 and 0 < t["min_us"] <= t["mean_us"] <= t["max_us"], t
assert t["stdev_us"] >= 0 and t["min_us"] <= t["p50_us"] <= t["p99_us"] <= t["max_us"], t
assert set(j["kinds"]) == {"write", "write_persist", "read", "atomic", "call"}
assert j["verify"]["checked"] > 0 and j["verify"]["bad"] == 0 and j["verify"]["not_checked"] == 0
rows = list(csv.DictReader(open(sys.argv[2])))
assert list(rows[0]) == ("size,kind,count,seconds,ops_per_sec,mb_per_sec,min_us,mean_us,"
                         "stdev_us,p50_us,p90_us,p99_us,p999_us,max_us,errors").split(","), list(rows[0])
assert [r["kind"] for r in rows] == ["write", "write_persist", "read", "atomic", "call", "total"]
tot = rows[-1]
assert int(tot["count"]) == t["count"] and float(tot["mean_us"]) > 0
hist = list(csv.DictReader(open(sys.argv[3])))
assert list(hist[0]) == ["kind", "size", "upper_us", "count", "cumulative"], list(hist[0])
for kind in ("write", "read", "total"):
    h = [r for r in hist if r["kind"] == kind]
    cum = [float(r["cumulative"]) for r in h]
    assert cum == sorted(cum) and abs(cum[-1] - 1) < 1e-6, (kind, cum[-3:])
    assert sum(int(r["count"]) for r in h) == (t["count"] if kind == "total"
                                               else j["kinds"][kind]["count"]), kind
PY

# the example with a warm-up loads and runs
expect example-warmup 0 "figures after a warm-up of 0.20 s" -c "$tmp/c.yaml" \
	-w "$root/config/examples/workloads/write.yaml" --set workload.duration=300ms \
	--set workload.warmup=200ms --set workload.rate=500

# the digest is of what ran: the same for the same, another for a change
expect digest 0 . -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=200ms --json="$tmp/d1.json"
expect digest 0 . -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=200ms --json="$tmp/d2.json"
expect digest 0 . -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=200ms --json="$tmp/d3.json" \
	--set queues.sq=32
python3 -c '
import json, sys
d = [json.load(open(f))["config_sha256"] for f in sys.argv[1:]]
assert d[0] == d[1] != d[2], d' "$tmp/d1.json" "$tmp/d2.json" "$tmp/d3.json" && ok ||
	ko digest "the digests differ, or a change does not show"

# the timeline (a line per 100 ms) and the accounting of every operation (each submitted one
# completed once: ok or failed, or refused at submission, or never); the two agree with the figures
expect timeline 0 "^total " -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=1s \
	--verify --json="$tmp/tl.json" --timeline "$tmp/tl.csv"
python3 - "$tmp/tl.json" "$tmp/tl.csv" <<'PY' && ok || ko timeline "see above"
import csv, json, sys
j = json.load(open(sys.argv[1]))
a = j["accounting"]
assert a["submitted"] == a["rejected"] + a["completed_ok"] + a["completed_failed"] + \
    a["never_completed"], a
assert a["completed_twice"] == 0 and a["never_completed"] == 0 and a["late"] == 0, a
assert a["completed_ok"] == j["total"]["count"] > 0, (a, j["total"])
assert a["rejected"] + a["completed_failed"] == j["total"]["errors"] == 0, (a, j["total"])
rows = list(csv.DictReader(open(sys.argv[2])))
assert list(rows[0]) == ["seconds", "epoch", "ok", "failed"], list(rows[0])
t = [float(r["seconds"]) for r in rows]
e = [float(r["epoch"]) for r in rows]
assert t[0] == 0 and t == sorted(t) and e == sorted(e) and e[0] > 1.7e9, (t[:3], e[:3])
assert 1.0 <= t[-1] < 2.5 and len(rows) >= 10, (len(rows), t[-1])
steps = [b - a for a, b in zip(t[1:-1], t[2:-1])]
# a line per 100 ms of the wall clock: a loaded machine may delay a line, never skip or repeat one
assert all(0.05 <= d <= 1.0 for d in steps) and 0.09 <= sum(steps) / len(steps) <= 0.2, steps
assert sum(int(r["ok"]) for r in rows) == j["total"]["count"], "timeline ok != count"
assert sum(int(r["failed"]) for r in rows) == 0
PY

# a size sweep: one row per power of two from the least to the largest size
cat >"$tmp/sweep.yaml" <<YAML
region: data
mix: [{kind: write, weight: 1}, {kind: read, weight: 1}]
sizes: {write: {uniform: [512, 4K]}, read: 1K}
queue_depth: 2
duration: 200ms
YAML
expect sweep 0 "^total +4096 " -c "$tmp/c.yaml" -w "$tmp/sweep.yaml" -a --csv="$tmp/s.csv"
for size in 512 1024 2048 4096; do
	grep -qE "^(write|read|total) +$size +[1-9]" "$tmp/out" && ok || ko sweep "no rows of $size"
done
python3 -c '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert [x["size"] for x in r if x["kind"] == "total"] == ["512", "1024", "2048", "4096"], r' \
	"$tmp/s.csv" && ok || ko sweep "the CSV has not one total per size"

# SIGTERM while running: the figures so far, marked interrupted, exit 130 at once
timeout 30 "$run" "$TOOL" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=20s \
	--json >"$tmp/out" 2>"$tmp/err" &
load=$!
sleep 1.5
start=$(date +%s%N)
kill -TERM "$load"
wait "$load"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "SIGTERM while running: exit $rc after $ms ms"
[ "$rc" -eq 130 ] && ok || ko sigterm-run "exit $rc, expected 130"
[ "$ms" -lt 1000 ] && ok || ko sigterm-run "took $ms ms"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["interrupted"] is True and j["total"]["count"] > 0 and j["seconds"] < 5, j' \
	"$tmp/out" && ok || ko sigterm-run "no JSON marked interrupted"
timeout 30 "$run" "$TOOL" -c "$tmp/c.yaml" -w "$tmp/w.yaml" --set workload.duration=20s \
	--verify >"$tmp/out" 2>"$tmp/err" &
load=$!
sleep 1.5
kill -INT "$load"
wait "$load"
rc=$?
[ "$rc" -eq 130 ] && ok || ko sigint-run "exit $rc, expected 130"
grep -q "^INTERRUPTED" "$tmp/out" && ok || ko sigint-run "the table is not marked interrupted"

# the journal of the last --verify run is the one --verify-file checks below
expect run-verify 0 "verify: [1-9][0-9]* records read back, 0 bad" \
	-c "$tmp/c.yaml" -w "$tmp/w.yaml" --verify --journal "$tmp/journal"
for k in write write_persist read atomic call; do
	grep -qE "^$k +[1-9]" "$tmp/out" && ok || ko "run-verify" "no row for $k"
done
expect json 0 '^\{"version":.*"seconds":.*"verify":\{"checked":[1-9]' -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
	--verify --json --set workload.duration=500ms --set workload.rate=400
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || ko json "more than one line"
# a run of a count of operations, in one thread
expect run-count 0 "^total +400 " -c "$tmp/c.yaml" -w "$tmp/count.yaml" --verify --journal "$tmp/journal" \
	--set workload.threads=1

server_stop

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

# a region file with holes on a full tmpfs (where a mapping's read of a hole
# is SIGBUS): the file is read, not mapped, and the holes read as zeros
if mkdir "$tmp/full" && mount -t tmpfs -o size=1m tmpfs "$tmp/full" 2>/dev/null; then
	truncate -s 4M "$tmp/full/holes" &&
		dd if=/dev/zero of="$tmp/full/filler" bs=64k status=none 2>/dev/null
	expect verify-file-holes 1 "no record found" --verify-file "$tmp/full/holes"
	umount -l "$tmp/full"
else
	echo "test-rpma-load: verify-file-holes not run: no tmpfs can be mounted here (not root)"
fi

# load_server_killed ARGS... -- a new server, and a --verify run of rpma-load ARGS against it
# (40 s at most, output in $tmp/out and $tmp/err) whose operations time out after 1 s, during
# which the server is killed (SIGKILL, 1.5 s in); rc: the run's exit status, ms: its time
load_server_killed() {
	server_start "$server" "$tmp/c.yaml"
	start=$(date +%s%N)
	timeout 40 "$run" "$TOOL" -c "$tmp/c.yaml" -w "$tmp/w.yaml" \
		--set timeouts.operation_ms=1000 --verify "$@" >"$tmp/out" 2>"$tmp/err" &
	load=$!
	sleep 1.5
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	pid=
	wait "$load"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
}

# the server killed during a run: the run stops (no healthy connection past
# timeouts.operation_ms) with a clear error, the records it cannot read back
# are "not checked (target unreachable)", never bad
load_server_killed --set workload.duration=30s
echo "server killed: exit $rc after $ms ms"
[ "$rc" -eq 1 ] && ok || ko unreachable "exit $rc, expected 1"
[ "$ms" -lt 10000 ] && ok || ko unreachable "took $ms ms of a 30 s run"
grep -q "no healthy connection for more than 1000 ms (timeouts.operation_ms)" "$tmp/err" && ok ||
	ko unreachable "no clear error"
grep -qE "verify: [0-9]+ records read back, 0 bad, [1-9][0-9]* not checked \(target unreachable\)" \
	"$tmp/out" && ok || ko unreachable "records not read back are not reported as not checked"
grep -q "no room now" "$tmp/out" "$tmp/err" && ko unreachable "RPMAF_E_AGAIN said as 'no room now'" ||
	ok
# the operations in flight and those submitted since waited for a connection: each failed once,
# at its deadline, and the failures are told by why
grep -qE "operations? failed \([1-9][0-9]* timeout\); the first: [a-z_]+: not done in" \
	"$tmp/err" && ok || ko unreachable "the failures by why: $(grep failed "$tmp/err")"
grep -qE "; failed: [1-9][0-9]* timeout;" "$tmp/out" && ok ||
	ko unreachable "the table's failures by why: $(grep failed "$tmp/out")"

# with --keep-running the run goes on to its end through the loss (a fault test measures what
# comes after); its operations fail meanwhile, each counted once, and the timeline shows when
load_server_killed --set workload.duration=4s --keep-running --json="$tmp/k.json" \
	--timeline "$tmp/k.csv"
echo "server killed, --keep-running: exit $rc"
[ "$rc" -eq 1 ] && ok || ko keep-running "exit $rc, expected 1"
python3 - "$tmp/k.json" "$tmp/k.csv" <<'PY' && ok || ko keep-running "see above"
import csv, json, sys
j = json.load(open(sys.argv[1]))
a = j["accounting"]
assert j["unreachable"] is False and 3.9 < j["seconds"] < 8, (j["unreachable"], j["seconds"])
assert a["submitted"] == a["rejected"] + a["completed_ok"] + a["completed_failed"] + \
    a["never_completed"], a
assert a["completed_twice"] == 0 and a["never_completed"] == 0, a
assert a["rejected"] + a["completed_failed"] == j["total"]["errors"] > 0, (a, j["total"])
rows = list(csv.DictReader(open(sys.argv[2])))
late = [r for r in rows if float(r["seconds"]) > 2.5]
assert late and all(int(r["ok"]) == 0 for r in late), "operations ok after the server died"
assert sum(int(r["failed"]) for r in rows) == j["total"]["errors"]
assert sum(int(r["ok"]) for r in rows if float(r["seconds"]) < 1.5) > 0
PY

summary rpma-load
