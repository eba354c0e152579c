# SPDX-License-Identifier: BSD-3-Clause
#
# service.gp -- doc/bench/service.svg: the service (rpma-load against
# rpma-server) beside bare librpma (rpma-bench) by queue depth, one column
# per operation, one pair of rows per size: ops/s, then p99 latency (log
# scale); 1 and 2 workers each.

W = 1100
H = 1400
rows = 4
cols = 3
load dir."common.gp"

kinds = "write_persist read call"
sizes = "64 4096"
sizename(s) = s == 64 ? "64 B" : "4 KiB"

set multiplot title "The service (rpma-load -> rpma-server) beside bare librpma (rpma-bench), same-host softrdma, 2 CPUs (make bench-service, medians of 3 rounds)" font ",13"
set logscale x 2
set xrange [0.7:45]
set xtics ("1" 1, "32" 32)
set xlabel "queue depth (per thread)"

do for [j = 1:2] {
	size = word(sizes, j) + 0
	do for [i = 1:3] {
		kind = word(kinds, i)
		eval cell(2 * j - 1, i)
		set title sprintf("%s, %s: ops/s", kind, sizename(size))
		set ylabel "thousand ops/s"
		unset logscale y
		set yrange [0:*]
		sel(w) = is("op", kind) && column("size") == size && column("workers") == w
		plot data using "qd":(sel(1) ? column("load_ops") / 1000. : NaN) with linespoints ls 1, \
		     data using "qd":(sel(1) ? column("bench_ops") / 1000. : NaN) with linespoints ls 2, \
		     data using "qd":(sel(2) ? column("load_ops") / 1000. : NaN) with linespoints ls 3, \
		     data using "qd":(sel(2) ? column("bench_ops") / 1000. : NaN) with linespoints ls 4
	}
	do for [i = 1:3] {
		kind = word(kinds, i)
		eval cell(2 * j, i)
		set title sprintf("%s, %s: p99 latency", kind, sizename(size))
		set ylabel "p99 (µs, log scale)"
		set logscale y
		set autoscale y
		sel(w) = is("op", kind) && column("size") == size && column("workers") == w
		plot data using "qd":(sel(1) ? column("load_p99_us") : NaN) with linespoints ls 1, \
		     data using "qd":(sel(1) ? column("bench_p99_us") : NaN) with linespoints ls 2, \
		     data using "qd":(sel(2) ? column("load_p99_us") : NaN) with linespoints ls 3, \
		     data using "qd":(sel(2) ? column("bench_p99_us") : NaN) with linespoints ls 4
	}
}
eval key_strip
plot NaN with linespoints ls 1 title "framework, 1 worker", \
     NaN with linespoints ls 2 title "bare librpma, 1 process", \
     NaN with linespoints ls 3 title "framework, 2 workers", \
     NaN with linespoints ls 4 title "bare librpma, 2 processes"
unset multiplot
