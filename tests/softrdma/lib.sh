# SPDX-License-Identifier: BSD-3-Clause
#
# Helpers for the external-program tests: a server and a client, each
# bounded by timeout, with the server killed at the end whatever happens.

R=${SOFTRDMA_RUN:?}
SERVER_PID=

# Kill the background server, if any.
cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
	fi
}
trap cleanup EXIT

# Pick a port from a per-test range so tests do not collide.
pick_port() {
	echo $(( $1 + RANDOM % 500 ))
}

# Wait (up to 10 s) until something listens on TCP port $1.
wait_listen() {
	local i
	for i in $(seq 100); do
		ss -ltnH "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# server_client PORT SERVER_CMD... -- CLIENT_CMD...: both must exit 0.
server_client() {
	local port=$1 srv=() cli=()
	shift
	while [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	timeout 60 "$R" "${srv[@]}" &
	SERVER_PID=$!
	wait_listen "$port" || sleep 1
	timeout 60 "$R" "${cli[@]}"
	local crc=$?
	wait "$SERVER_PID"
	local src=$?
	SERVER_PID=
	echo "server rc=$src client rc=$crc"
	[ $crc -eq 0 ] && [ $src -eq 0 ]
}
