# SPDX-License-Identifier: BSD-3-Clause
# rping server + client, 1000 verified iterations on 127.0.0.1.
. "$(dirname "$0")/lib.sh"
p=$(pick_port 20000)
server_client "$p" rping -s -a 127.0.0.1 -p "$p" -S 256 -V -- \
	rping -c -a 127.0.0.1 -p "$p" -C 1000 -S 256 -V
