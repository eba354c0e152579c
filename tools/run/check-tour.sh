#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-tour.sh -- run the commands of the README's "A five-minute tour" as
# written, in order, in one shell with job control (the tour stops its
# server with `kill -TERM %1`): each must exit 0. The commands are the
# indented lines of that section (a trailing backslash joins a line to the
# next); comments after them stay, as a reader would paste them.
# Run from the top directory, after make run (or the tools it builds).
set -euo pipefail

readme=${1:-README.md}
script=$(mktemp)
log=$(mktemp)
cleanup() {
	rm -f "$script" "$log" /tmp/rpma-demo.pmem
	# the tour's server, should the script have stopped before it did
	[ -n "${shell_pid:-}" ] && pkill -TERM -P "$shell_pid" 2>/dev/null || true
}
trap cleanup EXIT

# the tour's commands: lines indented by 7 or more spaces in its section
commands=$(awk '
	/^## A five-minute tour/ { on = 1; next }
	/^## / { on = 0 }
	on && /^       +[^ ]/ {
		sub(/^ +/, "")
		line = cont ? line " " $0 : $0
		cont = sub(/ *\\$/, "", line)
		if (!cont) { print line; line = "" }
	}' "$readme")
n=$(printf '%s\n' "$commands" | grep -c .)
if [ "$n" -lt 5 ]; then
	echo "check-tour: only $n commands found in $readme's tour" >&2
	exit 1
fi

rm -f /tmp/rpma-demo.pmem
{
	echo 'set -m'
	i=0
	while IFS= read -r c; do
		i=$((i + 1))
		printf 'echo "check-tour: [%d] %s"\n' "$i" "${c//\"/\\\"}"
		printf '%s\n' "$c"
		printf 'rc=$?; [ $rc -eq 0 ] || { echo "check-tour: [%d] exited $rc"; exit 1; }\n' "$i"
		# the load must not start before the server listens
		case $c in *'&') printf 'sleep 1\n' ;; esac
	done <<<"$commands"
	echo 'wait'
} >"$script"

bash "$script" >"$log" 2>&1 &
shell_pid=$!
if ! timeout 120 tail --pid="$shell_pid" -f /dev/null || ! wait "$shell_pid"; then
	cat "$log"
	echo "check-tour: FAIL"
	exit 1
fi
grep '^check-tour: \[' "$log"
# what the tour says the commands show
claims=0
expect() {
	if ! grep -qE "$1" "$log"; then
		echo "check-tour: the tour says $2, the output does not show it"
		claims=1
	fi
}
expect '^  cq: 80$' "rpma-config dump shows queues.cq of 80 with queues.sq=16"
expect 'records good, 0 bad' "--verify-file finds the records good"
expect 'verify: .* 0 bad' "--verify reads every record back good"
[ $claims -eq 0 ] || { echo "check-tour: FAIL"; exit 1; }
echo "check-tour: $n commands of the README's tour ran as written: 1 passed, 0 failed"
