# SPDX-License-Identifier: BSD-3-Clause
#
# server/server.mk -- the tests of server/ (its *.c go into librpmaf through rpmaf/rpmaf.mk)
#   make check-server        the integration test over softrdma: a server and test
#                            clients speaking the control protocol through ctl/
#   make check-server-unit   the unit test of the regions' persistence rule (sregion.c
#                            against stand-ins of libpmem2's granularity and of librpma's
#                            registration: tests/unit/server/test_sregion.c), gcc and
#                            clang AddressSanitizer+UBSan; and the page runs of a group
#                            commit (server/prange.c: tests/unit/server/test_prange.c)
#   make check-server-tsan   the same test on ThreadSanitizer builds of librpma and of
#                            the framework's sources (check-slow)
#   make fuzz-ctl-server     build/fuzz/fuzz_ctl_server (libFuzzer): sequences of client
#                            messages through the channel and the connection's dispatch,
#                            over the harness's own worker (check-fuzz-ctl-server runs it)
#
# The test links the sources of the modules it needs (config, proto, stats, workers, ctl,
# server) directly, so that it does not depend on the rest of librpmaf.

SERVER_MODULE_SRCS := $(foreach m,config proto stats workers ctl server,$(sort $(wildcard $(m)/*.c))) \
	regtab/reader.c
SERVER_MODULE_HDRS := $(foreach m,config proto stats workers ctl server,$(wildcard $(m)/*.h)) \
	$(RPMAF_PUBLIC_HDRS)
# seconds the integration test may run (about 10 s alone)
SERVER_TEST_TIMEOUT ?= 60

# the unit test: sregion.c and what it calls, the granularity and librpma replaced
# (--wrap); and the harness of the server's control dispatch: the channel, the
# connection, its requests and the protocol, over the stand-in worker of
# fuzz/fuzz_ctl_stub.c (no workers/ but its log and its send-queue accounting);
# librpma's static library for what the region table names, rpma_send() the stub's;
# the integration test, on build/lib's librpma (gcc) or build/tsan's (TSan)
MODULE := server
MODULE_LIB := rpmaf
MODULE_HDRS := $(SERVER_MODULE_HDRS)
MODULE_CFLAGS := -Irpmaf/include -Iserver
MODULE_UNIT_TESTS := tests/unit/server/test_sregion.c
MODULE_UNIT_SRCS := server/sregion.c server/filelock.c
MODULE_UNIT_DEP_SRCS := workers/wlog.c workers/wtime.c proto/wire.c proto/status.c
MODULE_UNIT_LDFLAGS := -Wl,--wrap=pmem2_map_get_store_granularity,--wrap=rpma_mr_reg \
	-Wl,--wrap=rpma_mr_dereg,--wrap=rpma_mr_get_descriptor_size,--wrap=rpma_mr_get_descriptor \
	-Wl,--wrap=rpma_err_2str
MODULE_UNIT_LIBS := -lpmem2 -lurcu-memb -lurcu-common -pthread
MODULE_INTEG_TEST := tests/integration/server/test_server.c
MODULE_INTEG_CFLAGS := -Irpmaf/include
MODULE_INTEG_LINK := rpma
MODULE_INTEG_SRCS := $(SERVER_MODULE_SRCS)
MODULE_INTEG_LIBS := -lyaml -lsodium -lpmem2 -lurcu-qsbr -lurcu-memb -lurcu-common -pthread
MODULE_FUZZ := ctl-server
MODULE_FUZZ_SRCS := ctl/ctl.c \
	$(addprefix server/,sconn.c serve.c scall.c sgroup.c prange.c sregion.c filelock.c churn.c) \
	workers/wlog.c workers/wtime.c workers/credit.c fuzz/fuzz_ctl_stub.c $(CONFIG_SRCS) $(CONFIG_DEP_SRCS)
MODULE_FUZZ_CFLAGS := -Irpmaf/include -Iworkers -Iproto
MODULE_FUZZ_DEPS := $(LIB_A)
MODULE_FUZZ_LIBS := $(LIB_A) $(PROVIDER_LIBS) -lyaml $(CONFIG_DEP_LIBS) -lsodium -lpmem2 \
	-lurcu-memb -lurcu-common -pthread
include mk/module.mk

# the page runs of a group commit: prange.c alone, a test of its own
MODULE := server-prange
MODULE_SRCS := server/prange.c
MODULE_HDRS := server/prange.h
MODULE_CFLAGS := -Iserver
MODULE_UNIT_TESTS := tests/unit/server/test_prange.c
include mk/module.mk

.PHONY: check-server check-server-tsan

check-server: $(server_INTEG_BIN) softrdma
	@TEST_TIMEOUT=$(SERVER_TEST_TIMEOUT) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh server $(server_INTEG_BIN)

check-server-tsan: $(server_INTEG_TSAN_BIN) softrdma
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(MT_SUPP)" \
		TEST_TIMEOUT=$$(( $(SERVER_TEST_TIMEOUT) * 3 )) SOFTRDMA_CM_TIMEOUT_MS=4000 \
		TEST_WRAPPER=tools/softrdma-run tools/run-tests.sh server-tsan $(server_INTEG_TSAN_BIN)

CHECK_TARGETS += check-server
CHECK_SLOW_TARGETS += check-server-tsan
