# SPDX-License-Identifier: BSD-3-Clause
#
# expectations.sh -- what every example pair is given and must print, shared
# by examples/run-examples.sh, tests/interop/run-interop.sh and
# tests/valgrind/run-valgrind.sh. Sourced, not run; defines functions only.
#
# exp_load NUM DIR -- set the EXP_* variables below for example NUM (two
# digits); DIR is a scratch directory for the persistent files the example
# writes. Returns 1 when there is no expectation for NUM.
#
#   EXP_CLIENTS     how many clients run at once against one server (1 or more)
#   EXP_SRV_ARGS    array: the server's arguments after ADDR PORT
#   EXP_CLI_ARGS    array: a single client's arguments after ADDR PORT
#   EXP_CLI_PREFIX  with several clients: client i gets the one argument
#                   PREFIX-i, or none when PREFIX is empty
#   EXP_SRV_LINES   newline-separated lines the server must print
#   EXP_CLI_LINES   newline-separated lines every client must print; '@I@'
#                   stands for the client's number (1, 2, ...)
#   EXP_FILE        a persistent file that must hold EXP_FILE_TEXT afterwards,
#                   empty when the example writes none

# shellcheck disable=SC2034  # the EXP_* variables are read by the sourcing script

# exp_reset -- clear every EXP_* variable
exp_reset() {
	EXP_CLIENTS=1
	EXP_SRV_ARGS=()
	EXP_CLI_ARGS=()
	EXP_CLI_PREFIX=
	EXP_SRV_LINES=
	EXP_CLI_LINES=
	EXP_FILE=
	EXP_FILE_TEXT=
}

exp_01() {
	EXP_SRV_LINES="server: got private data 'hello from client'
server: connection 1 established
server: connection 1 closed
server: done"
	EXP_CLI_LINES="client: connection established
client: got private data 'hello from server'
client: connection closed"
}

exp_02() {
	EXP_SRV_LINES="server: client 1 connected, exposing 'hello from server'
server: client 1 disconnected
server: done"
	EXP_CLI_LINES="client: read 'hello from server'"
}

exp_03() {
	EXP_FILE="$1/03.pmem"
	EXP_FILE_TEXT="hello from server"
	EXP_CLI_ARGS=("$EXP_FILE")
	EXP_SRV_LINES="server: client 1 disconnected
server: done"
	EXP_CLI_LINES="client: read 'hello from server' into persistent memory"
}

exp_04() {
	EXP_FILE="$1/04.pmem"
	EXP_FILE_TEXT="hello from client"
	EXP_SRV_ARGS=(1 "$EXP_FILE")
	EXP_SRV_LINES="server: client 1 connected
server: got 'hello from client' and persisted it
server: done"
	EXP_CLI_LINES="client: wrote 'hello from client'"
}

exp_05() {
	EXP_FILE="$1/05.pmem"
	EXP_FILE_TEXT="hello from persistent flush"
	EXP_SRV_ARGS=(1 "$EXP_FILE")
	EXP_CLI_ARGS=("hello from persistent flush")
	EXP_SRV_LINES="server: client 1 connected
server: got 'hello from persistent flush'
server: done"
	EXP_CLI_LINES="client: the server supports direct write to PMem
client: wrote 'hello from persistent flush' and flushed it to persistence"
}

exp_06() {
	EXP_CLIENTS=3
	EXP_SRV_ARGS=(3)
	EXP_CLI_PREFIX=client
	EXP_SRV_LINES="server: 'client-1' connected
server: 'client-2' connected
server: 'client-3' connected
server: got 'hello from client-1'
server: got 'hello from client-2'
server: got 'hello from client-3'
server: 'client-1' disconnected
server: 'client-2' disconnected
server: 'client-3' disconnected
server: served 3 clients
server: done"
	EXP_CLI_LINES="client: got 'welcome client-@I@'"
}

exp_07() {
	EXP_SRV_LINES="server: client 1 connected
server: log used 17 bytes: 'hello from client'
server: done"
	EXP_CLI_LINES="client: appended 'hello from client' and set used to 17"
}

