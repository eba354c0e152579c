# SPDX-License-Identifier: BSD-3-Clause
#
# hosts.sh -- N hosts on one machine, for the fault tests: each host a
# network namespace with one interface, eth0, joined by a veth pair to its
# port of a switch (a namespace of its own holding a bridge), so that the
# harness can cut, slow or half-cut one host's link while the others stay
# untouched. Sourced.
#
#   hosts_make PREFIX N   make the switch and hosts 0 to N-1 (2 to 8): HOST_NS[i]
#                         names host i's namespace, HOST_ADDR[i] its address
#                         (10.X.Y.(i+1)/24; lo stays down, so eth0's address is
#                         GID 0 of softrdma in each host); prints SKIP and exits
#                         77 (skipped) when namespaces, veth devices or bridges
#                         cannot be made
#   hosts_remove          remove it all, the hosts' processes killed first (call
#                         it from the EXIT trap; it may be called twice)
#   host_exec I CMD...    run CMD on host I (ip netns exec)
#   link_down I           host I's switch port down: nothing goes to or from it
#                         (the host's eth0 sees its carrier go: NO-CARRIER)
#   link_up I             and up again
#   link_drop I DIR       every packet of one direction dropped: DIR "to" (what
#                         the switch sends to host I) or "from" (what host I
#                         sends); a FIFO of no packet (pfifo limit 0) as the
#                         egress qdisc of that side of the link
#   link_limit I RATE [LATENCY]
#                         both directions of host I's link through a token
#                         bucket (tc tbf) of RATE (tc's units: 10mbit) and queue
#                         LATENCY (default 200ms: packets that would wait longer
#                         are dropped)
#   link_clear I          the qdiscs of link_drop and link_limit removed (the
#                         link as made)
# PREFIX is at most 5 characters (an interface name has at most 15, made of
# PREFIX, a letter, the host's number and the shell's pid).

HOSTS_MADE=
HOSTS_SW=
HOST_NS=()
HOST_ADDR=()

# hosts_skip WHY... -- the test cannot run here: say why and exit as skipped
hosts_skip() {
	echo "SKIP: $*"
	exit 77
}

# hosts_remove -- every namespace made goes, its processes and veth pairs with it
hosts_remove() {
	local ns
	for ns in $HOSTS_MADE; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
	done
	for ns in $HOSTS_MADE; do
		ip netns del "$ns" 2>/dev/null
	done
	HOSTS_MADE=
}

# hosts_ns_add NAME -- a namespace, remembered for hosts_remove
hosts_ns_add() {
	ip netns add "$1" || return 1
	HOSTS_MADE="$HOSTS_MADE $1"
}

# hosts_port I PREFIX -- host I's namespace, eth0 and address, and its port on the switch
hosts_port() {
	local i=$1 h="$2h$i$$" s="$2s$i$$"
	hosts_ns_add "${HOST_NS[$i]}" || return 1
	ip link add "$h" type veth peer name "$s" 2>/dev/null ||
		hosts_skip "veth devices not available"
	ip link set "$h" netns "${HOST_NS[$i]}" &&
		ip link set "$s" netns "$HOSTS_SW" &&
		ip -n "${HOST_NS[$i]}" link set "$h" name eth0 &&
		ip -n "$HOSTS_SW" link set "$s" name "p$i" &&
		ip -n "$HOSTS_SW" link set "p$i" master br0 &&
		ip -n "$HOSTS_SW" link set "p$i" up &&
		ip -n "${HOST_NS[$i]}" addr add "${HOST_ADDR[$i]}/24" dev eth0 &&
		ip -n "${HOST_NS[$i]}" link set eth0 up
}

# hosts_settle -- wait (2 s at most) until every port of the bridge forwards
hosts_settle() {
	local _
	for _ in $(seq 40); do
		! ip -n "$HOSTS_SW" -br link show type bridge_slave 2>/dev/null |
			grep -qv ' UP ' && return 0
		sleep 0.05
	done
	return 0
}

# hosts_make PREFIX N -- the switch and N hosts, addressed and up
hosts_make() {
	local prefix=$1 n=$2 net i
	[ "$n" -ge 2 ] && [ "$n" -le 8 ] || { echo "hosts_make: 2 to 8 hosts, not $n" >&2; exit 1; }
	command -v ip >/dev/null || hosts_skip "no ip(8) (iproute2)"
	command -v tc >/dev/null || hosts_skip "no tc(8) (iproute2)"
	net=10.$((200 + $$ % 50)).$((RANDOM % 250 + 1))
	HOSTS_SW="${prefix}S$$"
	hosts_ns_add "$HOSTS_SW" 2>/dev/null ||
		hosts_skip "cannot create network namespaces (needs CAP_NET_ADMIN)"
	ip -n "$HOSTS_SW" link add br0 type bridge 2>/dev/null || hosts_skip "bridges not available"
	# forward at once: no spanning tree, no learning delay on a port that comes back up
	ip -n "$HOSTS_SW" link set br0 type bridge stp_state 0 forward_delay 0 2>/dev/null
	ip -n "$HOSTS_SW" link set br0 up || exit 1
	for i in $(seq 0 $((n - 1))); do
		HOST_NS[$i]="${prefix}H$i.$$"
		HOST_ADDR[$i]=$net.$((i + 1))
		hosts_port "$i" "$prefix" || { echo "hosts_make: host $i could not be made" >&2; exit 1; }
	done
	hosts_settle
}

# host_exec I CMD... -- CMD on host I
host_exec() {
	local i=$1
	shift
	ip netns exec "${HOST_NS[$i]}" "$@"
}

# link_down I -- host I's switch port down
link_down() {
	ip -n "$HOSTS_SW" link set "p$1" down
}

# link_up I -- host I's switch port up again
link_up() {
	ip -n "$HOSTS_SW" link set "p$1" up
}

# link_side I DIR -- "NAMESPACE DEVICE" of the sending side of direction DIR of host I's link
link_side() {
	case $2 in
	to) echo "$HOSTS_SW p$1" ;;
	from) echo "${HOST_NS[$1]} eth0" ;;
	*) echo "link_side: direction \"$2\", not to or from" >&2; return 1 ;;
	esac
}

# link_drop I DIR -- drop every packet host I's link carries in direction DIR
link_drop() {
	local ns dev
	read -r ns dev < <(link_side "$1" "$2") && [ -n "$dev" ] || return 1
	tc -n "$ns" qdisc replace dev "$dev" root pfifo limit 0
}

# link_limit I RATE [LATENCY] -- a token bucket of RATE on both directions of host I's link
link_limit() {
	local i=$1 rate=$2 lat=${3:-200ms} dir ns dev
	for dir in to from; do
		read -r ns dev < <(link_side "$i" "$dir")
		# the bucket holds at least a packet of 64 KiB (TSO/GSO segments of a veth)
		tc -n "$ns" qdisc replace dev "$dev" root tbf rate "$rate" burst 65536 latency "$lat" ||
			return 1
	done
}

# link_clear I -- both directions of host I's link as made (no qdisc of ours)
link_clear() {
	local dir ns dev
	for dir in to from; do
		read -r ns dev < <(link_side "$1" "$dir")
		tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
	done
	return 0
}
