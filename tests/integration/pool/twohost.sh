#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# twohost.sh -- the pool's integration test between two hosts: two network
# namespaces joined by a veth pair, over softrdma's TCP transport. The test
# program runs in namespace B (the clients) and runs its servers in
# namespace A (POOL_SERVER_NETNS), on A's address (POOL_SERVER_ADDR). The
# namespaces are created and always removed by this script; without the
# right to create them it prints SKIP and exits 77 (skipped).
#
# Environment: POOL_TEST_BIN (the test program, required), SOFTRDMA_RUN
# (default tools/softrdma-run), POOL_TESTS (passed on).

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${POOL_TEST_BIN:?the test program}
RUN=${SOFTRDMA_RUN:-$ROOT/tools/softrdma-run}
NSA=rpmafpA$$
NSB=rpmafpB$$
VA=rpva$$
VB=rpvb$$
NET=10.$((200 + $$ % 50)).$((RANDOM % 250 + 1))
A=$NET.1
B=$NET.2
NS_MADE=

# skip WHY... -- print why the test cannot run here and exit as skipped
skip() {
	echo "SKIP: $*"
	exit 77
}

# cleanup -- remove the namespaces (the veth pair goes with them) whatever happened
cleanup() {
	local ns
	for ns in $NS_MADE; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$BIN" ] || { echo "no test program $BIN" >&2; exit 1; }
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

echo "server in $NSA ($A), clients in $NSB ($B), softrdma over TCP"
ip netns exec "$NSB" env SOFTRDMA_TRANSPORT=tcp POOL_SERVER_ADDR="$A" \
	POOL_SERVER_NETNS="$NSA" "$RUN" "$BIN"
