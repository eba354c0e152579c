# SPDX-License-Identifier: BSD-3-Clause
# perftest ib_write_bw and ib_read_bw over rdma_cm (-R) with their buffers in
# files mapped MAP_SHARED (--mmap): the same-host path maps the server's
# region itself. Short runs; each side has a file of its own.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ext_ib_mmap.XXXXXX") || exit 1
trap 'cleanup; rm -rf "$dir"' EXIT
truncate -s 16M "$dir/server" "$dir/client" || exit 1
for prog in ib_write_bw ib_read_bw; do
	p=$(pick_port 27000)
	server_client "$p" "$prog" -R -n 200 -s 65536 -p "$p" --mmap="$dir/server" -- \
		"$prog" -R -n 200 -s 65536 -p "$p" --mmap="$dir/client" 127.0.0.1 || exit 1
done
