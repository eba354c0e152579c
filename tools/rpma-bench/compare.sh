#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Both modes first copy softrdma's libibverbs.so.1 and librdmacm.so.1 into
# BENCH_DIR/softrdma-snapshot and run on that copy, so that a rebuild of
# softrdma during the run cannot mix two transports in one table.
# SOFTRDMA_TRANSPORT (tcp, or unset for softrdma's default) passes through.
#
# compare.sh run OURS DEBIAN
#	Run the two rpma-bench binaries over softrdma one after the other,
#	BENCH_ROUNDS times alternately (ours, debian, ours, debian, ...), and
#	print a side-by-side Markdown table of the per-case medians with the
#	ratio ours/debian. Raw outputs go to BENCH_DIR/run-{ours,debian}-N.txt.
# compare.sh callgrind OURS DEBIAN
#	Run a fixed workload (BENCH_CG_OPS measured ops per case after
#	BENCH_CG_WARMUP warm-up ops) of each under callgrind, BENCH_CG_ROUNDS
#	times alternately, and print the median over the rounds of the
#	instructions per op executed by librpma during the measured phase of
#	each case (client process): in its shared object, and inlined into its
#	functions from headers (see cg_sum), with the range of the rounds. What
#	one call costs does not depend on the machine, but how many polls and
#	waits an operation takes does (how many completions one poll finds),
#	and that moves single rounds of the ping-pong cases by up to a third.
#	Profiles and the per-case callgrind_annotate outputs go to
#	BENCH_DIR/cg-{ours,debian}-ROUND/.
#
# Environment: BENCH_ADDR, BENCH_PORT, BENCH_SECONDS, BENCH_WARMUP,
# BENCH_ARGS (extra rpma-bench options), BENCH_ROUNDS, BENCH_CG_OPS,
# BENCH_CG_WARMUP, BENCH_CG_ROUNDS (default 3), BENCH_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
addr=${BENCH_ADDR:-127.0.0.1}
port=${BENCH_PORT:-7471}
seconds=${BENCH_SECONDS:-2}
warmup=${BENCH_WARMUP:-1000}
rounds=${BENCH_ROUNDS:-3}
cg_ops=${BENCH_CG_OPS:-2000}
cg_warmup=${BENCH_CG_WARMUP:-200}
cg_rounds=${BENCH_CG_ROUNDS:-3}
dir=${BENCH_DIR:-$top/build/bench}
read -r -a extra <<< "${BENCH_ARGS:-}"

# die: print a message and stop
die() {
	echo "compare.sh: $*" >&2
	exit 1
}

# usage: how to call the script
usage() {
	echo "usage: $0 run|callgrind OURS DEBIAN" >&2
	exit 2
}

[ $# -eq 3 ] || usage
mode=$1
ours=$2
debian=$3
[ -x "$ours" ] || die "$ours is not an executable"
[ -x "$debian" ] || die "$debian is not an executable"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
snap="$dir/softrdma-snapshot"

# snapshot: a private copy of softrdma's two libraries to run on
snapshot() {
	local f

	rm -rf "$snap"
	mkdir -p "$snap"
	for f in libibverbs.so.1 librdmacm.so.1; do
		[ -e "$top/build/softrdma/$f" ] || die "no build/softrdma/$f: run 'make softrdma'"
		cp "$top/build/softrdma/$f" "$snap/$f" || die "cannot copy $f"
	done
}

# run: CMD ARGS... on the snapshot of softrdma (what tools/softrdma-run does)
run() {
	LD_LIBRARY_PATH="$snap${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

# header: when, what and on which transport the figures were taken
header() {
	local sum commit dirty transport

	commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git -C "$top" status --porcelain -- librpma softrdma 2>/dev/null | wc -l)
	sum=$(sha256sum "$snap/libibverbs.so.1" | cut -c1-12)
	if grep -q softrdma-seg "$snap/libibverbs.so.1"; then
		transport="same-host shared memory unless SOFTRDMA_TRANSPORT=tcp"
	else
		transport="TCP only"
	fi
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit" \
		"($dirty uncommitted files under librpma/ and softrdma/)"
	echo "softrdma: libibverbs.so.1 sha256 $sum (built with: $transport);" \
		"SOFTRDMA_TRANSPORT=${SOFTRDMA_TRANSPORT:-(unset)}"
	echo "machine: $(nproc) CPUs, $(uname -sr)"
}

# transport_of OUT: what the run reported about softrdma's transport
transport_of() {
	sed -n 's/^# SOFTRDMA_TRANSPORT=[^ ]* softrdma_shm_segment=//p' "$1"
}

# run_one BIN LABEL PORT OUT [OPTIONS...]: one rpma-bench run over softrdma
run_one() {
	local bin=$1 label=$2 p=$3 out=$4

	shift 4
	if ! run "$bin" -a "$addr" -p "$p" -l "$label" "$@" > "$out"; then
		cat "$out" >&2
		die "$label run failed (output in $out)"
	fi
	grep -q '^# done' "$out" || die "$label run did not finish (output in $out)"
}

# check_lib OUT WANT: the run's "# librpma=" line must name WANT's soname
check_lib() {
	local got

	got=$(sed -n 's/^# librpma=//p' "$1")
	case "$got" in
	*"$2"*) ;;
	*) die "$1 ran $got, expected $2" ;;
	esac
}

