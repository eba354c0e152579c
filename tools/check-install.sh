#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-install.sh -- make install and make uninstall, checked in two scratch
# directories (make check-install; $MAKE is the make to call):
#
# 1. DESTDIR=scratch, PREFIX=/opt/rpma and every other directory away from
#    its default: each library (shared with its SONAME link and LIB.so,
#    static), header, pkg-config file (its libdir, includedir and version),
#    tool, softrdma library and man page of the tree is installed; the
#    installed softrdma-run points at LIBDIR/softrdma; no ELF file has a
#    RUNPATH or RPATH into the tree, the tools have LIBDIR's; no installed
#    file holds the tree's path; a second install changes nothing; make
#    uninstall leaves only a file of someone else's put in LIBDIR beforehand.
# 2. PREFIX=scratch (no DESTDIR, so that the result runs; LIBDIR and BINDIR
#    placed as in 1, so that the tools are not linked again): every example of
#    examples/ is copied out of the tree and built with pkg-config only, as
#    are probes of librpmaf and librpmem (one linked with the static
#    libraries); the examples run over the installed softrdma-run
#    (examples/run-examples.sh; the framework's, examples/NN-rpmaf-name, by
#    examples/run-rpmaf-examples.sh against the installed rpma-server, each
#    program checked to load the installed librpmaf and librpma), the tools
#    start, rpma-server and rpma-load serve a short workload
#    (tools/run/run-service.sh), each loading the installed libraries; make
#    uninstall leaves the prefix empty.
#
# An example is a .c file defining main() in a directory of examples/ (or
# one level deeper); the other .c files of its directory are linked into it,
# as are the .c files of a directory without main() (examples/common/) whose
# header it includes. The packages it is built with are those of the headers
# it includes (<librpma.h>: librpma, <rpmaf.h>: librpmaf, ...). It is built as
# BIN/DIR/NAME, where examples/run-examples.sh looks for it.
#
# Prints one line per failed check and a final "N passed, M failed"; exits 1
# when anything failed.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROOT_REAL=$(cd "$ROOT" && pwd -P)
# the run path of a library that finds its dependencies beside itself
# shellcheck disable=SC2016 # the dynamic linker's $ORIGIN, not the shell's
ORIGIN_RP='$ORIGIN'
MAKE=${MAKE:-make}
PASSED=0
FAILED=0
scratch=$(mktemp -d /tmp/check-install.XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

ok() { PASSED=$((PASSED + 1)); }
bad() {
	echo "check-install: FAIL: $*"
	FAILED=$((FAILED + 1))
}
# check WHAT CMD... -- one check: CMD must succeed, else WHAT is reported
check() {
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
# fails CMD... -- CMD must fail
fails() { ! "$@"; }
die() {
	echo "check-install: $*"
	exit 1
}

# make_in LOG TARGET VARS... -- make TARGET in the tree, its output in LOG
make_in() {
	local log=$1
	shift
	$MAKE -C "$ROOT" --no-print-directory "$@" >"$log" 2>&1
}

# tree_man_pages -- every man page of the tree, as install.sh places it: manN/NAME
tree_man_pages() {
	local p
	for p in "$ROOT"/*/man/man[1-8]/*.[1-8] "$ROOT"/tools/*/man/man[1-8]/*.[1-8]; do
		[ -f "$p" ] || continue
		p=${p#"$ROOT"/}
		echo "${p##*/man/}"
	done
}

# is_elf FILE -- whether FILE is an ELF file (read by the shell: no process per file)
is_elf() {
	local magic
	LC_ALL=C read -r -n 4 magic <"$1" 2>/dev/null
	[ "$magic" = $'\x7fELF' ]
}

# runpath FILE -- the RUNPATH and RPATH entries of an ELF file, one a line
runpath() {
	LC_ALL=C readelf -d "$1" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' |
		tr ':' '\n'
}

# check_elves ROOTDIR BINDIR RUNPATH -- no run path into the tree; the tools'
# run path is RUNPATH; the libraries have none or $ORIGIN
check_elves() {
	local top=$1 bindir=$2 want=$3 f rp n=0
	while IFS= read -r -d '' f; do
		is_elf "$f" || continue
		n=$((n + 1))
		rp=$(runpath "$f")
		if echo "$rp" | grep -qF -e "$ROOT" -e "$ROOT_REAL"; then
			bad "${f#"$top"} has a run path into the tree: $rp"
			continue
		fi
		if [ "${f#"$top$bindir"/}" != "$f" ]; then
			[ "$rp" = "$want" ] || bad "${f#"$top"}: run path '$rp', not $want"
		elif [ -n "$rp" ] && [ "$rp" != "$ORIGIN_RP" ]; then
			bad "${f#"$top"}: run path '$rp'"
		fi
	done < <(find "$top" -type f -print0)
	[ "$n" -ge 9 ] || bad "only $n ELF files installed"
	ok
}

# check_no_tree_path DIR -- no installed file holds the tree's path
check_no_tree_path() {
	local hits
	hits=$(grep -rlaF -e "$ROOT" -e "$ROOT_REAL" "$1")
	[ -z "$hits" ] || bad "these name the build tree: $hits"
	[ -z "$hits" ] && ok
}

# stage_destdir -- part 1: the layout of an install into DESTDIR
stage_destdir() {
	local dest=$scratch/dest prefix=/opt/rpma
	local libdir=$prefix/lib64 bindir=$prefix/sbin incdir=$prefix/include/rpma mandir=$prefix/man
	local vars=(DESTDIR="$dest" PREFIX="$prefix" LIBDIR="$libdir" BINDIR="$bindir"
		INCLUDEDIR="$incdir" MANDIR="$mandir")
	local manifest=$prefix/share/rpma/install-manifest f lib so v pcv list left
	local pcdir=$dest$libdir/pkgconfig

	mkdir -p "$dest$libdir" && echo keep >"$dest$libdir/foreign.so.1"
	make_in "$scratch/install1.log" install "${vars[@]}" ||
		die "make install DESTDIR= failed: $(tail -n 20 "$scratch/install1.log")"

	for f in "$incdir"/{librpma.h,rpmaf.h,librpmem.h} \
		"$incdir"/rpmaf/{errors,config,workers,server,pool}.h \
		"$bindir"/{rpma-server,rpma-load,rpma-config,rpmemd,softrdma-run} \
		"$libdir"/softrdma/{libibverbs.so.1,librdmacm.so.1} "$manifest"; do
		check "$f was not installed" test -f "$dest$f"
	done
	for f in "$dest$bindir"/*; do
		check "${f#"$dest"} is not executable" test -x "$f"
	done
	while IFS= read -r f; do
		check "man page $f was not installed" test -f "$dest$mandir/$f"
	done < <(tree_man_pages)
	for lib in librpma librpmaf librpmem; do
		so=$(cd "$dest$libdir" && echo "$lib".so.[0-9]*.[0-9]*.[0-9]*)
		check "$libdir/$lib.so.X.Y.Z was not installed" test -f "$dest$libdir/$so"
		check "$libdir/$lib.so.1 is not a link to $so" \
			test "$(readlink "$dest$libdir/$lib.so.1")" = "$so"
		check "$libdir/$lib.so is not a link to $lib.so.1" \
			test "$(readlink "$dest$libdir/$lib.so")" = "$lib.so.1"
		check "$libdir/$lib.a was not installed" test -s "$dest$libdir/$lib.a"
		check "$lib.pc: libdir is not $libdir" grep -qxF "libdir=$libdir" "$pcdir/$lib.pc"
		check "$lib.pc: includedir is not $incdir" \
			grep -qxF "includedir=$incdir" "$pcdir/$lib.pc"
		check "$lib.pc: its Name is not $lib" grep -qxF "Name: $lib" "$pcdir/$lib.pc"
		v=${so#"$lib".so.}
		pcv=$(sed -n 's/^Version: //p' "$pcdir/$lib.pc")
		case $lib in
		librpmem) check "librpmem.pc has librpma's version $pcv" test "$pcv" != "$(
			sed -n 's/^Version: //p' "$pcdir/librpma.pc")" ;;
		*) check "$lib.pc has version '$pcv', its library $v" test "$pcv" = "$v" ;;
		esac
	done
	check "the installed softrdma-run does not point at $libdir/softrdma" \
		grep -qxF "default_libdir='$libdir/softrdma'" "$dest$bindir/softrdma-run"
	check_elves "$dest" "$bindir" "$ORIGIN_RP/../lib64"
	check_no_tree_path "$dest"

	# the manifest names every file installed, and only those
	list=$(cd "$dest" && find . \( -type f -o -type l \) ! -name foreign.so.1 | sed 's|^\.||' | sort)
	check "the manifest is not the list of installed files" \
		test "$list" = "$(grep -v -e '^#' -e '/$' "$dest$manifest" | sort)"
	cp "$dest$manifest" "$scratch/manifest1"
	make_in "$scratch/install2.log" install "${vars[@]}" ||
		die "a second make install failed: $(tail -n 20 "$scratch/install2.log")"
	check "a second install changed the manifest" cmp -s "$scratch/manifest1" "$dest$manifest"

	make_in "$scratch/uninstall1.log" uninstall "${vars[@]}" ||
		die "make uninstall DESTDIR= failed: $(tail -n 20 "$scratch/uninstall1.log")"
	left=$(cd "$dest" && find . -mindepth 1 | sort | tr '\n' ' ')
	check "left after uninstall: $left" \
		test "$left" = "./opt ./opt/rpma ./opt/rpma/lib64 ./opt/rpma/lib64/foreign.so.1 "
	check "make uninstall with nothing installed succeeded" \
		fails make_in "$scratch/uninstall2.log" uninstall "${vars[@]}"
}

# includes FILE... -- the headers the files include, <x> as <x> and "x" as x
includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*\)[>"].*/\1/p' "$@" |
		sed 's/^"//' | sort -u
}

# has_main FILE -- whether a C file defines main()
has_main() {
	grep -Eq '^([a-z]+[[:space:]]+)*main[[:space:]]*\(' "$1"
}

# packages_of FILE... -- the pkg-config packages of the headers the files include
packages_of() {
	includes "$@" | while IFS= read -r h; do
		case $h in
		'<librpma.h') echo librpma ;;
		'<rpmaf.h') echo librpmaf ;;
		'<librpmem.h') echo librpmem ;;
		'<libpmem2.h') echo libpmem2 ;;
		'<libpmem.h') echo libpmem ;;
		'<infiniband/verbs.h') echo libibverbs ;;
		'<rdma/rdma_cma.h') echo librdmacm ;;
		esac
	done | sort -u
}

