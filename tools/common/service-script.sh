# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# tools/common/service-script.sh -- sourced (bash) first by the scripts that
# drive the service over softrdma with a command line of options: the
# benchmarks (bench-cdf.sh, bench-service.sh, bench-gpspm.sh) and the
# walk-through (run-service.sh). It sets ROOT, the top of the tree (found
# from this file's place, wherever the script runs from), sources
# service-start.sh and script-options.sh beside it, and sets RUN, the
# softrdma-run the script starts the programs with: SOFTRDMA_RUN (an
# installed one), else the tree's.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/tools/common/service-start.sh"
. "$ROOT/tools/common/script-options.sh"
# shellcheck disable=SC2034  # RUN is read by the sourcing script
RUN=${SOFTRDMA_RUN:-"$ROOT/tools/softrdma-run"}