# STATS_AWK: the awk functions both tables use: median(S) and range(S, DIV,
# UNIT), "LO-HI" of the space-separated numbers S, each divided by DIV and
# followed by UNIT
STATS_AWK='
	function median(s,    n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function range(s, div, unit,    n, a, i, lo, hi) {
		n = split(s, a, " ")
		lo = hi = a[1] + 0
		for (i = 2; i <= n; i++) {
			if (a[i] + 0 < lo)
				lo = a[i] + 0
			if (a[i] + 0 > hi)
				hi = a[i] + 0
		}
		return sprintf("%.0f%s-%.0f%s", lo / div, unit, hi / div, unit)
	}
'

# table: side-by-side medians of the RESULT lines of every run
table() {
	awk "$STATS_AWK"'
	/^RESULT / {
		delete f
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			f[kv[1]] = kv[2]
		}
		k = f["op"] " " f["size"] " " f["qd"]
		if (!(k in seen)) {
			seen[k] = 1
			order[++n] = k
		}
		l = f["label"]
		ops[k, l] = ops[k, l] " " f["ops_per_sec"]
		p50[k, l] = p50[k, l] " " f["p50_us"]
		p99[k, l] = p99[k, l] " " f["p99_us"]
		p999[k, l] = p999[k, l] " " f["p999_us"]
	}
	END {
		printf("| op | size | QD | ours ops/s (range) | debian ops/s (range) | ops/s ours/debian |")
		printf(" ours p50/p99/p99.9 µs | debian p50/p99/p99.9 µs | p50 ours/debian |\n")
		printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for (i = 1; i <= n; i++) {
			k = order[i]
			split(k, c, " ")
			oo = median(ops[k, "ours"]); od = median(ops[k, "debian"])
			lo = median(p50[k, "ours"]); ld = median(p50[k, "debian"])
			printf("| %s | %s | %s | %.0f (%s) | %.0f (%s) | %.2f | %.1f / %.1f / %.1f |",
			       c[1], c[2], c[3], oo, range(ops[k, "ours"], 1000, "k"), od,
			       range(ops[k, "debian"], 1000, "k"), od > 0 ? oo / od : 0, lo,
			       median(p99[k, "ours"]), median(p999[k, "ours"]))
			printf(" %.1f / %.1f / %.1f | %.2f |\n", ld, median(p99[k, "debian"]),
			       median(p999[k, "debian"]), ld > 0 ? lo / ld : 0)
		}
	}' "$@"
}

# mode_run: alternate the two binaries BENCH_ROUNDS times, then the table
mode_run() {
	local r files=()

	snapshot
	header
	echo "workload: ${seconds} s per case after $warmup warm-up ops, $rounds rounds" \
		"alternating ours/debian, medians shown; options: ${BENCH_ARGS:-none}"
	for r in $(seq 1 "$rounds"); do
		run_one "$ours" ours $((port + 2 * r)) "$dir/run-ours-$r.txt" \
			-t "$seconds" -w "$warmup" "${extra[@]}"
		check_lib "$dir/run-ours-$r.txt" librpma.so.1
		run_one "$debian" debian $((port + 2 * r + 1)) "$dir/run-debian-$r.txt" \
			-t "$seconds" -w "$warmup" "${extra[@]}"
		check_lib "$dir/run-debian-$r.txt" librpma.so.0
		files+=("$dir/run-ours-$r.txt" "$dir/run-debian-$r.txt")
	done
	echo "ours:   $(sed -n 's/^# librpma=//p' "$dir/run-ours-1.txt")"
	echo "debian: $(sed -n 's/^# librpma=//p' "$dir/run-debian-1.txt")"
	echo "softrdma loaded: $(sed -n 's/^# libibverbs=//p' "$dir/run-ours-1.txt")," \
		"shm segment: ours $(transport_of "$dir/run-ours-1.txt")," \
		"debian $(transport_of "$dir/run-debian-1.txt")"
	echo
	table "${files[@]}"
}

# cg_sum SO FILE: the self instructions librpma executed, from a
# callgrind_annotate listing: the lines that name the object SO, and the
# lines of code inlined into librpma's functions from a header (mr.h,
# flush.h, verbs.h), which callgrind_annotate prints with their source file
# but without an object; those are told by their function, one of librpma's
# (rpma_*). A library without debug information has only lines of the first
# kind, so both libraries are counted whole.
cg_sum() {
	awk -v so="[$1]" '
		$1 !~ /^[0-9,]+$/ || /PROGRAM TOTALS/ { next }
		index($0, so) || ($NF !~ /\]$/ && $NF ~ /:rpma_/) {
			v = $1; gsub(",", "", v); s += v
		}
		END { printf("%.0f", s) }' "$2"
}

