# SPDX-License-Identifier: BSD-3-Clause
#
# run-lib.sh -- how examples/run-examples.sh, tests/valgrind/run-valgrind.sh
# and tests/interop/run-interop.sh run an example pair over softrdma: start a
# server under timeout and wait for its "server: listening on" line, run
# clients again while they could not connect, check what each side printed
# (examples/expectations.sh, sourced from here), kill and reap what is left
# (service_kill_tree of tools/common/service-start.sh, sourced from here),
# count and report the results. Sourced, not run; defines functions, the
# constants below and the pass/fail counters only.
#
# The sourcing script sets RUN (the softrdma-run to use), TIMEOUT (seconds
# per program) and, before each example, PORT; rl_init sets WORK (the work
# directory) and PIDS (the processes to kill when the script ends).
# LISTEN_TRIES may be raised after sourcing for slow servers.

# shellcheck shell=bash
# shellcheck disable=SC2034  # ADDR, WORK and SRV_PID are read by the sourcing script

# shellcheck source=examples/expectations.sh
. "${BASH_SOURCE[0]%/*}/expectations.sh"
# shellcheck source=tools/common/service-start.sh
. "${BASH_SOURCE[0]%/*}/../tools/common/service-start.sh"

ADDR=127.0.0.1
CLIENT_TRIES=5     # times a client is started while it cannot connect
NOT_CONNECTED=3    # a client's exit code when the server was not ready yet
LISTEN_TRIES=100   # checks, 0.1 s apart, for the server's listening line

RL_PASSED=0
RL_FAILED=0

# rl_init NAME -- make the work directory /tmp/NAME.XXXXXX as WORK and set
# the traps that kill what is left and remove WORK when the script ends
rl_init() {
	WORK=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	PIDS=()
	trap rl_cleanup EXIT
	trap 'exit 130' INT TERM
}

# rl_cleanup -- kill whatever the script started and is still running,
# remove the work directory
rl_cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		service_kill_tree "$pid"
	done
	PIDS=()
	rm -rf "$WORK"
}

# rl_reap -- kill the processes of the current example that are still
# running
rl_reap() {
	local pid
	for pid in "${PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "  killing leftover process $pid"
			service_kill_tree "$pid"
		fi
	done
	PIDS=()
}

# rl_need_softrdma -- exit 1 unless softrdma-run works
rl_need_softrdma() {
	if ! "$RUN" true; then
		echo "softrdma is not available" >&2
		exit 1
	fi
}

# rl_run OUT CMD ARGS... -- run CMD ARGS over softrdma, bounded by timeout,
# with its output in OUT; returns its exit code. In rl_srv_start's
# background job (RL_EXEC set) timeout replaces the job, so that the job's
# pid is timeout's
rl_run() {
	local out=$1
	local -a how=()
	shift
	[ -n "${RL_EXEC:-}" ] && how=(exec)
	"${how[@]}" timeout -k 5 "$TIMEOUT" "$RUN" "$@" >"$out" 2>&1
}

# rl_srv_start OUT CMD ARGS... -- run CMD ARGS (which ends in rl_run and
# writes the server's output to OUT) in the background, record its pid (that
# of timeout) in SRV_PID and PIDS and wait until OUT has the listening line;
# returns 1 when it does not come
rl_srv_start() {
	local out=$1 i
	shift
	: >"$out"
	(
		RL_EXEC=1
		"$@"
	) &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	for ((i = 0; i < LISTEN_TRIES; i++)); do
		grep -q '^server: listening on' "$out" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "  the server did not start listening"
	return 1
}

# rl_retry CMD ARGS... -- run CMD ARGS (a client), again while it ends with
# NOT_CONNECTED, at most CLIENT_TRIES times; returns its last exit code
rl_retry() {
	local try rc
	for ((try = 1; try <= CLIENT_TRIES; try++)); do
		"$@"
		rc=$?
		[ "$rc" -ne "$NOT_CONNECTED" ] && break
		sleep 0.5
	done
	return "$rc"
}

# rl_expect_rc WHAT RC -- check an exit code of 0
rl_expect_rc() {
	if [ "$2" -ne 0 ]; then
		echo "  $1 exited with $2"
		return 1
	fi
}

# rl_check_rc WHAT TAG RC -- rl_expect_rc WHAT RC, as a check for rl_clients
rl_check_rc() {
	rl_expect_rc "$1" "$3"
}

