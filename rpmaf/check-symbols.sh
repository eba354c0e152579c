#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-symbols.sh LIB HEADER... -- librpmaf must export exactly the functions
# its public header (rpmaf.h and its parts) declares, each under a version node of rpmaf.map
# (RPMAF_1.0, or RPMAF_1.1 to RPMAF_1.3 for what came later), with the SONAME
# librpmaf.so.1.
set -euo pipefail
lib=$1
shift
declared=$(grep -ohE '^[a-z][a-z0-9_ *]*[ *]rpmaf_[a-z0-9_]+\(' "$@" |
	grep -oE 'rpmaf_[a-z0-9_]+' | sort -u)
exported=$(readelf --dyn-syms -W "$lib" |
	awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" {print $8}' | sort -u)
bad_version=$(echo "$exported" | grep -vE '@@RPMAF_1\.[0-3]$' || true)
names=$(echo "$exported" | sed 's/@.*//' | sort -u)
status=0
if [ -n "$bad_version" ]; then
	echo "exported without an RPMAF_1.0 to RPMAF_1.3 version:"; echo "$bad_version"; status=1
fi
missing=$(comm -23 <(echo "$declared") <(echo "$names"))
extra=$(comm -13 <(echo "$declared") <(echo "$names"))
[ -z "$missing" ] || { echo "declared but not exported:"; echo "$missing"; status=1; }
[ -z "$extra" ] || { echo "exported but not declared:"; echo "$extra"; status=1; }
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "librpmaf.so.1" ] || { echo "unexpected SONAME: $soname"; status=1; }
[ $status -eq 0 ] && echo "rpmaf symbols: $(echo "$names" | wc -l) exported, all declared, all versioned"
exit $status
