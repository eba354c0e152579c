# SPDX-License-Identifier: BSD-3-Clause
# rping with the rdma_cm port mapped to another TCP port.
. "$(dirname "$0")/lib.sh"
export SOFTRDMA_CM_PORT_OFFSET=1000
p=$(pick_port 21000)
server_client "$p" rping -s -a 127.0.0.1 -p "$p" -S 64 -V -- \
	rping -c -a 127.0.0.1 -p "$p" -C 100 -S 64 -V
