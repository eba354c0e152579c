#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# debian-librpma.sh [BUILD_DIR]: fetch Debian's librpma0 and librpma-dev
# (apt-get download into BUILD_DIR/debian-librpma-cache, running
# 'apt-get update' only if the first download fails) and unpack them with
# dpkg -x into BUILD_DIR/debian-librpma. Nothing is installed system-wide.
# Idempotent: a second run reuses the .deb files and the unpacked tree.
# Prints the absolute path of the unpacked tree on standard output.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
cache="$build/debian-librpma-cache"
dest="$build/debian-librpma"
pkgs="librpma0 librpma-dev"

# have_debs: true when every package has a .deb in the cache
have_debs() {
	for p in $pkgs; do
		set -- "$cache/${p}_"*.deb
		[ -e "$1" ] || return 1
	done
	return 0
}

# fetch: apt-get download into the cache; the list is refreshed only on failure
fetch() {
	mkdir -p "$cache"
	if (cd "$cache" && apt-get download $pkgs) >&2; then
		return 0
	fi
	echo "debian-librpma: download failed, running apt-get update" >&2
	apt-get update >&2 || return 1
	(cd "$cache" && apt-get download $pkgs) >&2
}

if ! have_debs; then
	fetch || { echo "debian-librpma: cannot download $pkgs" >&2; exit 1; }
	have_debs || { echo "debian-librpma: $cache lacks a .deb" >&2; exit 1; }
fi

stamp="$dest/.unpacked"
debs=$(ls "$cache"/*.deb | sort)
if [ ! -e "$stamp" ] || [ "$(cat "$stamp")" != "$debs" ] ||
   [ ! -e "$dest/usr/include/librpma.h" ]; then
	rm -rf "$dest"
	mkdir -p "$dest"
	for d in $debs; do
		dpkg -x "$d" "$dest" || { echo "debian-librpma: dpkg -x $d failed" >&2; exit 1; }
	done
	[ -e "$dest/usr/include/librpma.h" ] ||
		{ echo "debian-librpma: no usr/include/librpma.h in $dest" >&2; exit 1; }
	printf '%s\n' "$debs" > "$stamp"
fi
echo "$dest"
