# SPDX-License-Identifier: BSD-3-Clause
#
# scale-loaded.gp -- doc/bench/scale-loaded.svg: the framework's workers
# against bare librpma threads on a loaded machine, ops/s by connections on
# one thread (left, log scale) and by threads (right).

W = 1000
H = 460
rows = 1
cols = 2
load dir."common.gp"

set multiplot title "Workers against bare librpma, 64-byte writes, 2 CPUs with a background test loop (make bench-rpmaf, one run)" font ",13"
set yrange [0:*]
set ylabel "thousand ops/s"

eval cell(1, 1)
set title "connections on one thread"
set logscale x 10
set xrange [0.7:1500]
set xlabel "connections (log scale)"
plot data using "n":(is("axis", "conns") ? column("workers_ops") / 1000. : NaN) with linespoints ls 1, \
     data using "n":(is("axis", "conns") ? column("bare_ops") / 1000. : NaN) with linespoints ls 2

eval cell(1, 2)
set title "threads"
unset logscale x
set xrange [0.8:2.2]
set xtics 1
set xlabel "threads"
plot data using "n":(is("axis", "threads") ? column("workers_ops") / 1000. : NaN) with linespoints ls 1, \
     data using "n":(is("axis", "threads") ? column("bare_ops") / 1000. : NaN) with linespoints ls 2

eval key_strip
plot NaN with linespoints ls 1 title "workers (1 shared CQ; 10 connections a thread)", \
     NaN with linespoints ls 2 title "bare librpma (a CQ per connection; 1 connection a thread)"
unset multiplot
