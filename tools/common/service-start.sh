# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# tools/common/service-start.sh -- sourced (bash) by the scripts that start a
# daemon of the framework (rpma-server, rpmemd) in the background, wait for a
# line of its log and stop it: the benchmarks (bench-cdf.sh, bench-service.sh,
# bench-gpspm.sh), the walk-through (run-service.sh), the seed writer
# (fuzz-seeds.sh), the tools' tests (tool-test.sh, test-rpma-server*.sh) and
# the examples' runner (examples/run-lib.sh, for service_kill_tree). It
# defines functions and sets SERVICE_PID empty; it runs nothing.
#
# The messages of service_fail and service_need start with the script's name
# without ".sh" (bench-cdf for bench-cdf.sh), also the make target that
# builds what the script needs. service_start records the daemon it started
# in SERVICE_PID, which service_cleanup kills; service_workdir makes WORK,
# which service_cleanup removes.

SERVICE_PID=

# service_wait LOG PID TEXT TENTHS -- wait until the file LOG holds TEXT (a
# fixed string) while the process PID runs, looking every tenth of a second
# at most TENTHS times: 0 once it does, 1 when PID exited first (the log is
# read once more after its exit) or the time went by
service_wait() {
	local i
	for ((i = 0; i < $4; i++)); do
		grep -qsF -- "$3" "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	grep -qsF -- "$3" "$1"
}

# service_start LOG TEXT TENTHS CMD ARGS... -- run CMD ARGS in the background
# with its standard output and error in LOG, its pid in SERVICE_PID, and
# service_wait until LOG holds TEXT: 0 once it does, 1 otherwise (the daemon
# may still run: SERVICE_PID tells). LOG is emptied here, before the start:
# the background job's own redirection would empty it only once the job
# runs, and a first look before that would find the TEXT a previous daemon
# wrote there, and take a daemon that has not started for one that listens
# (a signal sent to it then may even be lost: a background job of a script
# ignores SIGINT until the program blocks it)
service_start() {
	local log=$1 text=$2 tenths=$3
	shift 3
	: >"$log"
	"$@" >>"$log" 2>&1 &
	SERVICE_PID=$!
	service_wait "$log" "$SERVICE_PID" "$text" "$tenths"
}

# service_start_apm RUN SERVER CONFIG LOG -- service_start of rpma-server
# SERVER over RUN (softrdma-run) on CONFIG at log level info, for 5 s at most,
# with its log in LOG, shown on the standard error when it does not listen.
# The benchmarks' region is an ordinary file, where rpma-server refuses
# persistence apm: PMEM2_FORCE_GRANULARITY, libpmem2's testing switch, calls
# it persistent memory, so that the APM path is measured (as rpma-bench
# declares direct write to PMem on its memory); nothing is durable here
# (doc/DURABILITY.md)
service_start_apm() {
	service_start "$4" "listening on" 50 env PMEM2_FORCE_GRANULARITY=CACHE_LINE "$1" "$2" \
		-c "$3" --set log.level=info && return 0
	cat "$4" >&2
	return 1
}

# service_kill_tree PID -- SIGKILL a process and all its descendants,
# children first (a timeout or softrdma-run may stand between the script and
# the program)
service_kill_tree() {
	local child
	for child in $(pgrep -P "$1" 2>/dev/null); do
		service_kill_tree "$child"
	done
	kill -KILL "$1" 2>/dev/null
}

