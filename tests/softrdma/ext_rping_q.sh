# SPDX-License-Identifier: BSD-3-Clause
# rping with -q (rdma_establish path), 1000 verified iterations.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 20500)
server_client "$p" rping -s -q -a 127.0.0.1 -p "$p" -S 256 -V -- \
	rping -c -q -a 127.0.0.1 -p "$p" -C 1000 -S 256 -V
