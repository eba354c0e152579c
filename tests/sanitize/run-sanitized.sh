#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-sanitized.sh VARIANT -- run softrdma's suite (both transports), the
# examples and the integration tests on softrdma built with a sanitizer:
# VARIANT asan (AddressSanitizer + UndefinedBehaviorSanitizer) or tsan
# (ThreadSanitizer), from build/softrdma-VARIANT. The sanitizer runtime is
# preloaded into every program run on softrdma (tools/softrdma-run), and
# every report of every process goes to a log file of its own: a suite fails
# when one of its tests fails, and the whole run fails when any report was
# written, even by a process whose exit status nobody looks at.
#
# Environment: SANITIZE_SUITES (default "softrdma examples integration").
set -u

variant=${1:?usage: run-sanitized.sh asan|tsan}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
logs=$(mktemp -d "/tmp/softrdma-$variant.XXXXXX")

export SOFTRDMA_LIBDIR="$ROOT/build/softrdma-$variant"
case $variant in
asan)
	SOFTRDMA_PRELOAD=$(gcc -print-file-name=libasan.so)
	# Leaks are checked by valgrind (make check-valgrind) on the examples and
	# the churn test; LeakSanitizer here would also report the external
	# programs (rping, perftest) and the shells of the runners.
	export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=86:log_path=$logs/report"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/report"
	;;
tsan)
	SOFTRDMA_PRELOAD=$(gcc -print-file-name=libtsan.so)
	export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$logs/report:suppressions=$ROOT/tests/sanitize/tsan.supp"
	;;
*)
	echo "run-sanitized.sh: unknown variant '$variant' (asan or tsan)" >&2
	exit 2
	;;
esac
export SOFTRDMA_PRELOAD

rc=0
for suite in ${SANITIZE_SUITES:-softrdma examples integration}; do
	echo "== $variant: $suite"
	case $suite in
	softrdma)
		for t in shm tcp; do
			echo "== $variant: softrdma transport $t"
			SOFTRDMA_TRANSPORT=$t SOFTRDMA_ROOT="$ROOT" \
				bash tests/softrdma/run-all.sh "$SOFTRDMA_LIBDIR"/tests/test_* || rc=1
		done
		;;
	examples)
		EXAMPLES_BASE_PORT=18400 examples/run-examples.sh build/examples || rc=1
		;;
	integration)
		TEST_TIMEOUT=180 SOFTRDMA_CM_TIMEOUT_MS=4000 TEST_WRAPPER=tools/softrdma-run \
			tools/run-tests.sh "integration-$variant" build/integration/test_* || rc=1
		;;
	esac
done

reports=$(find "$logs" -name 'report*' -type f | sort)
if [ -n "$reports" ]; then
	for r in $reports; do
		echo "== $variant report $r:"
		head -n 60 "$r"
	done
	echo "$variant: $(echo "$reports" | wc -l) sanitizer report(s), kept in $logs"
	rc=1
else
	rm -rf "$logs"
	echo "$variant: no sanitizer report"
fi
exit $rc
