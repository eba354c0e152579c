#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-man.sh -- check a library's manual pages against its header:
# - every function the header declares has a page in MANDIR/man3/ (with
#   --exact, every man3 page also documents a function of the header),
# - the overview page lists every man3 page and every other page in its
#   SEE ALSO section, and every other page exists,
# - every page starts with the SPDX line and renders without warnings.
# Exits 1, naming each problem, if any check fails.
#
# usage: check-man.sh MANDIR HEADER PREFIX TYPES OVERVIEW [--exact] [PAGE...]
#   HEADER    the header, or several separated by spaces (rpmaf.h and its
#             parts), whose functions are checked together
#   PREFIX    the functions' prefix (rpma_, rpmem_)
#   TYPES     the return types of the functions, an extended regular
#             expression ('int|const char \*')
#   OVERVIEW  the overview page, relative to MANDIR (man7/librpma.7)
#   PAGE      another page the overview lists, relative to MANDIR (man8/rpmemd.8)

if [ $# -lt 5 ]; then
	echo "usage: check-man.sh MANDIR HEADER PREFIX TYPES OVERVIEW [--exact] [PAGE...]" >&2
	exit 2
fi
MANDIR=$1
HEADER=$2
PREFIX=$3
TYPES=$4
OVERVIEW=$5
shift 5
EXACT=0
if [ "${1:-}" = "--exact" ]; then
	EXACT=1
	shift
fi
SPDX='.\" SPDX-License-Identifier: BSD-3-Clause'

fail=0
problem() {
	echo "check-man: $*" >&2
	fail=1
}

for h in $HEADER; do
	if [ ! -f "$h" ]; then
		echo "check-man: header not found: $h" >&2
		exit 1
	fi
done
if ! command -v man >/dev/null 2>&1; then
	echo "check-man: man(1) is not installed" >&2
	exit 1
fi

# the functions (with or without a space between the return type and the name)
# shellcheck disable=SC2086 # HEADER is a list of files
funcs=$(grep -ohE "^($TYPES) ?${PREFIX}[a-z0-9_]+\(" $HEADER |
	sed -E "s/^.*(${PREFIX}[a-z0-9_]+)\(\$/\1/" | sort -u)
if [ -z "$funcs" ]; then
	problem "no functions found in $HEADER"
fi

for f in $funcs; do
	if [ ! -f "$MANDIR/man3/$f.3" ]; then
		problem "missing man page for $f (expected man3/$f.3)"
	fi
done

if [ $EXACT -eq 1 ]; then
	for page in "$MANDIR"/man3/*.3; do
		[ -f "$page" ] || continue
		name=$(basename "$page" .3)
		if ! echo "$funcs" | grep -qx "$name"; then
			problem "man3/$name.3 documents no function of $HEADER"
		fi
	done
fi

# listed -- whether the overview's SEE ALSO names page $1 of section $2
listed() {
	grep -qE "^\.BR $1 \($2\),?\$" "$MANDIR/$OVERVIEW"
}

if [ ! -f "$MANDIR/$OVERVIEW" ]; then
	problem "missing overview page $OVERVIEW"
else
	for page in "$MANDIR"/man3/*.3; do
		[ -f "$page" ] || continue
		name=$(basename "$page" .3)
		listed "$name" 3 || problem "$OVERVIEW does not list $name(3) in SEE ALSO"
	done
	for other in "$@"; do
		name=$(basename "$other")
		listed "${name%.*}" "${name##*.}" ||
			problem "$OVERVIEW does not list ${name%.*}(${name##*.}) in SEE ALSO"
	done
fi
for other in "$@"; do
	[ -f "$MANDIR/$other" ] || problem "missing page $other"
done

# check_page -- page $1 starts with the SPDX line and renders without warnings
check_page() {
	[ -f "$1" ] || return 0
	rel=${1#"$MANDIR"/}
	if [ "$(head -n 1 "$1")" != "$SPDX" ]; then
		problem "$rel does not start with the SPDX license line"
	fi
	out=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
	status=$?
	if [ $status -ne 0 ] || [ -n "$out" ]; then
		problem "$rel does not render cleanly (exit $status):"
		printf '%s\n' "$out" | sed 's/^/    /' >&2
	fi
}

check_page "$MANDIR/$OVERVIEW"
for other in "$@"; do
	check_page "$MANDIR/$other"
done
for page in "$MANDIR"/man3/*.3; do
	check_page "$page"
done

if [ $fail -ne 0 ]; then
	echo "check-man: FAILED" >&2
	exit 1
fi
echo "check-man: OK ($(echo "$funcs" | wc -l) functions, all pages render without warnings)"
exit 0
