#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# callgrind.sh BENCH OPS DIR [DEPTH] -- run "BENCH overhead --ops OPS
# --depth DEPTH" (DEPTH 1 when not given) under
# callgrind (instrumentation off but in the measured phases, one dump per
# phase with every thread's cost in it, in DIR) and print the instructions
# per operation of each phase: in all, in the device (softrdma's own
# objects, in every thread, its progress thread included), without it, and
# by object; then the pool/bare ratios, with and without the device. Run it
# under tools/softrdma-run.
set -eu
bench=$1
ops=$2
dir=$3
depth=${4:-1}
rm -rf "$dir"
mkdir -p "$dir"

if ! valgrind --tool=callgrind --instr-atstart=no --separate-threads=no \
	--callgrind-out-file="$dir/cg.%p" "$bench" overhead --ops "$ops" --depth "$depth" \
	>"$dir/out.txt" 2>"$dir/valgrind.log"; then
	echo "callgrind.sh: the run failed; see $dir/out.txt and $dir/valgrind.log" >&2
	cat "$dir/out.txt" >&2
	exit 1
fi

# per dump: "phase object self-instructions" lines
for f in "$dir"/cg.*.*; do
	phase=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f" | head -n 1)
	[ -n "$phase" ] || continue
	callgrind_annotate --auto=no --threshold=100 --inclusive=no "$f" 2>/dev/null |
		awk -v phase="$phase" '
		# a line names its object in brackets, but for code inlined from
		# another file (a header, a static function of its own file), which
		# names only its source file: that file tells the object
		$1 ~ /^[0-9,]+$/ && / \([ 0-9.]+%\) / && !/PROGRAM TOTALS/ {
			v = $1; gsub(",", "", v)
			if ($NF ~ /^\[.*\]$/) {
				obj = $NF; gsub(/[][]/, "", obj)
			} else {
				obj = $NF; sub(/:[^:\/]*$/, "", obj)
				if (obj ~ /(^|\/)softrdma\//) obj = "softrdma"
				else if (obj ~ /(^|\/)librpma\/src\//) obj = "librpma."
				else if (obj ~ /(^|\/)(pool|workers|regtab|ctl|stats|server|config|proto)\//) obj = "librpmaf"
				else if (obj ~ /^\/usr\/include\/urcu\//) obj = "liburcu"
				else if (obj ~ /^\/usr\/include\/infiniband\//) obj = "librpma." # verbs.h inlined
				else if (obj ~ /^\.\//) obj = "libc.so" # glibc, built from its own tree
			}
			o = "other"
			if (obj ~ /softrdma/) o = "softrdma"
			else if (obj ~ /librpmaf/) o = "librpmaf"
			else if (obj ~ /librpma\./) o = "librpma"
			else if (obj ~ /liburcu/) o = "liburcu"
			else if (obj ~ /libc\.so/) o = "libc"
			print phase, o, v
		}'
done >"$dir/objects.txt"

awk -v ops="$ops" -v depth="$depth" '
{
	all[$1] += $3
	obj[$1, $2] += $3
	if ($2 == "softrdma")
		dev[$1] += $3
}
function per(v) {
	return v / ops
}
function ratio(name, p, b) {
	printf("%-14s pool/bare %.2f with the device, %.2f without\n", name,
	       all[b] ? all[p] / all[b] : 0,
	       all[b] - dev[b] ? (all[p] - dev[p]) / (all[b] - dev[b]) : 0)
}
END {
	printf("instructions per operation (callgrind Ir / %u ops, %u in flight, every thread of the client)\n", ops, depth)
	printf("%-18s %7s %7s %7s %7s %7s %7s %7s %7s\n", "phase", "total", "device",
	       "no-dev", "rpmaf", "rpma", "urcu", "libc", "other")
	n = split("bare-write-flush pool-write-persist bare-read pool-read", ks, " ")
	for (i = 1; i <= n; i++) {
		k = ks[i]
		printf("%-18s %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f\n", k,
		       per(all[k]), per(dev[k]), per(all[k] - dev[k]), per(obj[k, "librpmaf"]), per(obj[k, "librpma"]), per(obj[k, "liburcu"]),
		       per(obj[k, "libc"]), per(obj[k, "other"]))
	}
	ratio("write+persist", "pool-write-persist", "bare-write-flush")
	ratio("read", "pool-read", "bare-read")
}' "$dir/objects.txt"
echo "device: self cost in softrdma's libibverbs and librdmacm, in every thread (its progress"
echo "thread included); the libc it calls (system calls, copies, locks) is in libc; no-dev ="
echo "total - device; rpmaf ... other: self cost by object (other: the benchmark, ld.so, ...)"
echo "run: $(grep '^overhead:' "$dir/out.txt")"
grep 'per op:' "$dir/out.txt"
