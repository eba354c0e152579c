#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# smoke.sh BENCH -- run rpmaf-bench's modes briefly over softrdma: each must
# exit 0 and print every line of its table. The figures are not looked at.
#   TIMEOUT   seconds one run may take (default 120)
set -u
bench=$1
here=$(cd "$(dirname "$0")" && pwd)
timeout=${TIMEOUT:-120}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0

# run NAME ROWS ARGS... -- one run; ROWS are the first words of the table lines it must print
run() {
	name=$1 rows=$2
	shift 2
	if ! timeout -k 5 "$timeout" "$here/../softrdma-run" "$bench" "$@" >"$out" 2>&1; then
		echo "rpmaf-bench smoke: $name: exit status not 0:"
		sed 's/^/    /' "$out"
		failed=1
		return
	fi
	for r in $rows; do
		# a row: its first word, then two rates and their ratio
		if ! grep -q -E "^ *$r +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+$" "$out"; then
			echo "rpmaf-bench smoke: $name: no table line for $r:"
			sed 's/^/    /' "$out"
			failed=1
			return
		fi
	done
	echo "rpmaf-bench smoke: $name: ok"
}

run "scale N=1,10" "1 10" scale --conns 1,10 --seconds 0.3
run "threads N=1" "1 2" threads --conns 1 --seconds 0.3
run "threads N=10" "1 2" threads --conns 10 --seconds 0.3
run "overhead N=10" "write read" overhead --ops 10
run "overhead N=100 D=32" "write read" overhead --ops 100 --depth 32
exit $failed
