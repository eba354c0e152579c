# SPDX-License-Identifier: BSD-3-Clause
# perftest ib_send_lat over rdma_cm (-R), short run.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 23600)
server_client "$p" ib_send_lat -R -n 200 -p "$p" -- ib_send_lat -R -n 200 -p "$p" 127.0.0.1
