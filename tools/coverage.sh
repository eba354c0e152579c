#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# coverage.sh OBJDIR MIN SRC... -- line coverage of the given sources from the
# gcov data in OBJDIR (the object of DIR/NAME.c is OBJDIR/DIR/NAME.o): prints
# each file's figure and the total, and fails when the total is below MIN
# percent (0: a figure only).
set -euo pipefail
objdir=$1
min=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0
covered=0
printf '%-28s %8s %8s %7s\n' file lines covered percent
for src in "$@"; do
	base=$(basename "$src" .c)
	obj=$objdir/$(dirname "$src")
	if [ ! -f "$obj/$base.gcda" ]; then
		lines=$(cd "$tmp" && gcov -n -o "$OLDPWD/$obj" "$OLDPWD/$src" 2>/dev/null |
			awk '/^Lines executed/ {split($0, a, " of "); print a[2]; exit}')
		lines=${lines:-0}
		cov=0
	else
		out=$(cd "$tmp" && gcov -n -o "$OLDPWD/$obj" "$OLDPWD/$src" 2>/dev/null |
			awk -v f="$src" '$0 ~ "^File .*"f"'"'"'" {hit=1; next}
				hit && /^Lines executed/ {sub("Lines executed:", ""); print; exit}')
		pct=${out%%%*}
		lines=${out##* of }
		cov=$(awk -v p="$pct" -v n="$lines" 'BEGIN {printf "%d", p * n / 100 + 0.5}')
	fi
	total=$((total + lines))
	covered=$((covered + cov))
	printf '%-28s %8d %8d %6.2f%%\n' "$(basename "$src")" "$lines" "$cov" \
		"$(awk -v c="$cov" -v n="$lines" 'BEGIN {print n ? 100 * c / n : 100}')"
done
pct=$(awk -v c="$covered" -v n="$total" 'BEGIN {printf "%.2f", n ? 100 * c / n : 0}')
echo "TOTAL line coverage of $(printf '%s\n' "$@" | xargs -n1 dirname | sort -u | paste -sd' '): $covered/$total = $pct%"
awk -v p="$pct" -v m="$min" 'BEGIN {exit !(p >= m)}' || {
	echo "coverage $pct% is below the required $min%"
	exit 1
}
