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

. "$ROOT/tests/netns.sh"
trap netns_remove EXIT
trap 'exit 143' TERM INT

[ -x "$BIN" ] || { echo "no test program $BIN" >&2; exit 1; }
netns_make rpmafp

echo "server in $NSA ($A), clients in $NSB ($B), softrdma over TCP"
ip netns exec "$NSB" env SOFTRDMA_TRANSPORT=tcp POOL_SERVER_ADDR="$A" \
	POOL_SERVER_NETNS="$NSA" "$RUN" "$BIN"
