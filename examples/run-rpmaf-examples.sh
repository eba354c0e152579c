#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-rpmaf-examples.sh [BIN_DIR] -- run the framework's examples
# (examples/NN-rpmaf-name) over softrdma on 127.0.0.1 and check what they
# print, how they exit and what they leave in their region files:
#   16-rpmaf-client        against tools/rpma-server; the region file holds the text
#   17-rpmaf-call-handler  its client against its server; the server's count
#   18-rpmaf-kvstore       --verify (gets racing puts), the same with a client
#                          whose get ignores the version (it must fail; only
#                          when BIN_DIR has it), a server restart, --verify
#                          --check-only (the data persisted in the region
#                          file), a short --load
# BIN_DIR defaults to build/examples; it holds NN-rpmaf-name/{client,server}
# and, built by examples/examples.mk only, 18-rpmaf-kvstore/client-ignore-version,
# the client with the planted bug ($EXAMPLES_NEED_PLANTED=1: its absence is a
# failure). RPMA_SERVER names another rpma-server than build/tools/rpma-server,
# SOFTRDMA_RUN another softrdma-run than the tree's (both installed ones).
# Every program runs under timeout ($EXAMPLES_TIMEOUT seconds, default 60).
# The ports are picked at random in 20000-31999 ($EXAMPLES_RPMAF_PORT sets
# the first). Prints PASS or FAIL per example and "N passed, M failed";
# exits 1 when anything failed.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${1:-$ROOT/build/examples}" && pwd) || exit 1
RUN=${SOFTRDMA_RUN:-"$ROOT/tools/softrdma-run"}
SERVER_TOOL=${RPMA_SERVER:-"$ROOT/build/tools/rpma-server"}
NEED_PLANTED=${EXAMPLES_NEED_PLANTED:-0}
TIMEOUT=${EXAMPLES_TIMEOUT:-60}
PORT=${EXAMPLES_RPMAF_PORT:-$((20000 + (RANDOM % 400) * 30))}

# shellcheck source=examples/run-lib.sh
. "$ROOT/examples/run-lib.sh"

rl_init rpmaf-examples

# next_port -- a port of its own for the next server
next_port() {
	PORT=$((PORT + 1))
}

# wait_for FILE TEXT PID -- wait (10 s at most) until FILE holds TEXT while PID runs
wait_for() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	echo "  no '$2' in $(basename "$1")"
	return 1
}

# bg_start OUT CMD ARGS... -- CMD over softrdma in the background (SRV_PID), output in OUT
bg_start() {
	local out=$1
	shift
	timeout -k 5 "$TIMEOUT" "$RUN" "$@" >"$out" 2>&1 &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
}

# bg_stop WHAT -- SIGTERM the background server; it must exit 0
bg_stop() {
	local rc
	kill -TERM "$SRV_PID" 2>/dev/null
	wait "$SRV_PID"
	rc=$?
	rl_expect_rc "$1" "$rc"
}

# lines FILE LINE... -- FILE holds every LINE (fixed strings)
lines() {
	local file=$1 ok=0
	shift
	exp_check_lines "$file" "$(printf '%s\n' "$@")" || ok=1
	return $ok
}

# cli NAME TAG ARGS... -- run example NAME's client against $PORT, again while it
# could not connect; output in TAG.out; its exit code
cli() {
	local name=$1 tag=$2
	shift 2
	rl_retry rl_run "$WORK/$tag.out" "$BIN/$name/client" "$ADDR" "$PORT" "$@"
}

# ex_16 -- the client writes, persists and reads region data of rpma-server
ex_16() {
	local name=16-rpmaf-client ok=0 text="hello from example 16"
	next_port
	cat >"$WORK/16.yaml" <<YAML
workers: {count: 1, polling: adaptive}
listen: {address: $ADDR, port: $PORT, max_connections: 4}
regions:
  - {name: data, size: 64K, backing: {file: $WORK/16.pmem, create: true}}
YAML
	bg_start "$WORK/16.server.out" "$SERVER_TOOL" -c "$WORK/16.yaml"
	wait_for "$WORK/16.server.out" "listening on" "$SRV_PID" || return 1
	cli "$name" 16.client data "$text" || ok=1
	lines "$WORK/16.client.out" "client: wrote '$text' to region data (server persisted)" || ok=1
	cli "$name" 16.missing nosuch "$text" && ok=1 # a region the server does not have
	lines "$WORK/16.missing.out" "client: nosuch: no such region" || ok=1
	bg_stop rpma-server || ok=1
	grep -qaF -- "$text" "$WORK/16.pmem" || { echo "  16.pmem does not hold '$text'"; ok=1; }
	return $ok
}

