# SPDX-License-Identifier: BSD-3-Clause
# Two hosts: rping -V and ibv_rc_pingpong between two network namespaces
# joined by a veth pair, both created and removed by this test. Without the
# right to create namespaces the test prints SKIP and exits 77 (skipped).
. "$(dirname "$0")/lib.sh"

NSA=srdmaA$$
NSB=srdmaB$$
VA=srvA$$
VB=srvB$$
NET=10.$((200 + $$ % 50)).$((RANDOM % 250 + 1))
A=$NET.1
B=$NET.2
NS_MADE=

# Print why the test cannot run here and exit as skipped.
skip() {
	echo "SKIP: $*"
	exit 77
}

# Remove the namespaces (the veth pair goes with them) whatever happened.
cleanup_ns() {
	cleanup
	local ns
	for ns in $NS_MADE; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup_ns EXIT

command -v ip >/dev/null || skip "no ip(8) (iproute2)"
ip netns add "$NSA" 2>/dev/null || skip "cannot create network namespaces (needs CAP_NET_ADMIN)"
NS_MADE="$NSA"
ip netns add "$NSB" || exit 1
NS_MADE="$NSA $NSB"
ip link add "$VA" type veth peer name "$VB" 2>/dev/null || skip "veth devices not available"
ip link set "$VA" netns "$NSA" || exit 1
ip link set "$VB" netns "$NSB" || exit 1
ip -n "$NSA" addr add "$A/24" dev "$VA" || exit 1
ip -n "$NSB" addr add "$B/24" dev "$VB" || exit 1
ip -n "$NSA" link set "$VA" up || exit 1
ip -n "$NSB" link set "$VB" up || exit 1
# lo stays down: the veth address is GID 0 in each namespace

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
