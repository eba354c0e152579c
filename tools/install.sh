#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# install.sh COMMAND ARGS... -- the steps of make install and make uninstall.
# Every path given is the final one (PREFIX, LIBDIR, ...); the files go under
# $DESTDIR. Each file installed and each directory created is written, as it
# happens, into the manifest $DESTDIR$INSTALL_MANIFEST, so that uninstall
# removes exactly those, even after an install that stopped half-way.
#
#   begin                     start a run: the manifest (entries of an earlier
#                             install are kept), this run's list emptied
#   file MODE DIR FILE...     each FILE into DIR with MODE
#   lib DIR SO...             each shared library FILE.so.X.Y.Z into DIR, with
#                             its SONAME link and its linker name FILE.so
#   man MANDIR PAGE...        each page, .../manN/NAME.N, into MANDIR/manN/
#   end                       sort the manifest, say what was installed
#   uninstall                 remove what the manifest names, then the
#                             directories it created when they are empty
#
# Environment: DESTDIR (may be empty), INSTALL_MANIFEST (absolute),
# INSTALL_RUNLOG (this run's destinations: a file installed twice in one run,
# e.g. two man pages of one name, is an error). ELF files and archives lose
# their debug information and LTO sections on the way: both name the build
# directory. The manifest lists one path a line; a directory ends with '/'.
set -u

DESTDIR=${DESTDIR:-}
MANIFEST=${INSTALL_MANIFEST:-}
RUNLOG=${INSTALL_RUNLOG:-}

die() {
	echo "install: $*" >&2
	exit 1
}

# need_abs WHAT PATH -- fail unless PATH is absolute and has no newline
need_abs() {
	case $2 in
	/*) ;;
	*) die "$1 must be an absolute path, not '$2'" ;;
	esac
	case $2 in
	*$'\n'*) die "$1 has a newline in it" ;;
	esac
}

# record PATH -- PATH (final, without DESTDIR) was installed or created
record() {
	echo "$1" >>"$DESTDIR$MANIFEST" || die "cannot write the manifest $DESTDIR$MANIFEST"
}

# mkdirs DIR -- make $DESTDIR/DIR and its missing parents, recording each
# one made (parents first, so that uninstall removes children first)
mkdirs() {
	local dir=${1%/} missing=() d i
	d=$dir
	while [ -n "$d" ] && [ ! -d "$DESTDIR$d" ]; do
		missing+=("$d")
		d=${d%/*}
	done
	for ((i = ${#missing[@]} - 1; i >= 0; i--)); do
		mkdir "$DESTDIR${missing[i]}" || die "cannot make ${missing[i]}"
		record "${missing[i]}/"
	done
}

# this run's destinations so far (the commands of one make install are
# separate processes: they share INSTALL_RUNLOG)
declare -A CLAIMED=()
load_claims() {
	local line
	[ -f "$RUNLOG" ] || die "no $RUNLOG: run the begin command first"
	while IFS= read -r line; do
		CLAIMED[$line]=1
	done <"$RUNLOG"
}

# claim DEST -- note that this run installs DEST; fail if it already did
claim() {
	[ -z "${CLAIMED[$1]:-}" ] || die "$1 would be installed twice (two files of one name)"
	CLAIMED[$1]=1
	echo "$1" >>"$RUNLOG"
	record "$1"
}

# is_object FILE -- whether FILE is an ELF file or an ar archive
is_object() {
	local magic
	LC_ALL=C read -r -n 7 magic <"$1" 2>/dev/null
	case $magic in
	$'\x7f'ELF* | '!<arch>') return 0 ;;
	esac
	return 1
}

# put MODE DIR SRC... -- install files into DIR under their own names
put() {
	local mode=$1 dir=$2 src
	shift 2
	for src in "$@"; do
		[ -f "$src" ] || die "$src does not exist: build it first"
		claim "$dir/${src##*/}"
	done
	install -m "$mode" "$@" "$DESTDIR$dir/" || die "cannot install into $dir: $*"
	for src in "$@"; do
		if is_object "$src"; then
			objcopy --strip-debug --wildcard -R '.gnu.lto_*' -R '.gnu.debuglto_*' \
				"$DESTDIR$dir/${src##*/}" || die "cannot strip $dir/${src##*/}"
		fi
		echo "  INSTALL $dir/${src##*/}"
	done
}

# link TARGET DEST -- a symbolic link DEST to TARGET (a name in DEST's directory)
link() {
	claim "$2"
	ln -sfn "$1" "$DESTDIR$2" || die "cannot link $2"
	echo "  LINK    $2 -> $1"
}

