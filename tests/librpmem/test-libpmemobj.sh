#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test-libpmemobj.sh BIN RPMEMD -- Debian's libpmemobj, unchanged (packages
# libpmemobj1 and libpmemobj-dev), with a pool set whose REPLICA line names
# a pool of rpmemd, over softrdma: libpmemobj loads our librpmem.so.1 (from
# build/lib) and replicates every persist to the daemon. BIN is
# build/librpmem/pmemobj_replica (tests/librpmem/pmemobj_replica.c), RPMEMD
# build/tools/rpmemd. The daemon and the client share a pre-shared key.
#
# For each shape of pool set (one part; two parts, each with a header;
# two parts with OPTION SINGLEHDR; one part written by 4 threads at once):
# create the pool, compare the replica with the local pool, reopen it
# (libpmemobj then checks the attributes rpmem_open() gives back), check
# and extend it, compare again. Comparing: the pool's bytes are made of the
# part files as rpmemd maps them (tools/rpmemd/pool.h, LAYOUT: the first
# part whole, each later part after its own header unless SINGLEHDR), the
# same for the local set as libpmemobj maps it; every range libpmemobj
# persisted -- each object and the root (the program's manifest), and the
# pool descriptor -- must be equal in both. The rest need not be:
# libpmemobj keeps run-time state in the pool that it never persists.
# Debian's pmempool (package pmdk-tools) must find each header of the
# remote set correct, of the local replica's pool set, the parts linked to
# each other and to the local replica (and a set of one part consistent).
#
# Then the failures: a client with another key cannot create a pool (a
# clean failure, nothing left on either side); rpmemd killed with SIGKILL
# during a loop of transactions makes the program die at once (libpmemobj
# gives up on a failed persist), never hang; after the daemon is
# restarted, the pool reopens with every committed transaction, and its
# replica compares equal.
#   LIBPMEMOBJ_TEST_PORT   the first of the two TCP ports used (default 17660)
set -u
bin=$1
rpmemd=$2
TOOL=$bin
. "$(dirname "$0")/../../tools/tool-test.sh"

port=${LIBPMEMOBJ_TEST_PORT:-17660}
crash_port=$((port + 1))
N=60           # objects of a created pool
DESC_OFF=4096  # the pool descriptor libpmemobj persists: 4096 to 6688
DESC_LEN=2592

# cleanup -- the background processes of this script killed, the directory removed
# (replaces tool-test.sh's)
cleanup() {
	local p
	for p in $(jobs -p); do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}

# need CMD PACKAGE -- fail at once without CMD
need() {
	command -v "$1" >/dev/null && return
	echo "FAIL test-libpmemobj: $1 not found (Debian package $2; run tools/install-deps.sh)"
	exit 1
}

need pmempool pmdk-tools
need cmp diffutils
for f in "$bin" "$rpmemd" "$root/build/lib/librpmem.so.1"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "FAIL test-libpmemobj: $f is not built"; exit 1; }
done

# libpmemobj dlopen()s librpmem.so.1: ours first (softrdma-run puts its own before it)
export LD_LIBRARY_PATH="$root/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIBRPMEM_CONFIG=$tmp/client.yaml
mkdir -p "$tmp/sets" "$tmp/local"

# key FILE -- a fresh random key of 32 bytes, readable by its owner only
key() {
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$1" && echo >>"$1" && chmod 600 "$1"
}

key "$tmp/key"
key "$tmp/other.key"

# client_config FILE KEY -- librpmem's configuration: the key, short time-outs
client_config() {
	cat >"$1" <<YAML
auth: {key_file: $2}
workers: {count: 2}
timeouts: {connect_ms: 3000, operation_ms: 3000, heartbeat_interval_ms: 200, heartbeat_misses: 5}
YAML
}

client_config "$tmp/client.yaml" "$tmp/key"
client_config "$tmp/wrong.yaml" "$tmp/other.key"

