# SPDX-License-Identifier: BSD-3-Clause
#
# common.gp -- what every chart of doc/bench/ shares, loaded by each chart
# script after it has set W and H (the size in pixels): an SVG terminal with
# nothing in its output that changes from one run to the next (no date, no
# file name), the colours and the reading of the data files.
#
# The caller (render.sh) sets data (the CSV) and out (the SVG) with -e.

set terminal svg size W, H fixed noenhanced font "DejaVu Sans,12" linewidth 1.2 \
	background "#ffffff"
set output out

# CSV with "#" comment lines and one header line: columns are taken by name
set datafile separator ","
set datafile commentschars "#"
set datafile columnheaders
# a row a filter leaves out (NaN) does not break the line through the others
set datafile missing NaN

# the framework (or ours) in blue, bare librpma (or the other side) in orange
blue = "#1f5fbf"
orange = "#e06c00"
green = "#2e8b3a"
purple = "#8a3fb3"

set style line 1 lc rgb blue lw 2 dt 1 pt 7 ps 0.9
set style line 2 lc rgb orange lw 2 dt 1 pt 5 ps 0.9
set style line 3 lc rgb blue lw 2 dt 2 pt 6 ps 0.9
set style line 4 lc rgb orange lw 2 dt 2 pt 4 ps 0.9
set style line 5 lc rgb green lw 2 dt 1 pt 9 ps 0.9
set style line 6 lc rgb purple lw 2 dt 1 pt 11 ps 0.9

set grid xtics ytics lc rgb "#d0d0d0" lw 1 dt 3
set border 3
set tics nomirror
set key noautotitle
set errorbars small

# is(c, v) -- the current row's column c holds the string v
is(c, v) = strcol(c) eq v

# The panels: a chart script sets rows, cols (its grid) and loads this file;
# "eval cell(r, c)" places the next plot in row r, column c (from 1, top
# left) below a strip of 80 pixels (or strip, when the script sets it) for
# the chart's title and its key, and "eval key_strip" then a plot of NaN
# with each line's style and title draws the key there.
if (!exists("strip")) strip = 80
top = 1 - strip * 1.0 / H
cell(r, c) = sprintf("set origin %.4f, %.4f; set size %.4f, %.4f", \
	(c - 1.0) / cols, top - r * top / rows, 1.0 / cols, top / rows)
key_strip = "set origin 0, top; set size 1, (strip - 32.0) / H; unset border; unset tics; " . \
	"unset grid; unset xlabel; unset ylabel; unset title; unset logscale; " . \
	"set xrange [0:1]; set yrange [0:1]; set key center center horizontal samplen 3 width 2"
set lmargin 10
set rmargin 3
set tmargin 2.5
set bmargin 4
