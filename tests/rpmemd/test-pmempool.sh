#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-pmempool.sh BIN -- part files that rpmemd's set file and header code
# writes (BIN is build/rpmemd/write-parts, tests/rpmemd/write_parts.c), read
# by Debian's pmempool (package pmdk-tools):
# - sets of each shape with headers (one per part; SINGLEHDR), with the
#   features Debian's libpmemobj gives a pool (CKSUM_2K and SDS, CHECK_BAD_BLOCKS)
#   and with none (the checksum over all 4 KiB): "pmempool check -v" finds
#   each header correct and the set consistent, "pmempool info" reads it and
#   reports its checksums [OK];
# - the attributes a client gives its remote replica (replica UUIDs naming
#   another pool): each header correct, the verdict printed;
# - a changed header byte: pmempool finds the header incorrect, its checksum invalid.
set -u
bin=$1
command -v pmempool >/dev/null || {
	echo "FAIL rpmemd-pmempool: pmempool not found (package pmdk-tools; run tools/install-deps.sh)"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0

# ok NAME / bad NAME WHY FILE -- count a result; bad shows FILE
ok() {
	passed=$((passed + 1))
	echo "PASS rpmemd-pmempool/$1"
}
bad() {
	failed=$((failed + 1))
	echo "FAIL rpmemd-pmempool/$1: $2"
	sed 's/^/    /' "$3" | head -40
}

# make_set NAME OPTION N -- $tmp/NAME.set: OPTION (may be empty), N parts of 2 MiB
make_set() {
	local name=$1 option=$2 n=$3
	{
		echo PMEMPOOLSET
		[ -n "$option" ] && echo "OPTION $option"
		for i in $(seq 0 $((n - 1))); do echo "2M $tmp/$name.part$i"; done
	} >"$tmp/$name.set"
}

# write NAME COMPAT INCOMPAT REPLICAS -- the parts of $tmp/NAME.set written by BIN
write() {
	"$bin" "$tmp/$1.set" "$2" "$3" "$4" >"$tmp/$1.write" 2>&1
	local st=$?
	[ "$st" -eq 77 ] && { skipped=$((skipped + 1)); cat "$tmp/$1.write"; return 1; }
	[ "$st" -eq 0 ] || { bad "$1" "write-parts exited $st" "$tmp/$1.write"; return 1; }
}

# check_hdrs NAME NHDRS -- pmempool check -v says each of the NHDRS headers is correct
check_hdrs() {
	pmempool check -v "$tmp/$1.set" >"$tmp/$1.check" 2>&1
	local n
	n=$(grep -c 'pool header correct$' "$tmp/$1.check")
	[ "$n" -eq "$2" ] || { bad "$1" "$n of $2 headers correct" "$tmp/$1.check"; return 1; }
}

# consistent NAME NHDRS INCOMPAT -- a set pmempool finds consistent and reads, checksums [OK]
consistent() {
	local name=$1
	check_hdrs "$name" "$2" || return
	grep -qx "$tmp/$name.set: consistent" "$tmp/$name.check" ||
		{ bad "$name" "not consistent" "$tmp/$name.check"; return; }
	pmempool info "$tmp/$name.set" >"$tmp/$name.info" 2>&1 ||
		{ bad "$name" "pmempool info failed" "$tmp/$name.info"; return; }
	grep -q '^Signature *: PMEMOBJ$' "$tmp/$name.info" &&
		grep -q "^Mandatory features *: $3\b" "$tmp/$name.info" &&
		grep -q '^Checksum *: 0x[0-9a-f]* \[OK\]$' "$tmp/$name.info" &&
		! grep -q 'wrong\|invalid\|error' "$tmp/$name.info" ||
		{ bad "$name" "pmempool info does not show the header as written" "$tmp/$name.info"; return; }
	ok "$name: $(sed -n 's/^remote pool size/pool size/p' "$tmp/$name.write"), check: consistent, info: checksum [OK]"
}

make_set each "" 2
write each 0x1 0x6 self && consistent each 2 0x6

make_set single SINGLEHDR 3
write single 0x1 0x7 self && consistent single 1 0x7

make_set csum4k "" 3
write csum4k 0x0 0x0 self && consistent csum4k 3 0x0

# a client's remote replica: its replica UUIDs name pools that this set does not hold
make_set remote "" 2
if write remote 0x1 0x6 remote && check_hdrs remote 2; then
	ok "remote: each header correct; pmempool check's verdict: $(tail -n 2 "$tmp/remote.check" | sed 's|^/.*/||' | tr '\n' ' ')"
fi

# one byte of the second part's UUID changed: pmempool finds the header incorrect
make_set corrupt "" 2
if write corrupt 0x1 0x6 self; then
	# the byte's bits inverted: a fixed value was the byte already in 1 run of 256
	byte=$(od -An -tu1 -j45 -N1 "$tmp/corrupt.part1" | tr -d ' ')
	printf "\\x$(printf %02x $((byte ^ 0xff)))" |
		dd of="$tmp/corrupt.part1" bs=1 seek=45 conv=notrunc status=none
	pmempool check -v "$tmp/corrupt.set" >"$tmp/corrupt.check" 2>&1
	pmempool info "$tmp/corrupt.part1" >"$tmp/corrupt.info" 2>&1
	if grep -q 'part 1: incorrect pool header$' "$tmp/corrupt.check" &&
		grep -q 'invalid checksum$' "$tmp/corrupt.info"; then
		ok "corrupt: check: $(grep -m1 'part 1: incorrect' "$tmp/corrupt.check"); info: $(sed 's|.*/||' "$tmp/corrupt.info")"
	else
		bad corrupt "the changed byte went unnoticed" "$tmp/corrupt.check"
	fi
fi

echo "rpmemd-pmempool: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
