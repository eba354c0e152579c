#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpma-config.sh BIN -- the rpma-config tool: help and usage errors,
# check and dump of every example, dump output that reloads to the same
# text, --set, --no-file-checks, error messages and exit statuses.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect NAME STATUS CMD... -- CMD exits with STATUS; its output is in $tmp/out, $tmp/err
expect() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then
		return 0
	fi
	echo "FAIL $name: exit $got, expected $want"
	sed 's/^/    /' "$tmp/err" | head -5
	failed=$((failed + 1))
	return 1
}

# has NAME FILE TEXT -- FILE holds the line TEXT
has() {
	if grep -qxF -- "$3" "$2"; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: no line \"$3\" in:"
		sed 's/^/    /' "$2" | head -10
		failed=$((failed + 1))
	fi
}

expect help 0 "$bin" --help && has help "$tmp/out" "commands:"
# --version: the name and the Makefile's VERSION, with the git revision when built from git
version=$(sed -n 's/^VERSION_\(MAJOR\|MINOR\|PATCH\) := //p' "$(dirname "$0")/../../Makefile" | paste -sd.)
expect version 0 "$bin" --version &&
	if grep -qxE "rpma-config $version( \(git [^)]+\))?" "$tmp/out"; then
		passed=$((passed + 1))
	else
		echo "FAIL version: not \"rpma-config $version\": $(cat "$tmp/out")"
		failed=$((failed + 1))
	fi
expect help-word 0 "$bin" help && has help-word "$tmp/out" "exit status: 0 valid, 1 invalid, 2 wrong usage"
expect no-args 2 "$bin" && has no-args "$tmp/err" "rpma-config: a command and a FILE are needed"
expect bad-command 2 "$bin" lint x.yaml && has bad-command "$tmp/err" "rpma-config: unknown command: lint"
expect bad-option 2 "$bin" --frobnicate check x.yaml &&
	has bad-option "$tmp/err" "rpma-config: unknown option: --frobnicate"
expect bad-short 2 "$bin" -x check x.yaml && has bad-short "$tmp/err" "rpma-config: unknown option: -x"
expect set-missing 2 "$bin" check x.yaml --set && has set-missing "$tmp/err" "rpma-config: a value is needed after: --set"
expect extra-arg 2 "$bin" check a.yaml b.yaml && has extra-arg "$tmp/err" "rpma-config: too many arguments"

# rpmemd.yaml names the directory of an installed daemon (/var/lib/rpmemd/pools),
# which a build host does not have: it is checked with a private one of the test's
mkdir -m 700 "$tmp/pools"
for f in config/examples/*.yaml; do
	name=$(basename "$f")
	over=()
	[ "$name" = rpmemd.yaml ] && over=(--set "rpmem.poolset_dir=$tmp/pools")
	if expect "check $name" 0 "$bin" check "${over[@]}" "$f" &&
		grep -q "^$f: valid: " "$tmp/out"; then
		passed=$((passed + 1))
	else
		echo "FAIL check $name: no summary line"
		failed=$((failed + 1))
	fi
	expect "dump $name" 0 "$bin" dump "${over[@]}" "$f" || continue
	cp "$tmp/out" "$tmp/dump1.yaml"
	if expect "redump $name" 0 "$bin" dump "$tmp/dump1.yaml" && cmp -s "$tmp/out" "$tmp/dump1.yaml"; then
		passed=$((passed + 1))
	else
		echo "FAIL redump $name: the dump of the dump differs"
		failed=$((failed + 1))
	fi
done

expect summary 0 "$bin" check config/examples/demo.yaml &&
	has summary "$tmp/out" "config/examples/demo.yaml: valid: 2 workers, 5 connections per worker, 1 target, 1 region, listening"
expect set-dump 0 "$bin" dump --set workers.count=4 -s 'queues.sq=32' config/examples/demo.yaml &&
	has set-dump "$tmp/out" "  count: 4" && has set-dump-cq "$tmp/out" "  cq: 96"

printf 'workers:\n  count: 2\n  cont: 3\n' >"$tmp/bad.yaml"
expect invalid 1 "$bin" check "$tmp/bad.yaml" &&
	has invalid "$tmp/err" "$tmp/bad.yaml:3:3: workers.cont: unknown key (did you mean count? one of count, cpus, polling, spin_us, batch)"
expect bad-set 1 "$bin" check --set workers.polling=bussy config/examples/minimal.yaml &&
	has bad-set "$tmp/err" "--set workers.polling=bussy: workers.polling: unknown value \"bussy\" (did you mean busy? one of busy, adaptive, event)"
expect missing 1 "$bin" dump "$tmp/nope.yaml" &&
	has missing "$tmp/err" "$tmp/nope.yaml: cannot open: No such file or directory (a readable configuration file)"

printf 'regions: [{name: r, size: 4K, backing: {file: %s/absent}}]\n' "$tmp" >"$tmp/files.yaml"
expect file-checks 1 "$bin" check "$tmp/files.yaml" &&
	has file-checks "$tmp/err" "$tmp/files.yaml:1:47: regions[0].backing.file: \"$tmp/absent\" does not exist (an existing file, or create: true)"
expect no-file-checks 0 "$bin" check --no-file-checks "$tmp/files.yaml" &&
	has no-file-checks "$tmp/out" "$tmp/files.yaml: valid: 1 worker, 1 connection per worker, 0 targets, 1 region"
if [ -w /dev/full ]; then
	"$bin" dump config/examples/minimal.yaml >/dev/full 2>"$tmp/err"
	if [ $? -eq 1 ] && grep -q "cannot write the configuration" "$tmp/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL full: a dump to a full device does not fail"
		failed=$((failed + 1))
	fi
fi

echo "rpma-config: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