# cg_one BIN LABEL PORT ROUND: callgrind profile of the fixed workload;
# prints "op size qd instr_per_op" per case
cg_one() {
	local bin=$1 label=$2 p=$3 round=$4 out cgdir pid so n ops sum

	cgdir="$dir/cg-$label-$round"
	rm -rf "$cgdir"
	mkdir -p "$cgdir"
	out="$cgdir/out.txt"
	if ! run valgrind --tool=callgrind --callgrind-out-file="$cgdir/cg.%p" \
		--zero-before=bench_phase_begin --dump-after=bench_phase_end \
		"$bin" -a "$addr" -p "$p" -l "$label" -n "$cg_ops" -w "$cg_warmup" \
		"${extra[@]}" > "$out" 2> "$cgdir/valgrind.log"; then
		die "$label under callgrind failed (see $cgdir)"
	fi
	grep -q '^# done' "$out" || die "$label under callgrind did not finish (see $cgdir)"
	pid=$(sed -n 's/^# rpma-bench label=[^ ]* pid=//p' "$out")
	so=$(sed -n 's/^# librpma=//p' "$out")
	[ -n "$pid" ] && [ -n "$so" ] || die "$out lacks the pid or the librpma line"
	n=0
	grep '^RESULT ' "$out" | while read -r line; do
		n=$((n + 1))
		local f="$cgdir/cg.$pid.$n"

		[ -e "$f" ] || die "no callgrind dump $f"
		callgrind_annotate --auto=no --threshold=100 --inclusive=no "$f" \
			> "$cgdir/case-$n.txt" 2>/dev/null || die "callgrind_annotate $f failed"
		ops=$(echo "$line" | sed -n 's/.* ops=\([0-9]*\) .*/\1/p')
		sum=$(cg_sum "$so" "$cgdir/case-$n.txt")
		echo "$line" | awk -v sum="$sum" -v ops="$ops" '{
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				f[kv[1]] = kv[2]
			}
			printf("%s %s %s %.1f\n", f["op"], f["size"], f["qd"], sum / ops)
		}'
	done
}

# cg_table FILES...: the median and range over the rounds of each case,
# ours beside Debian's; each file is a round's cg_one output of one library,
# named cg-LABEL-ROUND.txt
cg_table() {
	awk "$STATS_AWK"'
	{
		l = FILENAME ~ /cg-ours-/ ? "ours" : "debian"
		k = $1 " " $2 " " $3
		if (!(k in seen)) {
			seen[k] = 1
			order[++n] = k
		}
		v[k, l] = v[k, l] " " $4
	}
	END {
		printf("| op | size | QD | ours instr/op (range) | debian instr/op (range) | ours/debian |\n")
		printf("|---|---:|---:|---:|---:|---:|\n")
		for (i = 1; i <= n; i++) {
			k = order[i]
			split(k, c, " ")
			if (!((k, "ours") in v) || !((k, "debian") in v)) {
				print "compare.sh: the two runs list different cases" > "/dev/stderr"
				exit 1
			}
			o = median(v[k, "ours"]); d = median(v[k, "debian"])
			printf("| %s | %s | %s | %.0f (%s) | %.0f (%s) | %.2f |\n", c[1], c[2], c[3],
			       o, range(v[k, "ours"], 1, ""), d, range(v[k, "debian"], 1, ""), d > 0 ? o / d : 0)
		}
	}' "$@"
}

# mode_callgrind: instructions per op inside librpma for both libraries
mode_callgrind() {
	local r files=()

	snapshot
	header
	echo "workload: $cg_ops measured ops per case after $cg_warmup warm-up ops," \
		"$cg_rounds rounds alternating ours/debian, medians shown;" \
		"client process, instructions (Ir) inside the librpma object"
	for r in $(seq 1 "$cg_rounds"); do
		cg_one "$ours" ours $((port + 2 * r)) "$r" > "$dir/cg-ours-$r.txt"
		cg_one "$debian" debian $((port + 2 * r + 1)) "$r" > "$dir/cg-debian-$r.txt"
		files+=("$dir/cg-ours-$r.txt" "$dir/cg-debian-$r.txt")
	done
	echo "ours:   $(sed -n 's/^# librpma=//p' "$dir/cg-ours-1/out.txt")"
	echo "debian: $(sed -n 's/^# librpma=//p' "$dir/cg-debian-1/out.txt")"
	echo "shm segment: ours $(transport_of "$dir/cg-ours-1/out.txt")," \
		"debian $(transport_of "$dir/cg-debian-1/out.txt")"
	echo
	cg_table "${files[@]}"
}

case "$mode" in
run) mode_run ;;
callgrind) mode_callgrind ;;
*) usage ;;
esac