# rl_clients CHECK CLI PREFIX NAME -- run the EXP_CLIENTS clients of the
# loaded example: one as CLI PREFIX.client NAME EXP_CLI_ARGS..., or several
# at once as CLI PREFIX.clientI NAME [EXP_CLI_PREFIX-I]; CLI returns the
# client's exit code; then CHECK WHAT TAG RC checks each of them
rl_clients() {
	local check=$1 cli=$2 prefix=$3 name=$4 i rc ok=0
	local -a cpids=()
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		"$cli" "$prefix.client" "$name" "${EXP_CLI_ARGS[@]}"
		rc=$?
		"$check" client "$prefix.client" "$rc" || ok=1
		return $ok
	fi
	for ((i = 1; i <= EXP_CLIENTS; i++)); do
		if [ -n "$EXP_CLI_PREFIX" ]; then
			"$cli" "$prefix.client$i" "$name" "$EXP_CLI_PREFIX-$i" &
		else
			"$cli" "$prefix.client$i" "$name" &
		fi
		cpids+=($!)
		PIDS+=($!)
	done
	for ((i = 1; i <= EXP_CLIENTS; i++)); do
		wait "${cpids[$((i - 1))]}"
		rc=$?
		"$check" "client $i" "$prefix.client$i" "$rc" || ok=1
	done
	return $ok
}

# rl_run_example NUM NAME CHECK -- run example NUM's server and its
# client(s) as examples/expectations.sh describes, with the calling script's
# srv_start NAME ARGS... (which sets SRV_PID, and SRV_TAG when it has one)
# and cli_run, in $WORK; CHECK WHAT TAG RC checks each side's exit (as in
# rl_clients); then the lines each side printed and the persistent file the
# example writes
rl_run_example() {
	local num=$1 name=$2 check=$3 rc ok=0

	exp_load "$num" "$WORK" || { echo "  no expectations for it"; return 1; }
	srv_start "$name" "${EXP_SRV_ARGS[@]}" || return 1
	rl_clients "$check" cli_run "$WORK/$name" "$name" || ok=1
	wait "$SRV_PID"
	rc=$?
	"$check" server "${SRV_TAG:-$WORK/$name.server}" "$rc" || ok=1
	rl_check_lines "$WORK/$name" || ok=1
	exp_check_file || ok=1
	return $ok
}

# rl_run_all CHECK SHOW... -- run every librpma example of examples/ (the
# framework's, NN-rpmaf-name, run in run-rpmaf-examples.sh) on its own PORT
# from BASE_PORT with rl_run_example NUM NAME CHECK, the programs in BIN;
# after a failure show the files WORK/NAME.SHOW of each pattern SHOW; then
# the summary
rl_run_all() {
	local check=$1 dir name num idx=0 s show
	shift
	for dir in "$ROOT"/examples/[0-9][0-9]-*/; do
		name=$(basename "$dir")
		num=${name%%-*}
		[[ $name == *-rpmaf-* ]] && continue
		PORT=$((BASE_PORT + idx))
		idx=$((idx + 1))
		if ! declare -F "exp_$num" >/dev/null; then
			rl_fail "$name (no test for it)"
			continue
		fi
		if [ ! -x "$BIN/$name/server" ] || [ ! -x "$BIN/$name/client" ]; then
			rl_fail "$name (not built)"
			continue
		fi
		if rl_run_example "$num" "$name" "$check"; then
			rl_pass "$name"
			rl_reap
			continue
		fi
		rl_fail "$name"
		show=()
		for s in "$@"; do
			# shellcheck disable=SC2206 # each SHOW is a pattern to expand
			show+=("$WORK/$name".$s)
		done
		rl_show_outputs "${show[@]}"
		rl_reap
	done
	rl_summary
}

# rl_check_lines PREFIX -- check that PREFIX.server.out and the output of
# every client (PREFIX.client.out, or PREFIX.clientI.out with several) hold
# the lines the loaded example must print
rl_check_lines() {
	local i ok=0
	exp_check_lines "$1.server.out" "$EXP_SRV_LINES" || ok=1
	if [ "$EXP_CLIENTS" -eq 1 ]; then
		exp_check_lines "$1.client.out" "$EXP_CLI_LINES" || ok=1
	else
		for ((i = 1; i <= EXP_CLIENTS; i++)); do
			exp_check_lines "$1.client$i.out" "$EXP_CLI_LINES" "$i" || ok=1
		done
	fi
	return $ok
}

# rl_show_outputs FILE... -- print the files that exist, each under its
# name, for a failed example
rl_show_outputs() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || continue
		echo "  --- $(basename "$f")"
		sed 's/^/  | /' "$f"
	done
}

# rl_pass LABEL -- report and count a passed example
rl_pass() {
	echo "PASS $1"
	RL_PASSED=$((RL_PASSED + 1))
}

# rl_fail LABEL -- report and count a failed example
rl_fail() {
	echo "FAIL $1"
	RL_FAILED=$((RL_FAILED + 1))
}

# rl_summary -- print "N passed, M failed"; returns 1 when anything failed
rl_summary() {
	echo "$RL_PASSED passed, $RL_FAILED failed"
	[ "$RL_FAILED" -eq 0 ]
}
