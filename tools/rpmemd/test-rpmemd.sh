#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-rpmemd.sh BIN -- the rpmemd program over softrdma: usage errors, a
# configuration that does not validate or has no rpmem section, a pool set
# directory that does not exist, a port already taken (each a clear message
# and exit 1), and a running daemon stopped by SIGTERM and by SIGINT (exit
# 0, its pools closed), and the one warning at start about a pool set
# directory others may write or own (none for a private one). The requests
# themselves are tested by check-librpmem-integration.
#   RPMEMD_TEST_PORT   the TCP port used (default 17720)
set -u
TOOL=$1
. "$(dirname "$0")/../tool-test.sh"
port=${RPMEMD_TEST_PORT:-17720}

cat >"$tmp/d.yaml" <<YAML
workers: {count: 1, polling: event}
listen: {address: 127.0.0.1, port: $port, max_connections: 4}
rpmem: {poolset_dir: $tmp, persistence: gpspm}
log: {level: info}
YAML

expect help 0 "rpmem.poolset_dir" --help
version=$(sed -n 's/^VERSION_\(MAJOR\|MINOR\|PATCH\) := //p' "$(dirname "$0")/../../Makefile" | paste -sd.)
expect version 0 "^rpmemd $version( \(git [^)]+\))?$" --version
expect no-config 2 "a configuration file is needed"
expect bad-option 2 "unknown option: --frob" --frob
expect extra-arg 2 "unexpected argument: x" -c "$tmp/d.yaml" x
expect missing-file 1 "nope.yaml" -c "$tmp/nope.yaml"
printf 'listen: {address: 127.0.0.1}\nrpmem: {poolset_dir: %s, max_lanes: 0}\n' "$tmp" \
	>"$tmp/bad.yaml"
expect invalid 1 "bad.yaml:2:.*rpmem.max_lanes" -c "$tmp/bad.yaml"
grep -v '^rpmem:' "$tmp/d.yaml" >"$tmp/norpmem.yaml"
expect no-rpmem 1 "no rpmem section" -c "$tmp/norpmem.yaml"
expect no-dir 1 "rpmem.poolset_dir" -c "$tmp/d.yaml" --set "rpmem.poolset_dir=$tmp/none"
expect apm-without-dw 1 "direct_write" -c "$tmp/d.yaml" --set rpmem.persistence=apm

# stop_with SIG -- a running daemon stops on SIG with exit 0 and says so
stop_with() {
	local rc
	server_start "$TOOL" "$tmp/d.yaml"
	service_stop "$pid" 100 "$1"
	rc=$?
	pid=
	[ "$rc" -eq 0 ] && grep -qF "stopped" "$tmp/srv.log" && ok ||
		ko "stop-$1" "exit $rc after SIG$1, or no \"stopped\" in the log"
}

stop_with TERM
stop_with INT

# warned_with MODE OWNER WANT -- a daemon on a pool set directory of MODE and OWNER (uid) logs
# WANT lines saying it is not private, once, at start
warned_with() {
	local n
	mkdir -p "$tmp/pools"
	chmod "$1" "$tmp/pools"
	chown "$2" "$tmp/pools"
	sed "s|poolset_dir: $tmp,|poolset_dir: $tmp/pools,|" "$tmp/d.yaml" >"$tmp/w.yaml"
	server_start "$TOOL" "$tmp/w.yaml"
	service_stop "$pid" 100
	pid=
	n=$(grep -c "rpmem.poolset_dir $tmp/pools is not private" "$tmp/srv.log")
	[ "$n" -eq "$3" ] && ok || ko "warn-$1-$2" "$n warnings, expected $3"
}

me=$(id -u)
warned_with 0700 "$me" 0
warned_with 0777 "$me" 1
warned_with 0770 "$me" 1
# another user's directory (root may give it away)
[ "$me" -eq 0 ] && warned_with 0700 12345 1
chown "$me" "$tmp/pools"

# a port taken: the second daemon refuses to start, the first keeps running
server_start "$TOOL" "$tmp/d.yaml"
expect port-taken 1 "cannot start on 127.0.0.1:$port" -c "$tmp/d.yaml"
kill -0 "$pid" 2>/dev/null && ok || ko port-taken "the first daemon died"
server_stop

summary test-rpmemd
