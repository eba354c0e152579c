#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# gen-versions.sh REAL_LIB OUT_MAP OUT_SYMVER_H
#
# Derives a linker version script and a list of non-default (compat) symbol
# versions from an installed shared library, using readelf.  The version
# nodes, their parents and the default symbols of each node are taken
# verbatim from the library's .gnu.version_d and .dynsym sections.
set -eu
. "$(dirname "$0")/elf-nodes.sh"

lib=$1
map=$2
hdr=$3

[ -r "$lib" ] || { echo "gen-versions: cannot read $lib" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Version nodes in definition order with their parents ("NODE PARENT|-").
list_nodes "$lib" > "$tmp/nodes"

# Defined dynamic symbols: "NAME VERSION default|compat".
readelf --dyn-syms -W "$lib" | awk '
	$7 == "UND" || $7 == "Ndx" { next }
	$5 != "GLOBAL" && $5 != "WEAK" { next }
	$4 == "OBJECT" && $8 !~ /@/ { next }
	{
		s = $8
		if (index(s, "@@")) { split(s, a, "@@"); print a[1], a[2], "default" }
		else if (index(s, "@")) { split(s, a, "@"); print a[1], a[2], "compat" }
	}
' | awk '$1 != $2' > "$tmp/syms"

[ -s "$tmp/nodes" ] || { echo "gen-versions: no version nodes in $lib" >&2; exit 1; }

{
	echo "/* Generated from $lib by gen-versions.sh; do not edit. */"
	first=1
	while read -r node parent; do
		echo "$node {"
		syms=$(awk -v n="$node" '$2 == n && $3 == "default" { print "\t\t" $1 ";" }' \
			"$tmp/syms")
		if [ -n "$syms" ]; then
			echo "\tglobal:"
			echo "$syms"
		fi
		if [ $first -eq 1 ]; then
			echo "\tlocal: softrdma*;"
			first=0
		fi
		if [ "$parent" = "-" ]; then
			echo "};"
		else
			echo "} $parent;"
		fi
	done < "$tmp/nodes"
} > "$map"

{
	echo "/* Generated from $lib by gen-versions.sh; do not edit. */"
	awk '$3 == "compat" { printf "SOFTRDMA_COMPAT(%s, \"%s\")\n", $1, $2 }' "$tmp/syms"
} > "$hdr"
