# SPDX-License-Identifier: BSD-3-Clause
#
# pool/pool.mk -- the tests of pool/ (its *.c go into librpmaf through rpmaf/rpmaf.mk)
#   make check-pool        the integration test over softrdma: a pool of this process
#                          against a server of librpmaf in another (stopped, killed and
#                          started again by the test)
#   make check-pool-tsan   the same test on ThreadSanitizer builds of librpma and of the
#                          framework's sources (check-slow)
#   make check-pool-twohost  the same test between two network namespaces joined by a
#                          veth pair, over softrdma's TCP transport: the servers in one,
#                          the pool in the other (check-slow; skipped without the right
#                          to create namespaces)
#   make check-pool-torture, check-pool-torture-canfail   the torture of the pool
#                          against a server that adds, removes and replaces regions
#                          (pool/pool_torture.mk; check-slow)
#   make fuzz-ctl-pool     build/fuzz/fuzz_ctl_pool (libFuzzer): sequences of server
#                          messages, completions, timers and disconnections through the
#                          channel and the connection's session and operations, over the
#                          harness's own worker (check-fuzz-ctl-pool runs it;
#                          make fuzz-ctl-pool-seeds writes its seeds again)
#
# The test uses the public API only: it links build/lib/librpmaf.so; the TSan
# build links the sources of every module of librpmaf instead (RPMAF_SRCS, known once
# every module is read: hence = below).

POOL_MODULE_SRCS = $(RPMAF_SRCS)
POOL_MODULE_HDRS = $(RPMAF_HDRS)
POOL_TSAN_LIBS := -lyaml -lsodium -lpmem2 -lurcu-qsbr -lurcu-memb -lurcu-common -lurcu-cds
# softrdma's suppressions and liburcu's (uninstrumented: its threads' hand-overs are invisible)
POOL_TSAN_SUPP := $(BUILD)/pool/tsan.supp
# seconds the test may run (about 20 s alone)
POOL_TEST_TIMEOUT ?= 120

# the module (mk/module.mk): its integration test, and the harness of the client's
# control session: the channel, the connection, its session and operations, the region
# table and the protocol, over a worker of the harness's own (fuzz/fuzz_ctl_stub.c) and
# no control thread; the session's nonce, the connection's clock and the table's grace
# periods are the harness's (link-time wraps); librpma's static library for its utilities
POOL_FUZZ_SRCS := ctl/ctl.c $(addprefix pool/,conn.c op.c post.c session.c wait.c) regtab/regtab.c regtab/reader.c \
	stats/counters.c stats/hist.c workers/wlog.c workers/wtime.c workers/credit.c fuzz/fuzz_ctl_stub.c \
	$(CONFIG_SRCS) $(CONFIG_DEP_SRCS)

MODULE := pool
MODULE_LIB := rpmaf
MODULE_HDRS := $(wildcard $(addsuffix *.h,$(sort $(dir $(POOL_FUZZ_SRCS))))) $(RPMAF_PUBLIC_HDRS)
MODULE_INTEG_TEST := tests/integration/pool/test_pool.c
MODULE_INTEG_CFLAGS := -Irpmaf/include
MODULE_INTEG_LINK := rpmaf rpma
MODULE_INTEG_LIBS := -pthread
MODULE_INTEG_TSAN_SRCS = $(POOL_MODULE_SRCS)
MODULE_INTEG_HDRS = $(POOL_MODULE_HDRS)
MODULE_INTEG_TSAN_LIBS := -pthread $(POOL_TSAN_LIBS)
MODULE_FUZZ := ctl-pool
MODULE_FUZZ_SRCS := $(POOL_FUZZ_SRCS)
MODULE_FUZZ_CFLAGS := -Irpmaf/include -Iworkers -Iproto
MODULE_FUZZ_DEPS := $(LIB_A)
MODULE_FUZZ_LIBS := $(LIB_A) $(PROVIDER_LIBS) -lyaml $(CONFIG_DEP_LIBS) -lpmem2 \
	-lurcu-qsbr -lurcu-memb -lurcu-common -lurcu-cds -pthread \
	-Wl,--wrap=rpmaf__proto_auth_nonce,--wrap=rpmaf__pool_now_ns \
	-Wl,--wrap=urcu_qsbr_call_rcu,--wrap=urcu_qsbr_barrier
include mk/module.mk

$(POOL_TSAN_SUPP): $(MT_SUPP) tests/torture/regtab-tsan.supp
	@mkdir -p $(@D)
	cat $^ > $@

.PHONY: check-pool check-pool-tsan check-pool-twohost

# then the removal under load three times more over softrdma's TCP transport, where a
# write spends time in flight (on the same-host path it is done by the time its post
# returns): a server deregistering a region its clients still write fails it there
check-pool: $(pool_INTEG_BIN) softrdma
	@TEST_TIMEOUT=$(POOL_TEST_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh pool $(pool_INTEG_BIN)
	@for i in 1 2 3; do SOFTRDMA_TRANSPORT=tcp POOL_TESTS=region_removed \
		TEST_TIMEOUT=$(POOL_TEST_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh pool-removal-tcp $(pool_INTEG_BIN) || \
		exit 1; done

check-pool-tsan: $(pool_INTEG_TSAN_BIN) $(POOL_TSAN_SUPP) softrdma
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath $(POOL_TSAN_SUPP))" \
		TEST_TIMEOUT=$$(( $(POOL_TEST_TIMEOUT) * 3 )) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh pool-tsan $(pool_INTEG_TSAN_BIN)

check-pool-twohost: $(pool_INTEG_BIN) softrdma
	@TEST_TIMEOUT=$(POOL_TEST_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		POOL_TEST_BIN=$(pool_INTEG_BIN) tools/run-tests.sh pool-twohost \
		tests/integration/pool/twohost.sh

CHECK_TARGETS += check-pool
CHECK_SLOW_TARGETS += check-pool-tsan check-pool-twohost

# its seeds, written by proto/'s encoders and session state machines
POOL_FUZZ_SEEDS := $(BUILD)/fuzz/fuzz_ctl_pool_seeds

$(POOL_FUZZ_SEEDS): fuzz/fuzz_ctl_pool_seeds.c $(CONFIG_DEP_SRCS) $(wildcard proto/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O1 -o $@ $< $(CONFIG_DEP_SRCS) $(CONFIG_DEP_LIBS)

.PHONY: fuzz-ctl-pool-seeds
fuzz-ctl-pool-seeds: $(POOL_FUZZ_SEEDS)
	@mkdir -p fuzz/corpus/fuzz_ctl_pool
	$(POOL_FUZZ_SEEDS) fuzz/corpus/fuzz_ctl_pool

