# SPDX-License-Identifier: BSD-3-Clause
#
# scale-quiet.gp -- doc/bench/scale-quiet.svg: the framework's workers
# against bare librpma threads on a quiet machine, ops/s by connections on
# one thread (left, log scale) and by threads (right); runs A, B and C of
# one commit in the top row, run D of a later one in the bottom row.

W = 1000
H = 820
rows = 2
cols = 2
strip = 100
load dir."common.gp"

# run k (1..4 for A..D): workers blue, bare orange, one dash and mark a run
runs = "A B C D"
do for [k = 1:4] {
	dash = word("3 2 4 1", k) + 0
	mark = word("7 5 9 13", k) + 0
	eval sprintf("set style line %d lc rgb blue lw 2 dt %d pt %d ps 0.9", 10 + k, dash, mark)
	eval sprintf("set style line %d lc rgb orange lw 2 dt %d pt %d ps 0.9", 20 + k, dash, mark)
}

set multiplot title "Workers against bare librpma on a quiet machine, 64-byte writes, 2 CPUs (make bench-rpmaf)" font ",13"
set yrange [0:*]
set ylabel "thousand ops/s"

do for [r = 1:2] {
	first = r == 1 ? 1 : 4
	last = r == 1 ? 3 : 4
	what = r == 1 ? "commit 6c33799, runs A, B, C" : "commit 818f13a, run D"

	eval cell(r, 1)
	set title "connections on one thread: ".what
	set logscale x 10
	set xrange [0.7:1500]
	set xtics auto
	set xlabel "connections (log scale)"
	sel(k) = is("run", word(runs, k)) && is("axis", "conns")
	plot for [k = first:last] data using "n":(sel(k) ? column("workers_ops") / 1000. : NaN) \
		with linespoints ls 10 + k, \
	     for [k = first:last] data using "n":(sel(k) ? column("bare_ops") / 1000. : NaN) \
		with linespoints ls 20 + k

	eval cell(r, 2)
	set title "threads: ".what
	unset logscale x
	set xrange [0.8:2.2]
	set xtics 1
	set xlabel "threads"
	sel(k) = is("run", word(runs, k)) && is("axis", "threads")
	plot for [k = first:last] data using "n":(sel(k) ? column("workers_ops") / 1000. : NaN) \
		with linespoints ls 10 + k, \
	     for [k = first:last] data using "n":(sel(k) ? column("bare_ops") / 1000. : NaN) \
		with linespoints ls 20 + k
}

eval key_strip
set key maxcols 4 width 0
plot for [k = 1:4] NaN with linespoints ls 10 + k title "workers, ".word(runs, k), \
     for [k = 1:4] NaN with linespoints ls 20 + k title "bare, ".word(runs, k)
unset multiplot
