#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-install.sh -- install into a scratch DESTDIR with a custom PREFIX and
# LIBDIR, build a program against what was installed (through pkg-config),
# run it, then uninstall and make sure nothing is left behind.
set -u
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/rpma
libdir=$prefix/lib64
fail() { echo "check-install: $*"; exit 1; }

make --no-print-directory install DESTDIR="$stage" PREFIX=$prefix LIBDIR=$libdir >/dev/null ||
	fail "make install failed"
for f in include/librpma.h lib64/librpma.so.1.3.0 lib64/librpma.so.1 lib64/librpma.so \
	lib64/librpma.a lib64/pkgconfig/librpma.pc share/man/man7/librpma.7 \
	share/man/man3/rpma_conn_req_connect.3; do
	[ -e "$stage$prefix/$f" ] || fail "$prefix/$f was not installed"
done
grep -qx "libdir=$libdir" "$stage$libdir/pkgconfig/librpma.pc" || fail "librpma.pc has the wrong libdir"

# the installed .pc names the final paths; point pkg-config into the stage
cat >"$stage/probe.c" <<'PROBE'
#include <stdio.h>
#include <librpma.h>
int main(void)
{
	const char *why = rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);

	printf("%s\n", why ? why : "version ok");
	return why != NULL;
}
PROBE
flags=$(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$stage$libdir/pkgconfig" \
	pkg-config --cflags --libs librpma) || fail "pkg-config does not know librpma"
# shellcheck disable=SC2086
cc -Wall -Werror -o "$stage/probe" "$stage/probe.c" $flags -Wl,-rpath,"$stage$libdir" ||
	fail "a program does not build against the installed library"
out=$("$stage/probe") || fail "the probe failed: $out"
[ "$out" = "version ok" ] || fail "unexpected probe output: $out"
ldd "$stage/probe" | grep -q "$stage$libdir/librpma.so.1" || fail "the probe did not load the installed library"

make --no-print-directory uninstall DESTDIR="$stage" PREFIX=$prefix LIBDIR=$libdir >/dev/null ||
	fail "make uninstall failed"
left=$(find "$stage$prefix" -type f -o -type l)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "check-install: installed, built against with pkg-config, ran, uninstalled: 1 passed, 0 failed"
