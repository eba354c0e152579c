# SPDX-License-Identifier: BSD-3-Clause
#
# rpmem.gp -- doc/bench/rpmem.svg: librpmem's rpmem_persist() beside the
# framework's write + persist to the same rpmemd, by thread count, one
# column per size: ops/s (top), p99 latency (bottom, log scale); default
# and relaxed persist each.

W = 1100
H = 760
rows = 2
cols = 3
load dir."common.gp"

sizes = "64 4096 65536"
sizename(s) = s == 64 ? "64 B" : s == 4096 ? "4 KiB" : "64 KiB"

set multiplot title "rpmem_persist() beside the framework's write + persist to rpmemd, same-host softrdma, 2 CPUs (make bench-rpmem, medians of 5 rounds)" font ",13"
set logscale x 2
set xrange [0.8:5]
set xtics ("1" 1, "4" 4)
set xlabel "threads"

do for [i = 1:3] {
	size = word(sizes, i) + 0
	eval cell(1, i)
	set title sprintf("%s: ops/s", sizename(size))
	set ylabel "thousand ops/s"
	set yrange [0:*]
	sel(m) = column("size") == size && is("mode", m)
	plot data using "threads":(sel("default") ? column("rpmem_ops") / 1000. : NaN) with linespoints ls 1, \
	     data using "threads":(sel("default") ? column("fw_ops") / 1000. : NaN) with linespoints ls 2, \
	     data using "threads":(sel("relaxed") ? column("rpmem_ops") / 1000. : NaN) with linespoints ls 3, \
	     data using "threads":(sel("relaxed") ? column("fw_ops") / 1000. : NaN) with linespoints ls 4
}
do for [i = 1:3] {
	size = word(sizes, i) + 0
	eval cell(2, i)
	set title sprintf("%s: p99 latency", sizename(size))
	set ylabel "p99 (µs, log scale)"
	set logscale y
	set yrange [100:2000]
	set ytics (100, 200, 500, 1000, 2000)
	sel(m) = column("size") == size && is("mode", m)
	plot data using "threads":(sel("default") ? column("rpmem_p99_us") : NaN) with linespoints ls 1, \
	     data using "threads":(sel("default") ? column("fw_p99_us") : NaN) with linespoints ls 2, \
	     data using "threads":(sel("relaxed") ? column("rpmem_p99_us") : NaN) with linespoints ls 3, \
	     data using "threads":(sel("relaxed") ? column("fw_p99_us") : NaN) with linespoints ls 4
}
eval key_strip
plot NaN with linespoints ls 1 title "rpmem_persist(), default", \
     NaN with linespoints ls 2 title "framework, default", \
     NaN with linespoints ls 3 title "rpmem_persist(), RELAXED", \
     NaN with linespoints ls 4 title "framework, in the RELAXED rounds"
unset multiplot
