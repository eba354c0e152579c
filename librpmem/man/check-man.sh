#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-man.sh -- check the manual pages of librpmem and rpmemd:
# - every function declared in librpmem/include/librpmem.h has a page in man3/,
#   and every page of man3/ names a function of the header,
# - librpmem.7 lists every man3 page and rpmemd(8) in its SEE ALSO section,
# - man8/rpmemd.8 exists,
# - every page starts with the SPDX line and renders without warnings.
# Exits 1, naming each problem, if any check fails.

MANDIR=$(cd "$(dirname "$0")" && pwd)
HEADER="$MANDIR/../include/librpmem.h"
OVERVIEW="$MANDIR/man7/librpmem.7"
DAEMON="$MANDIR/man8/rpmemd.8"
SPDX='.\" SPDX-License-Identifier: BSD-3-Clause'

fail=0
problem() {
	echo "check-man: $*" >&2
	fail=1
}

if [ ! -f "$HEADER" ]; then
	echo "check-man: header not found: $HEADER" >&2
	exit 1
fi
if ! command -v man >/dev/null 2>&1; then
	echo "check-man: man(1) is not installed" >&2
	exit 1
fi

# functions returning int, const char * or RPMEMpool * (with or without a space before the name)
funcs=$(grep -oE '^(int|const char \*|RPMEMpool \*) ?rpmem_[a-z0-9_]+\(' "$HEADER" |
	sed -E 's/^.*(rpmem_[a-z0-9_]+)\($/\1/' | sort -u)
if [ -z "$funcs" ]; then
	problem "no functions found in $HEADER"
fi

for f in $funcs; do
	if [ ! -f "$MANDIR/man3/$f.3" ]; then
		problem "missing man page for $f (expected man3/$f.3)"
	fi
done

for page in "$MANDIR"/man3/*.3; do
	[ -f "$page" ] || continue
	name=$(basename "$page" .3)
	if ! echo "$funcs" | grep -qx "$name"; then
		problem "man3/$name.3 documents no function of $(basename "$HEADER")"
	fi
done

if [ ! -f "$DAEMON" ]; then
	problem "missing page of the daemon man8/rpmemd.8"
fi

if [ ! -f "$OVERVIEW" ]; then
	problem "missing overview page man7/librpmem.7"
else
	for page in "$MANDIR"/man3/*.3; do
		[ -f "$page" ] || continue
		name=$(basename "$page" .3)
		if ! grep -qE "^\.BR $name \(3\),?$" "$OVERVIEW"; then
			problem "man7/librpmem.7 does not list $name(3) in SEE ALSO"
		fi
	done
	if ! grep -qE '^\.BR rpmemd \(8\),?$' "$OVERVIEW"; then
		problem "man7/librpmem.7 does not list rpmemd(8) in SEE ALSO"
	fi
fi

for page in "$OVERVIEW" "$DAEMON" "$MANDIR"/man3/*.3; do
	[ -f "$page" ] || continue
	rel=${page#"$MANDIR"/}
	if [ "$(head -n 1 "$page")" != "$SPDX" ]; then
		problem "$rel does not start with the SPDX license line"
	fi
	out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	status=$?
	if [ $status -ne 0 ] || [ -n "$out" ]; then
		problem "$rel does not render cleanly (exit $status):"
		printf '%s\n' "$out" | sed 's/^/    /' >&2
	fi
done

if [ $fail -ne 0 ]; then
	echo "check-man: FAILED" >&2
	exit 1
fi
echo "check-man: OK ($(echo "$funcs" | wc -l) functions, all pages render without warnings)"
exit 0
