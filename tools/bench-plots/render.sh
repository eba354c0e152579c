#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# render.sh -- draw every data file of doc/bench/ as an SVG chart with
# gnuplot: NAME.csv through tools/bench-plots/NAME.gp into OUTDIR/NAME.svg.
# The same data and gnuplot give the same bytes (common.gp writes no date).
# A data file without its script is an error, and so is a script that makes
# gnuplot say anything (a warning names a chart that is not what it seems).
#
# usage: render.sh BENCHDIR OUTDIR

if [ $# -ne 2 ]; then
	echo "usage: render.sh BENCHDIR OUTDIR" >&2
	exit 2
fi
BENCHDIR=$1
OUTDIR=$2
GPDIR=$(dirname "$0")

command -v gnuplot >/dev/null 2>&1 || {
	echo "bench-plots: gnuplot is missing (tools/install-deps.sh installs gnuplot-nox)" >&2
	exit 1
}
mkdir -p "$OUTDIR" || exit 1

fail=0
n=0
for csv in "$BENCHDIR"/*.csv; do
	[ -e "$csv" ] || continue
	name=$(basename "$csv" .csv)
	gp=$GPDIR/$name.gp
	if [ ! -f "$gp" ]; then
		echo "bench-plots: $csv has no script $gp" >&2
		fail=1
		continue
	fi
	# write to a temporary name: a failed run leaves no half chart behind
	tmp=$OUTDIR/.$name.svg.tmp
	if gnuplot -e "data='$csv'; out='$tmp'; dir='$GPDIR/'" "$gp" 2>"$tmp.err" &&
		[ ! -s "$tmp.err" ] && mv "$tmp" "$OUTDIR/$name.svg"; then
		n=$((n + 1))
	else
		cat "$tmp.err" >&2
		echo "bench-plots: gnuplot failed or warned on $gp ($csv)" >&2
		rm -f "$tmp"
		fail=1
	fi
	rm -f "$tmp.err"
done
[ $fail -eq 0 ] && echo "bench-plots: $n charts in $OUTDIR"
exit $fail
