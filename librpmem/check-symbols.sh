#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-symbols.sh LIB HEADER -- librpmem must export exactly the functions
# its header declares (PMDK's librpmem 1.11 API), each under LIBRPMEM_1.0,
# with the SONAME librpmem.so.1, as Debian's libpmemobj expects.
set -euo pipefail
lib=$1
header=$2
declared=$(grep -oE '^[a-zA-Z].*[ *]rpmem_[a-z_]+\(' "$header" | grep -oE 'rpmem_[a-z_]+\(' |
	tr -d '(' | sed 's/$/@@LIBRPMEM_1.0/' | sort -u)
exported=$(readelf --dyn-syms -W "$lib" |
	awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" {print $8}' | sort -u)
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
status=0
if [ "$declared" != "$exported" ]; then
	echo "librpmem: exported symbols (>) differ from the header's (<):"
	diff <(echo "$declared") <(echo "$exported") || true
	status=1
fi
[ "$soname" = "librpmem.so.1" ] || { echo "unexpected SONAME: $soname"; status=1; }
[ $status -eq 0 ] && echo "librpmem symbols: $(echo "$exported" | wc -l) exported, all declared, all LIBRPMEM_1.0"
exit $status