exp_08() {
	EXP_CLI_ARGS=(4)
	EXP_SRV_LINES="server: client 1 connected for 4 rounds
server: round 1: got 0, sending 1
server: round 4: got 3, sending 4
server: client 1 disconnected
server: done"
	EXP_CLI_LINES="client: round 1: sent 0, got 1
client: round 4: sent 3, got 4
client: counter is 4 after 4 rounds"
}

exp_09() {
	# every client plays the default 5 rounds
	EXP_CLIENTS=3
	EXP_SRV_ARGS=(3)
	EXP_SRV_LINES="server: 3 clients connected, 15 rounds to play
server: answered 15 messages from 3 clients through the SRQ
server: all clients disconnected
server: done"
	EXP_CLI_LINES="client: round 5: sent 4, got 5
client: counter is 5 after 5 rounds"
}

exp_10() {
	EXP_CLI_ARGS=(4242)
	EXP_SRV_LINES="server: got 'hello from client' with imm 4242
server: done"
	EXP_CLI_LINES="client: sent 'hello from client' with imm 4242"
}

exp_11() {
	EXP_SRV_LINES="server: got 'hello from client' with imm 5678
server: done"
	EXP_CLI_LINES="client: wrote 'hello from client' with imm 5678"
}

exp_12() {
	EXP_CLI_ARGS=(3)
	EXP_SRV_LINES="server: client 1 connected for 3 rounds
server: round 3: got 2 on the receive CQ
server: client 1 disconnected
server: done"
	EXP_CLI_LINES="client: receive CQ size 4
client: round 3: sent 2, got 3 on the receive CQ
client: counter is 3 after 3 rounds"
}

exp_13() {
	EXP_CLI_ARGS=(3)
	EXP_SRV_LINES="server: client 1 connected for 3 rounds, CQs share a channel
server: round 3: got 2, sending 3
server: client 1 disconnected
server: done"
	EXP_CLI_LINES="client: connected, CQ and receive CQ share a completion channel
client: round 3: sent 2, got 3
client: counter is 3 after 3 rounds"
}

exp_14() {
	EXP_FILE="$1/14.pmem"
	EXP_FILE_TEXT="hello from client"
	EXP_SRV_ARGS=(1 "$EXP_FILE")
	EXP_CLI_ARGS=(128)
	EXP_SRV_LINES="server: persisted 18 bytes at offset 128: 'hello from client'
server: done"
	EXP_CLI_LINES="client: wrote 'hello from client', the server persisted 18 bytes at offset 128"
}

exp_15() {
	EXP_SRV_LINES="server: log threshold is 'error'
server: log: [error] rpma_mr_reg() at
server: rpma_mr_reg(size 0) failed as expected: Invalid argument
server: log: [error] rpma_conn_wait() at
server: rpma_conn_wait() failed as expected:
server: client 1 disconnected
server: 2 messages logged
server: done"
	EXP_CLI_LINES="client: threshold 'disabled': the invalid timeout logged 0 messages
client: rpma_errormsg(): 'cfg is NULL or timeout_ms (-1) is negative'
client: log: [error] rpma_conn_cfg_set_timeout() at
client: threshold 'error': the invalid timeout logged 1 message
client: threshold 'debug': the invalid timeout logged 1 message
client: connected with threshold 'debug'
client: done"
}

exp_load() {
	exp_reset
	declare -F "exp_$1" >/dev/null || return 1
	"exp_$1" "$2"
}

# exp_check_lines FILE LINES [I] -- check that FILE holds every line of the
# newline-separated LINES (fixed strings, '@I@' replaced by I); prints each
# missing line
exp_check_lines() {
	local file=$1 lines=$2 i=${3:-} line ok=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		line=${line//@I@/$i}
		if ! grep -qF -- "$line" "$file"; then
			echo "  missing in $(basename "$file"): $line"
			ok=1
		fi
	done <<<"$lines"
	return $ok
}

# exp_check_file -- check the persistent file of the loaded example, if any
exp_check_file() {
	[ -n "$EXP_FILE" ] || return 0
	if ! grep -qaF -- "$EXP_FILE_TEXT" "$EXP_FILE"; then
		echo "  $(basename "$EXP_FILE") does not hold '$EXP_FILE_TEXT'"
		return 1
	fi
}
