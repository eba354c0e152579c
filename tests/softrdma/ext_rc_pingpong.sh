# SPDX-License-Identifier: BSD-3-Clause
# ibv_rc_pingpong: raw verbs, QPs connected by GID and QP number.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 22000)
server_client "$p" ibv_rc_pingpong -g 0 -p "$p" -- ibv_rc_pingpong -g 0 -p "$p" 127.0.0.1