# build_program SRC OUT LIBDIR -- build one example with pkg-config only
build_program() {
	local src=$1 out=$2 libdir=$3 dir=${1%/*} files=() extra=() flags=() h s sup
	local pkgs scan
	for s in "$dir"/*.c; do
		[ "$s" = "$src" ] || has_main "$s" || files+=("$s")
	done
	scan=("$src" "${files[@]}")
	for h in "$dir"/*.h; do
		[ -f "$h" ] && scan+=("$h")
	done
	# a support directory's sources, once, when the program includes one of its headers
	for h in $(includes "${scan[@]}" | grep -v '^<'); do
		[ -f "$dir/$h" ] && continue
		for sup in "${SUPPORT_DIRS[@]}"; do
			[ -f "$sup/$h" ] || continue
			[[ " ${extra[*]} " == *" -I$sup "* ]] && continue
			extra+=("-I$sup")
			for s in "$sup"/*.c "$sup"/*.h; do
				[ -f "$s" ] && scan+=("$s")
				[ "${s%.c}" != "$s" ] && [ -f "$s" ] && files+=("$s")
			done
		done
	done
	mapfile -t pkgs < <(packages_of "${scan[@]}")
	[ ${#pkgs[@]} -gt 0 ] || pkgs=(librpma)
	read -ra flags < <(pkg-config --cflags --libs "${pkgs[@]}") || return 1
	mkdir -p "${out%/*}"
	cc -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror "${extra[@]}" -o "$out" "$src" \
		"${files[@]}" "${flags[@]}" -Wl,-rpath,"$libdir"
}

# build_examples SRC BIN LIBDIR -- every example under SRC into BIN; BUILT is the count
build_examples() {
	local src=$1 bin=$2 libdir=$3 d c rel has
	BUILT=0
	SUPPORT_DIRS=()
	for d in "$src"/*/ "$src"/*/*/; do
		d=${d%/}
		compgen -G "$d/*.c" >/dev/null || continue
		has=0
		for c in "$d"/*.c; do
			has_main "$c" && has=1
		done
		[ $has -eq 1 ] || SUPPORT_DIRS+=("$d")
	done
	# two compilers at a time, each program's output and result in LOGS/NAME
	local logs=$scratch/cc progs=()
	for d in "$src"/*/ "$src"/*/*/; do
		d=${d%/}
		for c in "$d"/*.c; do
			{ [ -f "$c" ] && has_main "$c"; } || continue
			rel=${c#"$src"/}
			progs+=("$rel")
			mkdir -p "$logs/${rel%/*}"
			while [ "$(jobs -rp | wc -l)" -ge 2 ]; do
				wait -n
			done
			{
				build_program "$c" "$bin/${rel%.c}" "$libdir" >"$logs/$rel.log" 2>&1 &&
					touch "$logs/$rel.ok"
			} &
		done
	done
	wait
	for rel in "${progs[@]}"; do
		if [ -f "$logs/$rel.ok" ]; then
			BUILT=$((BUILT + 1))
		else
			cat "$logs/$rel.log"
			bad "example $rel does not build against the installed libraries"
		fi
	done
}

# loads_from DIR PROGRAM LIB [RUNNER...] -- PROGRAM (run by RUNNER) loads LIB from DIR
loads_from() {
	local dir=$1 prog=$2 lib=$3 path
	shift 3
	path=$("$@" ldd "$prog" | sed -n "s|^[[:space:]]*$lib => \(.*\) (0x.*|\1|p")
	[ -n "$path" ] && [ "$(realpath -s "$path")" = "$(realpath -s "$dir")/$lib" ]
}

# run_rpmaf_examples BIN LIBDIR BINDIR RUN PORT -- the framework's examples of BIN
# load the installed librpmaf and librpma, not the tree's (ldd as RUN runs them),
# and pass examples/run-rpmaf-examples.sh over RUN against BINDIR's rpma-server
# (without the planted-bug client, a test build of examples/examples.mk only)
run_rpmaf_examples() {
	local bin=$1 libdir=$2 bindir=$3 run=$4 port=$5 prog lib n=0
	for prog in "$bin"/[0-9][0-9]-rpmaf-*/*; do
		{ [ -f "$prog" ] && [ -x "$prog" ]; } || continue
		n=$((n + 1))
		for lib in librpmaf.so.1 librpma.so.1; do
			check "${prog#"$bin"/} does not load the installed $lib" \
				loads_from "$libdir" "$prog" "$lib" "$run"
		done
	done
	check "no framework example was built" test "$n" -gt 0
	if ! SOFTRDMA_RUN=$run RPMA_SERVER=$bindir/rpma-server EXAMPLES_RPMAF_PORT=$port \
		SOFTRDMA_CM_TIMEOUT_MS=4000 "$ROOT/examples/run-rpmaf-examples.sh" "$bin" \
		>"$scratch/rpmaf-examples.log" 2>&1; then
		cat "$scratch/rpmaf-examples.log"
		bad "the framework's examples failed on the installed libraries and rpma-server"
	else
		ok
	fi
}

# stage_prefix -- part 2: build and run against an install into a scratch PREFIX
stage_prefix() {
	local prefix=$scratch/prefix
	local libdir=$prefix/lib64 bindir=$prefix/sbin
	local vars=(PREFIX="$prefix" LIBDIR="$libdir" BINDIR="$bindir") run=$bindir/softrdma-run
	local bin=$scratch/examples flags cflags port t p left

	make_in "$scratch/install3.log" install "${vars[@]}" ||
		die "make install PREFIX= failed: $(tail -n 20 "$scratch/install3.log")"
	export PKG_CONFIG_PATH=$libdir/pkgconfig
	unset PKG_CONFIG_SYSROOT_DIR
	flags=$(pkg-config --cflags --libs librpma librpmaf librpmem)
	check "pkg-config names the tree: $flags" \
		test "$flags" = "$(echo "$flags" | grep -vF -e "$ROOT" -e "$ROOT_REAL")"

	cp -r "$ROOT/examples" "$scratch/src"
	build_examples "$scratch/src" "$bin" "$libdir"
	echo "check-install: $BUILT examples built (${SECONDS}s)"
	check "no example was built" test "$BUILT" -gt 0

	# the libraries the examples do not cover yet, one linked with the archives
	mkdir -p "$scratch/probe"
	cat >"$scratch/probe/rpmaf.c" <<'PROBE'
#include <stdio.h>
#include <rpmaf.h>
int main(void)
{
	return puts(rpmaf_err_str(0)) < 0;
}
PROBE
	cat >"$scratch/probe/rpmem.c" <<'PROBE'
#include <stdio.h>
#include <librpmem.h>
int main(void)
{
	const char *why = rpmem_check_version(RPMEM_MAJOR_VERSION, RPMEM_MINOR_VERSION);

	printf("%s\n", why ? why : "version ok");
	return why != NULL;
}
PROBE
	check "a librpmaf program does not build with pkg-config" build_program \
		"$scratch/probe/rpmaf.c" "$scratch/probe/rpmaf" "$libdir"
	check "the librpmaf program does not run" "$scratch/probe/rpmaf" >/dev/null
	check "a librpmem program does not build with pkg-config" build_program \
		"$scratch/probe/rpmem.c" "$scratch/probe/rpmem" "$libdir"
	check "the librpmem program does not run" "$scratch/probe/rpmem" >/dev/null
	check "the librpmem program does not load the installed librpmem" \
		loads_from "$libdir" "$scratch/probe/rpmem" librpmem.so.1
	read -ra flags < <(pkg-config --static --libs librpmem |
		sed -E 's/-l(rpma|rpmaf|rpmem)( |$)/-l:lib\1.a\2/g')
	read -ra cflags < <(pkg-config --cflags librpmem)
	check "a librpmem program does not link with the static libraries" \
		cc -o "$scratch/probe/rpmem-static" "$scratch/probe/rpmem.c" "${cflags[@]}" "${flags[@]}"
	check "the static librpmem program does not run" "$scratch/probe/rpmem-static" >/dev/null
	check "the static librpmem program loads librpmem.so" \
		fails loads_from "$libdir" "$scratch/probe/rpmem-static" librpmem.so.1

	# the examples and the tools over the installed softrdma and libraries
	check "an example does not load the installed librpma" \
		loads_from "$libdir" "$bin/01-connection/server" librpma.so.1
	check "softrdma-run does not load the installed libibverbs" \
		loads_from "$libdir/softrdma" "$bin/01-connection/server" libibverbs.so.1 "$run"
	port=$((20000 + RANDOM % 10000))
	if ! SOFTRDMA_RUN=$run EXAMPLES_BASE_PORT=$port "$ROOT/examples/run-examples.sh" "$bin" \
		>"$scratch/examples.log" 2>&1; then
		cat "$scratch/examples.log"
		bad "the examples failed on the installed libraries"
	else
		ok
	fi
	run_rpmaf_examples "$bin" "$libdir" "$bindir" "$run" $((port + 200))
	for t in rpma-server rpma-load rpma-config rpmemd; do
		check "$t --help failed" "$run" "$bindir/$t" --help >/dev/null
		check "$t does not load the installed librpmaf" \
			loads_from "$libdir" "$bindir/$t" librpmaf.so.1 "$run"
	done
	echo "check-install: examples run (${SECONDS}s)"
	p=$((port + 100))
	if ! SOFTRDMA_RUN=$run "$ROOT/tools/run/run-service.sh" -b "$bindir" -p "$p" -d 1s \
		>"$scratch/run.log" 2>&1; then
		tail -n 30 "$scratch/run.log"
		bad "the installed rpma-server and rpma-load failed their run"
	else
		ok
	fi

	make_in "$scratch/uninstall3.log" uninstall "${vars[@]}" ||
		die "make uninstall PREFIX= failed: $(tail -n 20 "$scratch/uninstall3.log")"
	left=$(find "$prefix" -mindepth 1 2>/dev/null | head)
	check "left after uninstall: $left" test -z "$left"
}

SECONDS=0
stage_destdir
echo "check-install: the install into DESTDIR checked (${SECONDS}s)"
SECONDS=0
stage_prefix
echo "check-install: the examples, probes and tools built and run on the install (${SECONDS}s)"
echo "check-install: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