# daemon_config FILE PORT -- rpmemd on 127.0.0.1:PORT, pool sets in $tmp/sets, GPSPM, the key
daemon_config() {
	cat >"$1" <<YAML
workers: {count: 2}
listen: {address: 127.0.0.1, port: $2, max_connections: 16}
rpmem: {poolset_dir: $tmp/sets, persistence: gpspm}
auth: {key_file: $tmp/key}
log: {level: info}
YAML
}

# daemon_start NAME CONFIG LOG -- rpmemd in the background ($dpid), counted: it
# says "listening on" within 10 s
daemon_start() {
	: >"$3" # now: the job's own redirection may come after the first look below
	"$run" "$rpmemd" -c "$2" >"$3.out" 2>>"$3" &
	dpid=$!
	for _ in $(seq 100); do
		grep -qF "rpmemd: notice: listening on" "$3" && break
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.1
	done
	if grep -qF "rpmemd: notice: listening on" "$3"; then
		ok
	else
		ko "$1" "rpmemd did not start: $(tail -n 3 "$3" | tr '\n' ' ')"
		return 1
	fi
}

# sets NAME PORT OPTION SIZE... -- the remote set $tmp/sets/NAME.set and the local
# $tmp/NAME.set (its REPLICA: NAME.set at 127.0.0.1:PORT), parts of the SIZEs, OPTION if any
sets() {
	local name=$1 rport=$2 option=$3 k=0 size
	shift 3
	{
		echo PMEMPOOLSET
		[ -n "$option" ] && echo "OPTION $option"
		for size in "$@"; do echo "$size $tmp/sets/$name.part$((k++))"; done
	} >"$tmp/sets/$name.set"
	k=0
	{
		echo PMEMPOOLSET
		[ -n "$option" ] && echo "OPTION $option"
		for size in "$@"; do echo "$size $tmp/local/$name.part$((k++))"; done
		echo "REPLICA 127.0.0.1:$rport $name.set"
	} >"$tmp/$name.set"
}

# image SET OUT -- the bytes of the pool of the first replica of SET as one file:
# the first part whole, a later part after its header (none with SINGLEHDR); a
# link to the part of a set of one part
image() {
	local hdr=4096 k=0 size path parts
	grep -q '^OPTION SINGLEHDR' "$1" && hdr=0
	parts=$(sed -n '/^REPLICA/q; /^[0-9]/p' "$1")
	rm -f "$2"
	if [ "$(echo "$parts" | wc -l)" -eq 1 ]; then
		ln -s "${parts#* }" "$2"
		return
	fi
	while read -r size path; do
		if [ "$k" -eq 0 ]; then cat "$path"; else tail -c +$((hdr + 1)) "$path"; fi >>"$2"
		k=$((k + 1))
	done <<<"$parts"
}

# differ MANIFEST LOCAL REMOTE -- the ranges of MANIFEST (and the pool descriptor)
# where the two images differ, one line each (ranges that overlap, too); then
# "compared R ranges, B bytes"
differ() {
	{
		echo "$DESC_OFF $DESC_LEN descriptor"
		cat "$1"
	} | sort -n -k1,1 >"$1.all"
	cmp -l "$2" "$3" 2>&1 | awk '
		NR == FNR {
			off[NR] = $1; len[NR] = $2; name[NR] = $3; bytes += $2; n = NR
			if (n > 1 && off[n] < off[n - 1] + len[n - 1])
				print name[n - 1] " and " name[n] " overlap"
			next
		}
		/^cmp:/ { print; next }
		{
			# the last range starting at or before the differing byte x
			x = $1 - 1; lo = 1; hi = n; i = 0
			while (lo <= hi) {
				mid = int((lo + hi) / 2)
				if (off[mid] <= x) { i = mid; lo = mid + 1 } else hi = mid - 1
			}
			if (i && x < off[i] + len[i] && !(i in seen)) {
				seen[i] = 1
				printf "%s (pool offset %d, %d bytes): byte %d differs\n", name[i], off[i], len[i], x - off[i]
			}
		}
		END { printf "compared %d ranges, %d bytes\n", n, bytes }' "$1.all" -
}

