# SPDX-License-Identifier: BSD-3-Clause
#
# rpma-bench.gp -- doc/bench/rpma-bench.svg: librpma (ours) against Debian's
# librpma 1.2.0 by queue depth, one column per operation: ops/s with the
# range of the rounds as error bars (top), p99 latency (bottom, log scale).

W = 1100
H = 760
rows = 2
cols = 3
load dir."common.gp"

ops = "write_flush read pingpong"
# side by side at each queue depth: the four lines shifted a little on the log axis
shift(k) = 0.86 + 0.093 * k

set multiplot title "librpma (ours) against Debian librpma 1.2.0, same-host softrdma, 2 CPUs (make bench, medians of 3 rounds)" font ",13"
set logscale x 2
set xrange [0.6:28]
set xtics ("1" 1, "16" 16)
set xlabel "queue depth"

do for [i = 1:3] {
	op = word(ops, i)
	eval cell(1, i)
	set title op
	set ylabel "thousand ops/s (range of the rounds)"
	set yrange [0:*]
	sel(s) = is("op", op) && column("size") == s
	plot data using (column("qd") * shift(0)):(sel(64) ? column("ours_ops") / 1000. : NaN):"ours_min_k":"ours_max_k" \
		with yerrorlines ls 1, \
	     data using (column("qd") * shift(1)):(sel(64) ? column("debian_ops") / 1000. : NaN):"debian_min_k":"debian_max_k" \
		with yerrorlines ls 2, \
	     data using (column("qd") * shift(2)):(sel(4096) ? column("ours_ops") / 1000. : NaN):"ours_min_k":"ours_max_k" \
		with yerrorlines ls 3, \
	     data using (column("qd") * shift(3)):(sel(4096) ? column("debian_ops") / 1000. : NaN):"debian_min_k":"debian_max_k" \
		with yerrorlines ls 4
}
do for [i = 1:3] {
	op = word(ops, i)
	eval cell(2, i)
	set title op
	set ylabel "p99 latency (µs, log scale)"
	set autoscale y
	set logscale y
	sel(s) = is("op", op) && column("size") == s
	plot data using "qd":(sel(64) ? column("ours_p99_us") : NaN) with linespoints ls 1, \
	     data using "qd":(sel(64) ? column("debian_p99_us") : NaN) with linespoints ls 2, \
	     data using "qd":(sel(4096) ? column("ours_p99_us") : NaN) with linespoints ls 3, \
	     data using "qd":(sel(4096) ? column("debian_p99_us") : NaN) with linespoints ls 4
}
eval key_strip
plot NaN with linespoints ls 1 title "ours, 64 B", \
     NaN with linespoints ls 2 title "Debian 1.2.0, 64 B", \
     NaN with linespoints ls 3 title "ours, 4 KiB", \
     NaN with linespoints ls 4 title "Debian 1.2.0, 4 KiB"
unset multiplot
