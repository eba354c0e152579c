# SPDX-License-Identifier: BSD-3-Clause
# perftest ib_atomic_bw over rdma_cm (-R), short runs: fetch and add, then compare and swap.
. "$(dirname "$0")/lib.sh"
for op in FETCH_AND_ADD CMP_AND_SWAP; do
	p=$(pick_port 26500)
	server_client "$p" ib_atomic_bw -R -A "$op" -n 200 -p "$p" -- \
		ib_atomic_bw -R -A "$op" -n 200 -p "$p" 127.0.0.1 || exit 1
done
