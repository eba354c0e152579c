# SPDX-License-Identifier: BSD-3-Clause
# perftest ib_write_bw over rdma_cm (-R), short run.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 23000)
server_client "$p" ib_write_bw -R -n 200 -p "$p" -- ib_write_bw -R -n 200 -p "$p" 127.0.0.1
