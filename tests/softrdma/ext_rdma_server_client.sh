# SPDX-License-Identifier: BSD-3-Clause
# rdma_server / rdma_client (synchronous CM API, rdma_create_ep).
. "$(dirname "$0")/lib.sh"
p=$(pick_port 21500)
server_client "$p" rdma_server -p "$p" -- rdma_client -s 127.0.0.1 -p "$p"