# service_running PID -- whether PID is a process that runs: not gone, and not
# a zombie waiting for the script to reap it (kill -0 succeeds on those)
service_running() {
	local stat
	kill -0 "$1" 2>/dev/null || return 1
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# service_dump_stacks PID -- on the standard error, each process of PID's tree
# (its command line) and, where gdb is installed, every thread's stack: what a
# process that does not end is waiting for
service_dump_stacks() {
	local p
	for p in "$1" $(pgrep -P "$1" 2>/dev/null); do
		[ "$p" = "$1" ] || { service_dump_stacks "$p"; continue; }
		echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >&2
		command -v gdb >/dev/null || continue
		timeout -k 5 60 gdb -nx -batch -p "$p" -ex 'thread apply all bt' </dev/null 2>&1 |
			grep -E '^(Thread |#[0-9])' >&2
	done
}

# service_reap PID [TENTHS [WHAT]] -- wait for a process the script started to
# end, TENTHS tenths of a second at most (default 300): then say on the
# standard error that it still runs (WHAT: after what) with the stacks of its
# threads (service_dump_stacks), and SIGKILL it and its descendants; returns
# its exit status (137 when killed)
service_reap() {
	local i tenths=${2:-300}
	for ((i = 0; i < tenths; i++)); do
		service_running "$1" || break
		sleep 0.1
	done
	if service_running "$1"; then
		echo "${0##*/}: process $1 still runs after $((tenths / 10)) s${3:+ $3}:" >&2
		service_dump_stacks "$1"
		service_kill_tree "$1"
	fi
	wait "$1" 2>/dev/null
}

# service_stop PID [TENTHS [SIG]] -- send SIG (default TERM) to a process the
# script started (a timeout passes it on to the program) and service_reap it:
# its exit status, 137 when it did not end within TENTHS tenths of a second
service_stop() {
	kill "-${3:-TERM}" "$1" 2>/dev/null
	service_reap "$1" "${2:-300}" "since SIG${3:-TERM}"
}

# service_config FILE PORT REGION [NAME=VALUE...] -- write to FILE the
# configuration of an rpma-server on 127.0.0.1:PORT and of its client (one
# target on it), with one region "data" backed by the file REGION (created);
# each NAME=VALUE changes a default: workers=1 polling=event sq=64 msg=4K
# (the message size) credits=16 max=8 (listen.max_connections) target=srv
# (its name) conns=1 (its connections) size=1M persistence=gpspm (apm: a
# region for reads, writes and flushes, written directly) connect_ms= and
# operation_ms= (timeouts; none: the defaults) level=error (log.level);
# returns 1 on an unknown NAME
service_config() {
	local file=$1 port=$2 region=$3 workers=1 polling=event sq=64 msg=4K credits=16 max=8
	local target=srv conns=1 size=1M persistence=gpspm connect_ms='' operation_ms='' level=error
	local kv usage='' timeouts=''
	shift 3
	for kv in "$@"; do
		case ${kv%%=*} in
		workers | polling | sq | msg | credits | max | target | conns | size | persistence | \
			connect_ms | operation_ms | level)
			printf -v "${kv%%=*}" %s "${kv#*=}"
			;;
		*)
			echo "service_config: unknown setting $kv" >&2
			return 1
			;;
		esac
	done
	[ "$persistence" = apm ] && usage="usage: [read, write, flush], "
	[ -n "$connect_ms" ] && timeouts="connect_ms: $connect_ms"
	[ -n "$operation_ms" ] && timeouts+="${timeouts:+, }operation_ms: $operation_ms"
	{
		echo "workers: {count: $workers, polling: $polling}"
		echo "queues: {sq: $sq, messages: {size: $msg, credits: $credits}}"
		echo "listen: {address: 127.0.0.1, port: $port, max_connections: $max}"
		echo "targets: [{name: $target, address: 127.0.0.1, port: $port, connections: $conns}]"
		echo "regions:"
		echo "  - {name: data, size: $size, backing: {file: $region, create: true},"
		echo "     ${usage}persistence: $persistence${usage:+, direct_write: true}}"
		[ -z "$timeouts" ] || echo "timeouts: {$timeouts}"
		echo "log: {level: $level}"
	} >"$file"
}

# service_fail WHY... -- "NAME: WHY" on the standard error, exit 1
service_fail() {
	local name=${0##*/}
	echo "${name%.sh}: $*" >&2
	exit 1
}

# service_need PROGRAM... -- service_fail unless each PROGRAM is executable
service_need() {
	local prog name=${0##*/}
	for prog in "$@"; do
		[ -x "$prog" ] || service_fail "$prog is missing (make ${name%.sh} builds it)"
	done
}

# service_workdir [DIR] -- WORK: a new directory DIR/NAME.XXXXXX (DIR:
# $TMPDIR, else /tmp); returns 1 (mktemp says why) when it cannot be made
service_workdir() {
	local name=${0##*/}
	WORK=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/${name%.sh}.XXXXXX")
}

# service_cleanup -- SIGKILL the daemon of SERVICE_PID if it still runs and
# reap it, remove WORK; for the script's EXIT trap
service_cleanup() {
	[ -n "$SERVICE_PID" ] && kill -KILL "$SERVICE_PID" 2>/dev/null &&
		wait "$SERVICE_PID" 2>/dev/null
	[ -z "${WORK:-}" ] || rm -rf "$WORK"
}
