#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-cdf.sh -- the latency distribution of the service: rpma-load drives
# rpma-server over softrdma on loopback (same-host shared memory), one run
# per kind of operation (write_persist, read, call) at one size and queue
# depth with one worker, each writing rpma-load's --histogram file
# (kind,size,upper_us,count,cumulative: per kind and for the total, one row
# per non-empty bucket, its upper bound in microseconds, its count and the
# fraction of the kind's operations at or below it; size empty without -a).
# The files are joined into OUT, a data file of doc/bench/ (comment lines
# saying how, when, with which rpma-load and on which commit it was made,
# then that header line and the rows of each run's kind: its total rows,
# the same figures with a mix of one kind, are left out), which
# tools/bench-plots/latency-cdf.gp draws (make bench-cdf runs both).
#
# usage: bench-cdf.sh [-t SECONDS] [-s SIZE] [-q QD] [-p PORT] [-b DIR] [-o OUT]
#   -t SECONDS  measured time of each kind (2)
#   -s SIZE     bytes per operation (64)
#   -q QD       queue depth of the load thread (1)
#   -p PORT     the server's port (18980)
#   -b DIR      the top of the build tree (build)
#   -o OUT      the data file written (doc/bench/latency-cdf.csv)
#
# Nothing is written to OUT unless every run succeeded and every histogram
# had the expected header and rows. Exits non-zero, saying why, otherwise:
# an rpma-load without --histogram fails here with its "unknown option".

set -u

. "$(dirname "$0")/../common/service-script.sh"
SECS=2
SIZE=64
QD=1
PORT=18980
BUILD=$ROOT/build
OUT=$ROOT/doc/bench/latency-cdf.csv
HEADER="kind,size,upper_us,count,cumulative"
KINDS=(write_persist read call)

options_parse "t:SECS s:SIZE q:QD p:PORT b:BUILD o:OUT" "$@"
for v in "$SIZE" "$QD" "$PORT"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || {
		echo "bench-cdf: '$v' is not a positive integer" >&2
		exit 2
	}
done
[[ $SECS =~ ^[0-9]+(\.[0-9]+)?$ ]] || {
	echo "bench-cdf: '$SECS' is not a number of seconds" >&2
	exit 2
}

SERVER=$BUILD/tools/rpma-server
LOAD=$BUILD/tools/rpma-load
service_need "$SERVER" "$LOAD"

service_workdir || exit 1
trap service_cleanup EXIT
trap 'exit 1' INT TERM

service_config "$WORK/config.yaml" "$PORT" "$WORK/region" sq=128 msg=8K credits=32 \
	target=bench size=64M persistence=apm level=warning

# load_run KIND -- one rpma-load run of KIND; its histogram in $WORK/hist.KIND
load_run() {
	cat >"$WORK/workload.yaml" <<EOW
region: data
mix: [{kind: $1, weight: 1}]
sizes: {$1: $SIZE}
threads: 1
queue_depth: $QD
duration: ${SECS}s
EOW
	"$RUN" "$LOAD" -c "$WORK/config.yaml" -w "$WORK/workload.yaml" \
		--histogram "$WORK/hist.$1" >"$WORK/load.out" 2>"$WORK/load.err" ||
		service_fail "rpma-load $1 failed: $(grep -v '^ \|^usage:' "$WORK/load.err" | tail -n 3)"
	[ "$(head -n 1 "$WORK/hist.$1")" = "$HEADER" ] ||
		service_fail "rpma-load $1: the histogram does not start with the line $HEADER"
	grep -q "^$1,," "$WORK/hist.$1" ||
		service_fail "rpma-load $1: the histogram has no row of $1"
	grep -q "^total,," "$WORK/hist.$1" ||
		service_fail "rpma-load $1: the histogram has no total"
	# the kind's rows only; its last one is at the cumulative fraction 1
	grep "^$1,," "$WORK/hist.$1" >"$WORK/rows.$1"
	tail -n 1 "$WORK/rows.$1" | grep -qE ',1\.0+$' ||
		service_fail "rpma-load $1: the kind's last row is not at the cumulative fraction 1"
}

version=$("$LOAD" --version) || service_fail "$LOAD --version failed"
service_start_apm "$RUN" "$SERVER" "$WORK/config.yaml" "$WORK/server.log" ||
	service_fail "rpma-server did not start"
for kind in "${KINDS[@]}"; do
	echo "bench-cdf: $kind, $SIZE B, queue depth $QD, $SECS s" >&2
	load_run "$kind"
done
service_stop "$SERVICE_PID" || service_fail "rpma-server exited with $?"
SERVICE_PID=

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || commit="$commit with local changes"
{
	echo "# SPDX-License-Identifier: BSD-3-Clause"
	echo "# from: make bench-cdf"
	echo "# The latency distribution of rpma-load against rpma-server, one run per"
	echo "# kind: \`make bench-cdf BENCH_CDF_ARGS=\"-t $SECS -s $SIZE -q $QD\"\`"
	echo "# (tools/bench-plots/bench-cdf.sh), $SIZE B, queue depth $QD, 1 worker,"
	echo "# polling event, $SECS s per kind, same-host softrdma, $(nproc) CPUs,"
	echo "# $(date -u '+%Y-%m-%d %H:%M') UTC, commit $commit, $version."
	echo "# Rows: each run's rows of its kind from rpma-load's --histogram file"
	echo "# (bucket upper bound in µs, count, cumulative fraction; size empty: no -a)."
	echo "# Drawn by tools/bench-plots/latency-cdf.gp (make bench-plots)."
	echo "$HEADER"
	for kind in "${KINDS[@]}"; do
		cat "$WORK/rows.$kind"
	done
} >"$WORK/out.csv" || service_fail "cannot assemble the data file"
mv "$WORK/out.csv" "$OUT" || service_fail "cannot write $OUT"
echo "bench-cdf: wrote $OUT" >&2
