#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-symbols.sh LIB HEADER [MAP] -- the shared library must export exactly
# the functions the public header declares, each under the version node the
# linker map (default: librpma/src/librpma.map beside the header) lists it
# in, and the released nodes must still hold what they held when released.
set -euo pipefail
lib=$1
header=$2
map=${3:-$(dirname "$header")/../src/librpma.map}

# released nodes never change: the sha256 of each one's sorted symbol list
declare -A released=(
	[LIBRPMA_1.0]=c1697a4d2bdc952475d2ebd3fdac8e5811ec6a874c345446dcb35e4488e3ab5c
)

declared=$(grep -oE '^(int|const char \*|void) ?\*?rpma_[a-z0-9_]+\(' "$header" |
	grep -oE 'rpma_[a-z0-9_]+' | sort -u)
exported=$(readelf --dyn-syms -W "$lib" | awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" {print $8}' |
	sort -u)
# "name@@NODE" for every symbol the map exports
expected=$(awk '/^[A-Za-z0-9_.]+ *\{/ {node = $1; sub(/\{.*/, "", node); next}
	/^\}/ {node = ""; next}
	node != "" && /^[ \t]*rpma_[a-z0-9_]+;/ {gsub(/[ \t;]/, ""); print $0 "@@" node}' "$map" | sort -u)
nodes=$(echo "$expected" | sed 's/.*@@//' | sort -u)
names=$(echo "$exported" | sed 's/@.*//' | sort -u)
status=0

[ -n "$expected" ] || { echo "no exported symbol found in $map"; exit 1; }
in_two=$(echo "$expected" | sed 's/@@.*//' | sort | uniq -d)
[ -z "$in_two" ] || { echo "listed in more than one node of $map:"; echo "$in_two"; status=1; }
bad_version=$(comm -23 <(echo "$exported") <(echo "$expected"))
[ -z "$bad_version" ] || {
	echo "exported under another version than the node $map lists it in:"
	echo "$bad_version"
	status=1
}
missing=$(comm -23 <(echo "$declared") <(echo "$names"))
extra=$(comm -13 <(echo "$declared") <(echo "$names"))
[ -z "$missing" ] || { echo "declared but not exported:"; echo "$missing"; status=1; }
[ -z "$extra" ] || { echo "exported but not declared:"; echo "$extra"; status=1; }
for node in "${!released[@]}"; do
	sum=$(echo "$expected" | sed -n "s/@@${node//./\\.}\$//p" | sort | sha256sum | cut -d' ' -f1)
	[ "$sum" = "${released[$node]}" ] || {
		echo "the released node $node changed; new symbols go into a new node"
		status=1
	}
done
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "librpma.so.1" ] || { echo "unexpected SONAME: $soname"; status=1; }
if [ $status -eq 0 ]; then
	per_node=$(for n in $nodes; do echo "$n $(echo "$expected" | grep -c "@@$n\$")"; done)
	echo "symbols: $(echo "$names" | wc -l) exported, all declared, each in its node" \
		"($(echo "$per_node" | paste -sd, | sed 's/,/, /g'))"
fi
exit $status
