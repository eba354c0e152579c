#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-tools-man.sh -- check the manual page of a program against the
# program itself:
# - the page starts with the SPDX line and renders without warnings (man(1)
#   and groff -ww, as tools/check-man.sh does for the libraries' pages);
# - with --help PROGRAM: every option PROGRAM --help prints (-x, --long) is
#   named in the page;
# - with --env REGEX FILE...: every environment variable the sources FILE
#   read, each match of the extended regular expression REGEX with its
#   quotes, '$' or '${' taken off, is named in the page.
# Exits 1, naming each problem, if any check fails.
#
# usage: check-tools-man.sh PAGE [--help PROGRAM] [--env REGEX FILE...]

if [ $# -lt 1 ]; then
	echo "usage: check-tools-man.sh PAGE [--help PROGRAM] [--env REGEX FILE...]" >&2
	exit 2
fi
PAGE=$1
shift
SPDX='.\" SPDX-License-Identifier: BSD-3-Clause'

fail=0
problem() {
	echo "check-tools-man: $PAGE: $*" >&2
	fail=1
}

if [ ! -f "$PAGE" ]; then
	echo "check-tools-man: no such page: $PAGE" >&2
	exit 1
fi
for tool in man groff col; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "check-tools-man: $tool is not installed" >&2
		exit 1
	fi
done

[ "$(head -n 1 "$PAGE")" = "$SPDX" ] || problem "does not start with the SPDX license line"
out=$(MANWIDTH=80 man --warnings -l "$PAGE" 2>&1 >/dev/null)
status=$?
out2=$(groff -man -Tutf8 -ww -z "$PAGE" 2>&1)
if [ $status -ne 0 ] || [ -n "$out" ] || [ -n "$out2" ]; then
	problem "does not render cleanly (exit $status):"
	printf '%s\n%s\n' "$out" "$out2" | sed '/^$/d; s/^/    /' >&2
fi

# the page as plain ASCII text: \- and - both print as -
text=$(groff -man -Tascii "$PAGE" 2>/dev/null | col -b)

# named WORD -- whether the page's text has WORD, not as part of a longer word
named() {
	printf '%s\n' "$text" | grep -qE -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)"
}

nchecked=0
while [ $# -gt 0 ]; do
	case $1 in
	--help)
		[ $# -ge 2 ] || { echo "check-tools-man: --help needs a PROGRAM" >&2; exit 2; }
		help=$("$2" --help 2>&1) || problem "$2 --help failed"
		opts=$(printf '%s\n' "$help" |
			grep -oE -- '(^|[][ ,|(])(--[a-z][a-z0-9-]*|-[A-Za-z])([] =,|)]|$)' |
			grep -oE -- '--?[A-Za-z][a-z0-9-]*' | sort -u)
		[ -n "$opts" ] || problem "$2 --help names no option"
		for o in $opts; do
			nchecked=$((nchecked + 1))
			named "$o" || problem "option $o of $2 --help is not in the page"
		done
		shift 2
		;;
	--env)
		[ $# -ge 3 ] || { echo "check-tools-man: --env needs a REGEX and a FILE" >&2; exit 2; }
		regex=$2
		shift 2
		files=
		while [ $# -gt 0 ] && [ "$1" != --help ] && [ "$1" != --env ]; do
			files="$files $1"
			shift
		done
		# shellcheck disable=SC2086
		vars=$(grep -ohE -- "$regex" $files | tr -d "\"\${" | sort -u)
		[ -n "$vars" ] || problem "no variable matches $regex in$files"
		for v in $vars; do
			nchecked=$((nchecked + 1))
			# shellcheck disable=SC2086
			named "$v" || problem "variable $v (read in $(grep -lF -- "$v" $files |
				tr '\n' ' ')) is not in the page"
		done
		;;
	*)
		echo "check-tools-man: unknown argument: $1" >&2
		exit 2
		;;
	esac
done

if [ $fail -ne 0 ]; then
	echo "check-tools-man: $PAGE: FAILED" >&2
	exit 1
fi
echo "check-tools-man: $PAGE: OK ($nchecked options and variables named, renders without warnings)"
exit 0