# compare NAME MANIFEST PART0 -- the replica of NAME against the local pool, at every
# range of MANIFEST; with PART0 (the first part's size), some objects must lie beyond it
compare() {
	local name=$1 m=$2 out
	image "$tmp/$name.set" "$tmp/$name.limg"
	image "$tmp/sets/$name.set" "$tmp/$name.rimg"
	if [ "$(stat -L -c %s "$tmp/$name.limg")" -ne "$(stat -L -c %s "$tmp/$name.rimg")" ]; then
		ko "$name/compare" "the local pool has $(stat -L -c %s "$tmp/$name.limg") bytes, the replica $(stat -L -c %s "$tmp/$name.rimg")"
		return 1
	fi
	out=$(differ "$m" "$tmp/$name.limg" "$tmp/$name.rimg")
	if [ "$(echo "$out" | wc -l)" -ne 1 ] || [ "$(wc -l <"$m")" -lt 2 ]; then
		ko "$name/compare" "$(echo "$out" | head -n 5 | tr '\n' ';')"
		return 1
	fi
	if [ -n "${3:-}" ] && ! awk -v p="$3" '$1 + $2 > p { f = 1 } END { exit !f }' "$m"; then
		ko "$name/compare" "no object beyond the first part ($3 bytes): the second part went unchecked"
		return 1
	fi
	ok
	echo "  $name: replica equal to the local pool: $out"
}

# field FILE NAME -- a field of pmempool info's output
field() { sed -n "s/^$2 *: //p" "$1"; }

# headers NAME NHDRS -- the remote set's NHDRS headers, read by pmempool: each correct,
# all of one pool set with the local replica, linked part to part in a ring, each naming
# the local replica as its neighbours (and the local replica naming the remote one); a
# set of one part consistent. (pmempool checks a set as a whole pool: a later part's
# links name the other replica where it expects the set itself, "ambiguous
# pool_hdr.uuid", so a remote set of more parts is never consistent to it.)
headers() {
	local name=$1 nhdrs=$2 c=$tmp/$1.check l=$tmp/$1.linfo r k next nparts
	nparts=$(grep -c '^[0-9]' "$tmp/sets/$name.set")
	pmempool check -v "$tmp/sets/$name.set" >"$c" 2>&1
	if [ "$(grep -c 'pool header correct$' "$c")" -ne "$nhdrs" ] ||
		{ [ "$nparts" -eq 1 ] && ! grep -qx "$tmp/sets/$name.set: consistent" "$c"; }; then
		ko "$name/pmempool" "check of the remote set: $(tr '\n' ' ' <"$c")"
		return 1
	fi
	pmempool info "$tmp/local/$name.part0" >"$l" 2>&1
	for k in $(seq 0 $((nhdrs - 1))); do
		r=$tmp/$name.rinfo$k
		pmempool info "$tmp/sets/$name.part$k" >"$r" 2>&1
		if ! grep -q '^Signature *: PMEMOBJ' "$r" ||
			! grep -q '^Checksum *: 0x[0-9a-f]* \[OK\]$' "$r"; then
			ko "$name/pmempool" "info of remote part $k: $(head -n 20 "$r" | tr '\n' ' ')"
			return 1
		fi
	done
	for k in $(seq 0 $((nhdrs - 1))); do
		r=$tmp/$name.rinfo$k
		next=$tmp/$name.rinfo$(((k + 1) % nhdrs))
		if [ -z "$(field "$l" UUID)" ] || [ -z "$(field "$r" UUID)" ] ||
			[ "$(field "$r" 'Pool set UUID')" != "$(field "$l" 'Pool set UUID')" ] ||
			[ "$(field "$r" 'Next part UUID')" != "$(field "$next" UUID)" ] ||
			[ "$(field "$next" 'Previous part UUID')" != "$(field "$r" UUID)" ] ||
			[ "$(field "$r" 'Next replica UUID')" != "$(field "$l" UUID)" ] ||
			[ "$(field "$r" 'Previous replica UUID')" != "$(field "$l" UUID)" ]; then
			ko "$name/pmempool" "remote part $k does not link: $(grep UUID "$r" | tr '\n' ' '); local: $(grep UUID "$l" | tr '\n' ' ')"
			return 1
		fi
	done
	r=$tmp/$name.rinfo0
	if [ "$(field "$l" 'Next replica UUID')" != "$(field "$r" UUID)" ] ||
		[ "$(field "$l" 'Previous replica UUID')" != "$(field "$r" UUID)" ]; then
		ko "$name/pmempool" "the local replica does not name the remote one: $(grep UUID "$l" | tr '\n' ' ')"
		return 1
	fi
	ok
	echo "  $name: pmempool: $nhdrs remote header(s) correct and linked$([ "$nparts" -eq 1 ] &&
		echo ", the set consistent"), pool set $(field "$r" 'Pool set UUID')"
}

