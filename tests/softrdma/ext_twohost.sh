# SPDX-License-Identifier: BSD-3-Clause
# Two hosts: rping -V and ibv_rc_pingpong between two network namespaces
# joined by a veth pair, both created and removed by this test. Without the
# right to create namespaces the test prints SKIP and exits 77 (skipped).
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/netns.sh"

# cleanup_ns -- the programs and the namespaces go, whatever happened
cleanup_ns() {
	cleanup
	netns_remove
}
trap cleanup_ns EXIT
netns_make srdma

# Wait (up to 10 s) until something listens on TCP port $2 in namespace $1.
wait_listen_ns() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -ltnH "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# ns_pair PORT SERVER_CMD... -- CLIENT_CMD...: server in A, client in B.
ns_pair() {
	local port=$1 srv=() cli=() crc src
	shift
	while [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	ip netns exec "$NSA" timeout 60 "$R" "${srv[@]}" &
	SERVER_PID=$!
	wait_listen_ns "$NSA" "$port" || sleep 1
	ip netns exec "$NSB" timeout 60 "$R" "${cli[@]}"
	crc=$?
	wait "$SERVER_PID"
	src=$?
	SERVER_PID=
	echo "server rc=$src client rc=$crc"
	[ $crc -eq 0 ] && [ $src -eq 0 ]
}

p=$(pick_port 25000)
ns_pair "$p" rping -s -a "$A" -p "$p" -S 256 -V -- \
	rping -c -a "$A" -p "$p" -C 200 -S 256 -V || exit 1
p=$(pick_port 25500)
ns_pair "$p" ibv_rc_pingpong -g 0 -p "$p" -n 200 -- \
	ibv_rc_pingpong -g 0 -p "$p" -n 200 "$A" || exit 1
echo "two-host OK"
