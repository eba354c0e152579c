# SPDX-License-Identifier: BSD-3-Clause
#
# workers/workers.mk -- the worker threads of librpmaf: their tests, included
# by the top-level Makefile (GNU make); workers/*.c go into librpmaf through
# rpmaf/rpmaf.mk (workers is in RPMAF_MODULES):
#   make check-workers        the cmocka tests of tests/unit/workers/ (gcc, and clang
#                             AddressSanitizer+UBSan), the submission test under
#                             ThreadSanitizer, and the integration test over softrdma
#   make check-workers-integration   the integration test over softrdma: N = 1, 16
#                             and 128 connections in each polling mode, and the
#                             lost wake-up test (4000 round trips, 4000 wake-ups)
#   make check-workers-race-proof   the lost wake-up test against a build of the
#                             workers without the poll after arming: it must fail
#   make check-workers-tsan   the integration test on a ThreadSanitizer build of
#                             librpma and workers/ (check-slow)
#   make check-workers-integration-slow   the integration test over softrdma's TCP
#                             transport, with 20000 round trips in the race test
#                             (check-slow)
#
# Each tests/unit/workers/test_*.c is one program linked with the workers'
# pure objects (timer, slab, credit, qpmap, submit, wlog, wtime); the integration test
# tests/integration/workers/test_workers.c runs itself as the client process.

WORKERS_PURE := $(addprefix workers/,timer.c slab.c credit.c qpmap.c submit.c wlog.c wtime.c)
WORKERS_SRCS := $(sort $(wildcard workers/*.c)) regtab/reader.c
WORKERS_HDRS := $(wildcard workers/*.h) regtab/reader.h regtab/tsan.h $(RPMAF_PUBLIC_HDRS)
WORKERS_LIBS := -lurcu-qsbr -lurcu-memb -lurcu-common -pthread
WORKERS_TSAN_OPTIONS := halt_on_error=1 second_deadlock_stack=1

MODULE := workers
MODULE_LIB := rpmaf
MODULE_HDRS := $(WORKERS_HDRS)
MODULE_CFLAGS := -Irpmaf/include -Iworkers
MODULE_LIBS := $(WORKERS_LIBS)
MODULE_UNIT_SRCS := $(WORKERS_PURE)
MODULE_SANITIZERS := asan tsan
MODULE_TSAN_TESTS := test_submit
# the integration test, on build/lib/librpmaf.so and librpma.so, and on ThreadSanitizer
# builds of librpma (tests/mt/mt.mk) and of workers/
MODULE_INTEG_TEST := tests/integration/workers/test_workers.c
MODULE_INTEG_CFLAGS := -Irpmaf/include
MODULE_INTEG_OPT := $(CFLAGS)
MODULE_INTEG_LINK := rpmaf rpma
MODULE_INTEG_LIBS := -pthread
MODULE_INTEG_TSAN_SRCS := $(WORKERS_SRCS)
MODULE_INTEG_TSAN_CFLAGS := -Iworkers
MODULE_INTEG_TSAN_LIBS := $(WORKERS_LIBS)
include mk/module.mk

# seconds the integration test may run (it takes about 15 s alone; 40 s under TSan)
WORKERS_INTEG_TIMEOUT ?= 150
# round trips and wake-ups of the lost wake-up test in check-workers-integration-slow
WORKERS_SLOW_RACE_ROUNDS ?= 20000

# the negative control: the workers without the poll after a re-arm (see the race proof)
WORKERS_INTEG_NOREPOLL := $(BUILD)/workers/integration-norepoll/test_workers
$(WORKERS_INTEG_NOREPOLL): $(workers_INTEG_DEPS) $(WORKERS_SRCS) $(WORKERS_HDRS) $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O2 -DRPMAF_WORKERS_TEST_NO_REPOLL -Irpmaf/include -Iworkers \
		-Itests/integration -o $@ $(workers_INTEG_TEST) \
		$(WORKERS_SRCS) $(LIB_LDFLAGS) -lrpma -libverbs -lrdmacm -lcmocka $(WORKERS_LIBS)

.PHONY: check-workers check-workers-integration check-workers-tsan \
	check-workers-race-proof check-workers-integration-slow

check-workers-integration: $(workers_INTEG_BIN) softrdma
	@TEST_TIMEOUT=$(WORKERS_INTEG_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh workers-integration $(workers_INTEG_BIN)

check-workers: check-workers-unit check-workers-integration

check-workers-integration-slow: $(workers_INTEG_BIN) softrdma
	@SOFTRDMA_TRANSPORT=tcp WORKERS_RACE_ROUNDS=$(WORKERS_SLOW_RACE_ROUNDS) \
		TEST_TIMEOUT=$$(( $(WORKERS_INTEG_TIMEOUT) * 2 )) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh workers-integration-tcp \
		$(workers_INTEG_BIN)

check-workers-tsan: $(workers_INTEG_TSAN_BIN) softrdma
	@TSAN_OPTIONS="$(WORKERS_TSAN_OPTIONS) suppressions=$(MT_SUPP)" \
		TEST_TIMEOUT=$(WORKERS_INTEG_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run \
		tools/run-tests.sh workers-tsan $(workers_INTEG_TSAN_BIN)

# The negative control (WORKERS_INTEG_NOREPOLL) takes a CQ's event, which re-arms
# the CQ, without making the CQ due: nothing then polls it before the worker sleeps
# again, and what completed before the re-arm raises no new event. With event
# polling a worker sleeps right after the turn that follows its wake-up, so
# test_race_event must fail without the mark, and fail the way a lost wake-up does:
# a worker asleep with work waiting, no progress for 5 s (bounded). (With adaptive
# polling the spin before every sleep polls both CQs after any re-arm, so the mark
# is not what keeps test_race_adaptive going: it runs on the real loop only.) The
# test runs in a process of its own (a failed test leaves its workers behind).
WORKERS_RACE_LOG := $(BUILD)/workers/race-proof
check-workers-race-proof: $(WORKERS_INTEG_NOREPOLL) softrdma
	@t=race_event; log=$(WORKERS_RACE_LOG).$$t.log; \
	if WORKERS_TESTS=$$t SOFTRDMA_CM_TIMEOUT_MS=4000 timeout -k 5 60 \
		tools/softrdma-run $(WORKERS_INTEG_NOREPOLL) >$$log 2>&1; then \
		echo "race proof: test_$$t PASSED without the due mark: it proves nothing"; \
		exit 1; \
	fi; \
	if ! grep -q -E '^client: ERR .*(traffic stopped|slept through)' $$log || \
		! grep -q -E '^\[  FAILED  \] test_'$$t'$$' $$log; then \
		echo "race proof: test_$$t failed otherwise than by a lost wake-up:"; \
		tail -n 40 $$log | sed 's/^/    /'; exit 1; \
	fi; \
	echo "race proof: test_$$t: $$(grep -m1 -E '^client: ERR' $$log)"; \
	echo "race proof: the lost wake-up test fails without the poll after a re-arm, as it must"

# about 15 s and 12 s; the TSan build and the TCP transport in check-slow (about 40 s each)
CHECK_TARGETS += check-workers-integration check-workers-race-proof
CHECK_SLOW_TARGETS += check-workers-tsan check-workers-integration-slow
