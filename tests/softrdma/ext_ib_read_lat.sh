# SPDX-License-Identifier: BSD-3-Clause
# perftest ib_read_lat over rdma_cm (-R), short run.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 24200)
server_client "$p" ib_read_lat -R -n 200 -p "$p" -- ib_read_lat -R -n 200 -p "$p" 127.0.0.1