# self_test NAME MANIFEST -- the comparison finds one byte changed in the replica's copy
self_test() {
	local name=$1 m=$2 off len out
	read -r off len _ < <(tail -n 1 "$m")
	cp "$tmp/$name.rimg" "$tmp/bad.rimg"
	printf '\x5a' | dd of="$tmp/bad.rimg" bs=1 seek=$((off + len / 2)) conv=notrunc status=none
	cmp -s "$tmp/$name.rimg" "$tmp/bad.rimg" &&
		printf '\xa5' | dd of="$tmp/bad.rimg" bs=1 seek=$((off + len / 2)) conv=notrunc status=none
	out=$(differ "$m" "$tmp/$name.limg" "$tmp/bad.rimg")
	if echo "$out" | grep -q "(pool offset $off, $len bytes): byte $((len / 2)) differs"; then
		ok
		echo "  self-test: a byte changed in the replica is found: $(echo "$out" | head -n 1)"
	else
		ko self-test "a changed byte at pool offset $((off + len / 2)) went unnoticed: $out"
	fi
	rm -f "$tmp/bad.rimg"
}

# variant NAME OPTION NHDRS PART0 SIZE... -- create, compare, reopen, compare
variant() {
	local name=$1 option=$2 nhdrs=$3 part0=$4
	shift 4
	sets "$name" "$port" "$option" "$@"
	echo "$name: local and remote parts $*${option:+, OPTION $option}"
	expect "$name/create" 0 "^create: $N objects intact" create "$tmp/$name.set" "$N" "$tmp/$name.m1" &&
		compare "$name" "$tmp/$name.m1" "$part0" && headers "$name" "$nhdrs"
	[ "$name" = single ] && self_test "$name" "$tmp/$name.m1"
	expect "$name/verify" 0 "^verify: $((N + N / 4)) objects intact" verify "$tmp/$name.set" "$N" \
		"$tmp/$name.m2" && compare "$name" "$tmp/$name.m2" "$part0"
}

t0=$(date +%s)
daemon_config "$tmp/rpmemd.yaml" "$port"
daemon_start rpmemd "$tmp/rpmemd.yaml" "$tmp/log" || { summary test-libpmemobj; exit 1; }
main_pid=$dpid

variant single "" 1 "" 32M
variant two "" 2 4M 4M 28M
variant singlehdr SINGLEHDR 1 4M 4M 28M

# 4 threads at once (64 objects each), then reopened (64 more)
sets mt "$port" "" 32M
echo "mt: 4 threads, transactions at once"
expect mt/run 0 "^mt: 256 objects intact" mt "$tmp/mt.set" "$tmp/mt.m1" && compare mt "$tmp/mt.m1"
expect mt/verify 0 "^verify: 320 objects intact" verify "$tmp/mt.set" 256 "$tmp/mt.m2" &&
	compare mt "$tmp/mt.m2" && headers mt 1

# another key: pmemobj_create fails with EACCES, no part is left, the daemon serves on
echo "wrong key: the client's key is not the daemon's"
sets wrongkey "$port" "" 32M
LIBRPMEM_CONFIG=$tmp/wrong.yaml expect wrongkey/create 1 \
	"pmemobj_create.*remote replica.*Permission denied" create "$tmp/wrongkey.set" 10 "$tmp/wrongkey.m"
