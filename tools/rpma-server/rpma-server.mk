# SPDX-License-Identifier: BSD-3-Clause
#
# tools/rpma-server/rpma-server.mk -- the server tool, included by the
# top-level Makefile (GNU make):
#   make rpma-server         build/tools/rpma-server, linked with build/lib/librpmaf.so
#                            and, for the log's time (workers/wtime.c) that
#                            tools/common/service.c shares, RPMAF_INTERNAL_LIBS
#   make check-rpma-server   its tests over softrdma (tools/rpma-server/test-rpma-server.sh)
#   make check-rpma-server-reload   a region resized by SIGHUP while rpma-load drives it
#                            over 100 connections: 0 failed operations, the data
#                            verified, the clients' stop one summary line
#                            (tools/rpma-server/test-rpma-server-reload.sh)
#   make check-rpma-server-reload-slow   the same over 1000 connections (check-slow;
#                            about 40 s)
#   make bench-gpspm         GPSPM persists on an ordinary file (msync): rpma-load
#                            write_persist at queue depth 1 and 32, 64 B and 4 KiB,
#                            interleaved rounds, ops/s and QD32/QD1
#                            (tools/rpma-server/bench-gpspm.sh; BENCH_GPSPM_ARGS, e.g.
#                            "-t 2 -r 5 -b build -b ../main/build" for a before/after)

RPMA_SERVER_BIN := $(BUILD)/tools/rpma-server
RPMA_SERVER_SRCS := tools/rpma-server/rpma-server.c tools/rpma-server/reload.c \
	tools/common/service.c

.PHONY: rpma-server check-rpma-server

rpma-server: $(RPMA_SERVER_BIN)

# the same program for make install, linked again with INSTALL_LDFLAGS
RPMA_SERVER_INSTALL := $(INSTALL_GEN)/bin/rpma-server
INSTALL_BINS += $(RPMA_SERVER_INSTALL)
$(RPMA_SERVER_INSTALL): $(INSTALL_RPATH_STAMP)

$(RPMA_SERVER_BIN) $(RPMA_SERVER_INSTALL): $(RPMA_SERVER_SRCS) tools/rpma-server/reload.h \
		tools/common/service.h workers/wtime.h $(RPMAF_PUBLIC_HDRS) $(VERSION_H) $(RPMAF_SO) \
		$(RPMAF_A) $(BUILD)/rpmaf/exported $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Irpmaf/include -Iworkers -I$(dir $(VERSION_H)) -o $@ \
		$(RPMA_SERVER_SRCS) $(LIB_LDFLAGS) $(RPMAF_INTERNAL_LIBS) -lrpma -pthread
	@$(call rpmaf_internal_check,$@)

# rpma-load (tools/rpma-load/rpma-load.mk) is the client of the tests
check-rpma-server: $(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpma-server/test-rpma-server.sh $(RPMA_SERVER_BIN) \
		$(BUILD)/tools/rpma-load

# RELOAD_CONNS: the connections rpma-load opens
check-rpma-server-reload: $(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpma-server/test-rpma-server-reload.sh \
		$(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load $(or $(RELOAD_CONNS),100)

check-rpma-server-reload-slow: $(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpma-server/test-rpma-server-reload.sh \
		$(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load 1000

# a benchmark: prints figures, passes or fails on nothing but a failed run
bench-gpspm: $(RPMA_SERVER_BIN) $(BUILD)/tools/rpma-load softrdma
	@SOFTRDMA_CM_TIMEOUT_MS=4000 tools/rpma-server/bench-gpspm.sh $(BENCH_GPSPM_ARGS)

.PHONY: check-rpma-server-reload check-rpma-server-reload-slow bench-gpspm
CHECK_TARGETS += check-rpma-server check-rpma-server-reload
CHECK_SLOW_TARGETS += check-rpma-server-reload-slow
CLEAN_DIRS += $(BUILD)/tools
