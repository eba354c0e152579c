#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-examples.sh [BIN_DIR] -- run every librpma example pair over softrdma on
# 127.0.0.1 and check what each side prints and how it exits; what each
# example is given and must print is in examples/expectations.sh.
#
# BIN_DIR defaults to build/examples. Every program runs under timeout
# ($EXAMPLES_TIMEOUT seconds, default 30); each example gets its own port
# from $EXAMPLES_BASE_PORT on (default 17400). A client that ends with code 3
# (connection rejected or unreachable: the server was not ready yet) is
# started again, a few times. SOFTRDMA_RUN names another softrdma-run than
# the tree's (an installed one). Prints PASS or FAIL per example and a final
# "N passed, M failed" line; exits 1 when anything failed. Processes left by
# an example (there should be none) are killed by their process ids.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${1:-$ROOT/build/examples}" && pwd) || exit 1
RUN=${SOFTRDMA_RUN:-"$ROOT/tools/softrdma-run"}
TIMEOUT=${EXAMPLES_TIMEOUT:-30}
BASE_PORT=${EXAMPLES_BASE_PORT:-17400}

# shellcheck source=examples/run-lib.sh
. "$ROOT/examples/run-lib.sh"

rl_init rpma-examples

# srv_start NAME ARGS... -- start NAME's server on $PORT in the background
# and wait until it listens, its output in $WORK/NAME.server.out; sets SRV_PID
srv_start() {
	local name=$1 out
	shift
	out="$WORK/$name.server.out"
	rl_srv_start "$out" rl_run "$out" "$BIN/$name/server" "$ADDR" "$PORT" "$@"
}

# cli_run TAG NAME ARGS... -- run NAME's client against $PORT with its
# output in TAG.out, again while it could not connect; returns its exit code
cli_run() {
	local tag=$1 name=$2
	shift 2
	rl_retry rl_run "$tag.out" "$BIN/$name/client" "$ADDR" "$PORT" "$@"
}

rl_need_softrdma

rl_run_all rl_check_rc "*.out"