[ ! -e "$tmp/sets/wrongkey.part0" ] && [ ! -e "$tmp/local/wrongkey.part0" ] && ok ||
	ko wrongkey/parts "a part file was left: $(ls "$tmp/sets" "$tmp/local" | tr '\n' ' ')"
grep -q "refused (AUTH_FAILED)" "$tmp/log" && kill -0 "$main_pid" 2>/dev/null && ok ||
	ko wrongkey/daemon "rpmemd did not log the refusal, or died"
expect wrongkey/right-key 0 "^create: 10 objects intact" create "$tmp/wrongkey.set" 10 "$tmp/wrongkey.m"

# rpmemd killed during a loop of transactions: the program dies within 10 s, never hangs.
# librpmem fails the persists with ECONNRESET; libpmemobj 1.12.1 answers a failed remote
# persist by cleaning its pool up and then aborting, and its cleanup persists again
# through the same replica, fails again and cleans up again: the process often dies
# of SIGSEGV inside libpmemobj (its debug build logs "rpmem_persist(...) FATAL ERROR
# ... Connection reset by peer", then "error clean up..." twice) rather than SIGABRT
echo "crash: rpmemd killed with SIGKILL during transactions"
daemon_config "$tmp/crash.yaml" "$crash_port"
daemon_start crash/start "$tmp/crash.yaml" "$tmp/crash.log"
crash_pid=$dpid
sets crash "$crash_port" "" 32M
expect crash/create 0 "^create: 40 objects intact" create "$tmp/crash.set" 40 "$tmp/crash.m1"
timeout 60 "$run" "$bin" loop "$tmp/crash.set" 1000000 >"$tmp/loop.out" 2>"$tmp/loop.err" &
loop_pid=$!
for _ in $(seq 200); do
	grep -q '^committed 50$' "$tmp/loop.out" && break
	kill -0 "$loop_pid" 2>/dev/null || break
	sleep 0.05
done
if grep -q '^committed 50$' "$tmp/loop.out"; then
	ok
	kill -9 "$crash_pid"
	killed=$(date +%s%N)
	wait "$crash_pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$loop_pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$loop_pid" 2>/dev/null; then
		ko crash/loop "the program still runs 10 s after rpmemd was killed"
		kill "$loop_pid" 2>/dev/null # timeout passes SIGTERM on to the program
		wait "$loop_pid" 2>/dev/null
	else
		wait "$loop_pid" 2>/dev/null
		rc=$?
		ms=$((($(date +%s%N) - killed) / 1000000))
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
			ko crash/loop "exit $rc after rpmemd was killed, expected a failure"
		else
			ok
			echo "  the program ended $ms ms after rpmemd was killed: exit $rc$([ "$rc" -gt 128 ] &&
				echo " (signal $((rc - 128)))"); its last words: $(tail -n 1 "$tmp/loop.err")"
		fi
	fi
	committed=$(sed -n 's/^committed //p' "$tmp/loop.out" | tail -n 1)
	# 40 objects, one more at every fourth transaction: none committed may be lost
	least=$((40 + (committed + 3) / 4))
	[ "$least" -gt 400 ] && least=400
	daemon_start crash/restart "$tmp/crash.yaml" "$tmp/crash2.log"
	expect crash/verify 0 "^verify: reopened, [0-9]+ objects intact" verify "$tmp/crash.set" "$least+" \
		"$tmp/crash.m2" && compare crash "$tmp/crash.m2" &&
		echo "  reopened after $committed committed transactions: $(grep '^verify: reopened' "$tmp/out")"
else
	ko crash/loop "no 50 transactions committed: $(tail -n 3 "$tmp/loop.err" | tr '\n' ' ')"
	kill "$loop_pid" 2>/dev/null
	wait "$loop_pid" 2>/dev/null
fi

echo "run time: $(($(date +%s) - t0)) s"
summary test-libpmemobj