cmd_begin() {
	local dir=${MANIFEST%/*}
	need_abs "the manifest" "$MANIFEST"
	[ -n "$RUNLOG" ] || die "INSTALL_RUNLOG is not set"
	{ mkdir -p "$(dirname "$RUNLOG")" && : >"$RUNLOG"; } || die "cannot write $RUNLOG"
	if [ -f "$DESTDIR$MANIFEST" ]; then
		return 0
	fi
	# the directories made for the manifest itself are recorded once it exists
	local made=()
	local d=$dir
	while [ -n "$d" ] && [ ! -d "$DESTDIR$d" ]; do
		made+=("$d/")
		d=${d%/*}
	done
	mkdir -p "$DESTDIR$dir" || die "cannot make $dir"
	echo "# installed by make install: one path a line, a directory ends with /" \
		>"$DESTDIR$MANIFEST" || die "cannot write $DESTDIR$MANIFEST"
	record "$MANIFEST"
	for d in "${made[@]}"; do
		record "$d"
	done
}

cmd_file() {
	local mode=$1 dir=$2
	shift 2
	[[ $mode =~ ^[0-7]{3,4}$ ]] || die "bad mode '$mode'"
	need_abs "the directory" "$dir"
	[ $# -gt 0 ] || return 0
	mkdirs "$dir"
	put "$mode" "$dir" "$@"
}

# soname SO -- the SONAME of a shared library
soname() {
	LC_ALL=C readelf -d "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p'
}

cmd_lib() {
	local dir=$1 so name sn
	shift
	need_abs "the directory" "$dir"
	[ $# -gt 0 ] || return 0
	mkdirs "$dir"
	for so in "$@"; do
		name=${so##*/}
		sn=$(soname "$so")
		[ -n "$sn" ] || die "$so has no SONAME"
		[[ $name == "${name%%.so.*}.so."* ]] || die "$name is not named LIB.so.VERSION"
		put 755 "$dir" "$so"
		[ "$sn" = "$name" ] || link "$name" "$dir/$sn"
		link "$sn" "$dir/${name%%.so.*}.so"
	done
}

cmd_man() {
	local mandir=$1 page sect list
	local -A pages=()
	shift
	need_abs "MANDIR" "$mandir"
	for page in "$@"; do
		sect=${page%/*}
		sect=${sect##*/}
		[[ $sect =~ ^man[1-8]$ ]] || die "$page is not in a manN directory"
		[ "${page##*.}" = "${sect#man}" ] || die "$page is not of section ${sect#man}"
		pages[$sect]+="$page"$'\n'
	done
	for sect in "${!pages[@]}"; do
		mapfile -t list < <(printf %s "${pages[$sect]}")
		mkdirs "$mandir/$sect"
		put 644 "$mandir/$sect" "${list[@]}"
	done
}

cmd_end() {
	local tmp="$DESTDIR$MANIFEST.tmp"
	{
		head -n 1 "$DESTDIR$MANIFEST"
		tail -n +2 "$DESTDIR$MANIFEST" | sort -u
	} >"$tmp" || die "cannot sort the manifest"
	mv "$tmp" "$DESTDIR$MANIFEST" || die "cannot write the manifest"
	echo "install: $(wc -l <"$RUNLOG") files; the list is $MANIFEST"
}

cmd_uninstall() {
	local m="$DESTDIR$MANIFEST" line n=0 dirs
	need_abs "the manifest" "$MANIFEST"
	[ -f "$m" ] || die "no $m: nothing was installed with this PREFIX and DESTDIR"
	while IFS= read -r line; do
		case $line in
		'#'* | '' | */) continue ;;
		/*) ;;
		*) die "the manifest names '$line', not an absolute path" ;;
		esac
		[ "$line" = "$MANIFEST" ] && continue
		if [ -L "$DESTDIR$line" ] || [ -f "$DESTDIR$line" ]; then
			rm -f "$DESTDIR$line" || die "cannot remove $line"
			n=$((n + 1))
		elif [ -e "$DESTDIR$line" ]; then
			echo "uninstall: $line is no longer a file: left alone" >&2
		fi
	done <"$m"
	# the directories it made, deepest first; one still holding files stays
	mapfile -t dirs < <(grep '^/.*/$' "$m" | sort -r)
	rm -f "$m" || die "cannot remove $MANIFEST"
	for line in "${dirs[@]}"; do
		rmdir "$DESTDIR$line" 2>/dev/null
	done
	echo "uninstall: $n files removed"
}

[ $# -gt 0 ] || die "usage: install.sh begin|file|lib|man|end|uninstall ARGS..."
command=$1
shift
case $command in
file | lib | man) load_claims ;;
esac
case $command in
begin) cmd_begin ;;
file) [ $# -ge 2 ] || die "usage: file MODE DIR FILE..." && cmd_file "$@" ;;
lib) [ $# -ge 1 ] || die "usage: lib DIR SO..." && cmd_lib "$@" ;;
man) [ $# -ge 1 ] || die "usage: man MANDIR PAGE..." && cmd_man "$@" ;;
end) cmd_end ;;
uninstall) cmd_uninstall ;;
*) die "unknown command '$command'" ;;
esac