# ex_17 -- the client calls both handlers, a failing call and an unknown id
ex_17() {
	local name=17-rpmaf-call-handler ok=0
	next_port
	bg_start "$WORK/17.server.out" "$BIN/$name/server" "$ADDR" "$PORT"
	wait_for "$WORK/17.server.out" "server: listening on" "$SRV_PID" || return 1
	cli "$name" 17.client || ok=1
	lines "$WORK/17.client.out" "client: handler 1('hello handler') = 'HELLO HANDLER'" \
		"client: handler 2('1 2 3 4 30') = '40'" \
		"client: handler 2('1 two') failed as expected: the peer refused the request" \
		"client: handler 9('anyone?') failed as expected: no such" || ok=1
	bg_stop server || ok=1
	lines "$WORK/17.server.out" "server: answered 2 calls" || ok=1
	return $ok
}

# kv_server TAG [DELAY_US] -- start the KV store's server on the region file of the run
kv_server() {
	next_port
	bg_start "$WORK/18.$1.out" "$BIN/18-rpmaf-kvstore/server" "$ADDR" "$PORT" "$WORK/18.pmem" \
		4096 "${2:-0}"
	wait_for "$WORK/18.$1.out" "server: listening on" "$SRV_PID"
}

# kv_planted NAME -- the client with a planted bug (no version check) must fail
# --verify's race on the running server, on torn values; when it was not built
# (only examples/examples.mk builds it), a note, or a failure with NEED_PLANTED
kv_planted() {
	local prog=$BIN/$1/client-ignore-version
	if [ ! -x "$prog" ]; then
		echo "  no ${prog#"$BIN"/}: the planted bug is not run"
		[ "$NEED_PLANTED" = 1 ] && return 1
		return 0
	fi
	if rl_retry rl_run "$WORK/18.planted.out" "$prog" "$ADDR" "$PORT" --verify --keys 50 \
		--race-ms 1500; then
		echo "  the client that ignores the version passed"
		return 1
	fi
	grep -qE 'race: .* [1-9][0-9]* torn values' "$WORK/18.planted.out" && return 0
	echo "  the client that ignores the version read no torn value"
	return 1
}

# ex_18 -- the KV store: the client with a planted bug fails --verify's race on
# a server whose bucket changes pause half way (kv_planted); the right client
# passes it (rereads, no torn value); a restart on the same file finds the
# keys; a short load prints its figures
ex_18() {
	local name=18-rpmaf-kvstore ok=0
	kv_server server1 300 || return 1
	kv_planted "$name" || ok=1
	cli "$name" 18.verify --verify --keys 500 --race-ms 1500 || ok=1
	lines "$WORK/18.verify.out" "client: verify: 500 keys put, read back by get: all match" \
		"client: verify: 500 keys deleted, 250 put again: all match" \
		" 0 torn values" || ok=1
	grep -qE 'race: [1-9][0-9]* gets, [1-9][0-9]* puts, [1-9][0-9]* rereads' \
		"$WORK/18.verify.out" || { echo "  the race was not met (no rereads)"; ok=1; }
	bg_stop "server (first run)" || ok=1
	# the region file keeps the table: a new server serves the same keys
	kv_server server2 || return 1
	cli "$name" 18.check --verify --keys 500 --check-only || ok=1
	lines "$WORK/18.check.out" "client: verify: 500 keys checked after the restart: all match" ||
		ok=1
	cli "$name" 18.load --load --keys 200 --seconds 1 || ok=1
	lines "$WORK/18.load.out" "client: load: get" "client: load: read" "client: load: put" \
		"client: load: call" || ok=1
	bg_stop "server (second run)" || ok=1
	lines "$WORK/18.server2.out" "server: opened a table of 4096 buckets, 251 keys" || ok=1
	return $ok
}

if [ ! -x "$SERVER_TOOL" ]; then
	echo "no rpma-server at $SERVER_TOOL" >&2
	exit 1
fi
rl_need_softrdma

for ex in 16 17 18; do
	name=$(basename "$ROOT/examples/$ex"-rpmaf-*)
	if "ex_$ex"; then
		rl_pass "$name"
	else
		rl_fail "$name"
		rl_show_outputs "$WORK/$ex".*.out
	fi
	rl_reap
done

rl_summary
