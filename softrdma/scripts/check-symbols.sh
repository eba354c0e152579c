#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-symbols.sh REAL_LIB OUR_LIB
#
# Compares the exported symbols (name, version, default or compat) and the
# version definition tree of our replacement library with the installed one.
# Any difference fails the build.
set -eu

real=$1
ours=$2

# Print "NAME@VERSION" or "NAME@@VERSION" for each defined dynamic symbol.
list_syms() {
	readelf --dyn-syms -W "$1" | awk '
		$7 == "UND" || $7 == "Ndx" { next }
		$5 != "GLOBAL" && $5 != "WEAK" { next }
		$8 ~ /@/ { print $8 }
	' | sort -u
}

# list_nodes LIB: the version definitions as "NODE PARENT"
. "$(dirname "$0")/elf-nodes.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
list_syms "$real" > "$tmp/real.syms"
list_syms "$ours" > "$tmp/ours.syms"
list_nodes "$real" > "$tmp/real.nodes"
list_nodes "$ours" > "$tmp/ours.nodes"

rc=0
if ! diff -u "$tmp/real.nodes" "$tmp/ours.nodes" > "$tmp/nodes.diff"; then
	echo "check-symbols: version nodes of $ours differ from $real:" >&2
	cat "$tmp/nodes.diff" >&2
	rc=1
fi
if ! diff -u "$tmp/real.syms" "$tmp/ours.syms" > "$tmp/syms.diff"; then
	echo "check-symbols: exported symbols of $ours differ from $real:" >&2
	cat "$tmp/syms.diff" >&2
	rc=1
fi
# Unversioned exported functions would bind to the wrong ABI.
extra=$(readelf --dyn-syms -W "$ours" | awk '$7 != "UND" && $7 != "Ndx" &&
	($5 == "GLOBAL" || $5 == "WEAK") && $8 !~ /@/ && $4 == "FUNC" { print $8 }')
if [ -n "$extra" ]; then
	echo "check-symbols: unversioned exports in $ours: $extra" >&2
	rc=1
fi
[ $rc -eq 0 ] && echo "check-symbols: $(wc -l < "$tmp/ours.syms") symbols of $(basename "$ours") match"
exit $rc
