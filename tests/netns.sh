# SPDX-License-Identifier: BSD-3-Clause
#
# netns.sh -- two hosts on one machine, for the tests that run servers and
# clients apart: two network namespaces joined by a veth pair. Sourced.
#   netns_make PREFIX   make them: NSA and NSB name the namespaces, A and B
#                       are their addresses (lo stays down, so the veth
#                       address is GID 0 in each); prints SKIP and exits 77
#                       (skipped) when namespaces or veth devices cannot be made
#   netns_remove        remove what netns_make made (call it from the EXIT trap)
# PREFIX is at most 6 characters (a veth name has at most 15).

NS_MADE=

# netns_skip WHY... -- the test cannot run here: say why and exit as skipped
netns_skip() {
	echo "SKIP: $*"
	exit 77
}

# netns_remove -- the namespaces go, their processes and the veth pair with them
netns_remove() {
	local ns
	for ns in $NS_MADE; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	NS_MADE=
}

# netns_make PREFIX -- the two namespaces, addressed and up
netns_make() {
	local va="$1va$$" vb="$1vb$$" net
	NSA="$1A$$"
	NSB="$1B$$"
	net=10.$((200 + $$ % 50)).$((RANDOM % 250 + 1))
	A=$net.1
	B=$net.2
	command -v ip >/dev/null || netns_skip "no ip(8) (iproute2)"
	ip netns add "$NSA" 2>/dev/null || netns_skip "cannot create network namespaces (needs CAP_NET_ADMIN)"
	NS_MADE="$NSA"
	ip netns add "$NSB" || exit 1
	NS_MADE="$NSA $NSB"
	ip link add "$va" type veth peer name "$vb" 2>/dev/null || netns_skip "veth devices not available"
	ip link set "$va" netns "$NSA" || exit 1
	ip link set "$vb" netns "$NSB" || exit 1
	ip -n "$NSA" addr add "$A/24" dev "$va" || exit 1
	ip -n "$NSB" addr add "$B/24" dev "$vb" || exit 1
	ip -n "$NSA" link set "$va" up || exit 1
	ip -n "$NSB" link set "$vb" up || exit 1
}
