# SPDX-License-Identifier: BSD-3-Clause
#
# tools/common/service-start.sh -- sourced (bash) by the scripts that start a
# daemon of the framework (rpma-server, rpmemd) in the background and wait for
# a line of its log: the benchmarks (bench-cdf.sh, bench-service.sh), the
# walk-through (run-service.sh), the seed writer (fuzz-seeds.sh) and the
# tools' tests (tool-test.sh, test-rpma-server*.sh). It defines one function
# and runs nothing.

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
