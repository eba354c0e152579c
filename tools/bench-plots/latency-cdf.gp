# SPDX-License-Identifier: BSD-3-Clause
#
# latency-cdf.gp -- doc/bench/latency-cdf.svg: the latency distribution of
# a run, from rpma-load's --histogram file (kind,size,upper_us,count,
# cumulative: per kind of operation, each non-empty bucket's upper bound in
# microseconds, its count and the fraction of the kind's operations at or
# below it), as made by make bench-cdf. Left the distribution function,
# right its tail (the fraction above each bound, log scale), one line per
# kind; rows of "total", and the size of a sweep, are not drawn (bench-cdf
# writes neither).

W = 1100
H = 500
rows = 1
cols = 2
load dir."common.gp"

# the kinds the file has, in rpma-load's order
kinds = ""
do for [k in "write write_persist read atomic call"] {
	stats data using (is("kind", k) ? 1 : 0) nooutput
	if (STATS_sum > 0) { kinds = kinds." ".k }
}
nk = words(kinds)
style(i) = 4 + i
set style line 5 lc rgb blue lw 2 pt 7 ps 0.7 pi 12
set style line 6 lc rgb orange lw 2 pt 5 ps 0.7 pi 12
set style line 7 lc rgb green lw 2 pt 9 ps 0.7 pi 12
set style line 8 lc rgb purple lw 2 pt 11 ps 0.7 pi 12
set style line 9 lc rgb "#606060" lw 2 pt 13 ps 0.7 pi 12

set multiplot title "Latency distribution of a run of rpma-load against rpma-server (make bench-cdf)" font ",13"
set logscale x 10
set xlabel "latency (µs, bucket upper bound, log scale)"

eval cell(1, 1)
set title "fraction of operations at or below"
set yrange [0:1]
set ytics 0.1
set ylabel "cumulative fraction"
plot for [i = 1:nk] data using "upper_us":(is("kind", word(kinds, i)) ? column("cumulative") : NaN) \
	with linespoints ls style(i)

eval cell(1, 2)
set lmargin 16
set title "the tail: fraction of operations above"
set logscale y 10
set yrange [*:1]
set ytics auto
set format y "%g"
set ytics add ("p99  0.01" 0.01, "p99.9  0.001" 0.001)
set ylabel "1 - cumulative fraction (log scale)"
tail(f) = f < 1 ? 1 - f : NaN
plot for [i = 1:nk] data using "upper_us":(is("kind", word(kinds, i)) ? tail(column("cumulative")) : NaN) \
	with linespoints ls style(i)

eval key_strip
plot for [i = 1:nk] NaN with linespoints ls style(i) title word(kinds, i)
unset multiplot
