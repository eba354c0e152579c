#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# install-deps.sh -- install the Debian packages the build and the tests need,
# only those that are missing. Runs apt-get as root (or through sudo).
set -euo pipefail

packages=(
	gcc make pkg-config
	libibverbs-dev librdmacm-dev libcmocka-dev
	clang libclang-rt-14-dev clang-format
	rdmacm-utils ibverbs-utils perftest
	iproute2 procps psmisc valgrind man-db
	libpmem2-dev libyaml-dev libsodium-dev liburcu-dev
	pmdk-tools libpmemobj-dev
	gnuplot-nox python3 python3-prometheus-client
	"$@"
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing missing Debian packages: ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
