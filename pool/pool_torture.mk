# SPDX-License-Identifier: BSD-3-Clause
#
# pool/pool_torture.mk -- the torture of the pool's operations against a server
# that adds, removes and replaces regions (tests/torture/pool_torture.c);
# included by the top-level Makefile after pool/pool.mk:
#   make check-pool-torture   the torture built with clang ThreadSanitizer and with
#                             clang AddressSanitizer+UBSan (librpma and every module
#                             instrumented alike), each run POOL_TORTURE_SECONDS (10)
#                             over softrdma (check-slow)
#   make check-pool-torture-canfail   the torture must catch planted bugs: a table
#                             that brings a removed registration back (linked in with
#                             -Wl,--wrap, both sanitizer builds), and a server that
#                             stamps and judges with a stale generation
#                             (POOL_TORTURE_PLANT=stale-gen)

POOL_TORTURE_SRC := tests/torture/pool_torture.c
POOL_TORTURE_BUG := tests/torture/pool_torture_resurrect.c
POOL_TORTURE_DIR := $(BUILD)/pool/torture
POOL_TORTURE_DEPS = $(POOL_TORTURE_SRC) tests/integration/common.c tests/integration/common.h \
	$(POOL_MODULE_SRCS) $(POOL_MODULE_HDRS)
POOL_TORTURE_LIBS := -libverbs -lrdmacm -pthread $(POOL_TSAN_LIBS)
POOL_TORTURE_CFLAGS := $(CFLAGS_BASE) -O1 -Irpmaf/include -Itests/integration
POOL_TORTURE_FLAGS_tsan := $(TSAN_FLAGS)
POOL_TORTURE_FLAGS_asan := $(SAN_FLAGS)
# librpma instrumented like the rest: build/tsan's for TSan, one of its own for ASan
POOL_TORTURE_RPMA_tsan := $(MT_LIB)
POOL_TORTURE_RPMA_asan := $(POOL_TORTURE_DIR)/librpma-asan.a
POOL_TORTURE_RPMA_OBJS := $(patsubst librpma/src/%.c,$(POOL_TORTURE_DIR)/rpma-asan/%.o,$(RPMA_SRCS))
POOL_TORTURE_BINS := $(POOL_TORTURE_DIR)/pool_torture-tsan $(POOL_TORTURE_DIR)/pool_torture-asan
POOL_TORTURE_BUG_BINS := $(POOL_TORTURE_DIR)/pool_torture_bug-tsan \
	$(POOL_TORTURE_DIR)/pool_torture_bug-asan
POOL_TORTURE_SECONDS ?= 10
POOL_TORTURE_CANFAIL_SECONDS ?= 5
POOL_TORTURE_ENV := \
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath $(POOL_TSAN_SUPP))" \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	SOFTRDMA_CM_TIMEOUT_MS=4000

$(POOL_TORTURE_DIR)/rpma-asan/%.o: librpma/src/%.c $(RPMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_BASE) -O1 $(SAN_FLAGS) -Ilibrpma/src -c $< -o $@

$(POOL_TORTURE_RPMA_asan): $(POOL_TORTURE_RPMA_OBJS)
	rm -f $@ && ar rcs $@ $^

$(POOL_TORTURE_DIR)/pool_torture-%: $$(POOL_TORTURE_DEPS) $$(POOL_TORTURE_RPMA_$$*)
	@mkdir -p $(@D)
	$(CLANG) $(POOL_TORTURE_CFLAGS) $(POOL_TORTURE_FLAGS_$*) -o $@ $(POOL_TORTURE_SRC) \
		tests/integration/common.c $(POOL_MODULE_SRCS) $(POOL_TORTURE_RPMA_$*) \
		$(POOL_TORTURE_LIBS)

$(POOL_TORTURE_DIR)/pool_torture_bug-%: $$(POOL_TORTURE_DEPS) $(POOL_TORTURE_BUG) \
		$$(POOL_TORTURE_RPMA_$$*)
	@mkdir -p $(@D)
	$(CLANG) $(POOL_TORTURE_CFLAGS) $(POOL_TORTURE_FLAGS_$*) -o $@ $(POOL_TORTURE_SRC) \
		$(POOL_TORTURE_BUG) tests/integration/common.c $(POOL_MODULE_SRCS) \
		$(POOL_TORTURE_RPMA_$*) $(POOL_TORTURE_LIBS) -Wl,--wrap=rpmaf__regtab_announce

# pool_torture_run BIN SECONDS -- one run over softrdma: its own watchdog, and a timeout
pool_torture_run = $(POOL_TORTURE_ENV) POOL_TORTURE_SECONDS=$(2) \
	timeout -k 5 $$(( $(2) + 120 )) tools/softrdma-run $(1)

# pool_torture_expect BIN SECONDS REGEX [REGEX2] -- BIN must fail, with lines matching each
pool_torture_expect = log=$$(mktemp); \
	if $(call pool_torture_run,$(1),$(2)) >$$log 2>&1; then \
		echo "FAIL $$(basename $(1)) $${POOL_TORTURE_PLANT:-resurrect}: the planted bug went unnoticed"; \
		cat $$log; rm -f $$log; exit 1; \
	fi; \
	for re in '$(3)' $(if $(4),'$(4)'); do \
		if ! grep -qE "$$re" $$log; then \
			echo "FAIL $$(basename $(1)) $${POOL_TORTURE_PLANT:-resurrect}: failed, not for the planted bug:"; \
			tail -n 30 $$log; rm -f $$log; exit 1; \
		fi; \
		echo "PASS $$(basename $(1)) $${POOL_TORTURE_PLANT:-resurrect}: caught: $$(grep -m1 -oE "$$re" $$log)"; \
	done; \
	rm -f $$log

POOL_TORTURE_BACK := VIOLATION: actor [0-9]+: the table went back
POOL_TORTURE_STALE := VIOLATION: actor [0-9]+: a read of [a-z0-9-]+ at [0-9]+ succeeded against
POOL_TORTURE_STALE_SRV := VIOLATION: server: [a-z0-9-]+ \(generation [0-9]+\) holds at [0-9]+ a record

.PHONY: check-pool-torture check-pool-torture-canfail

check-pool-torture: $(POOL_TORTURE_BINS) $(POOL_TSAN_SUPP) softrdma
	@for b in $(POOL_TORTURE_BINS); do \
		echo "$$(basename $$b):"; \
		$(call pool_torture_run,$$b,$(POOL_TORTURE_SECONDS)) || exit 1; \
	done

check-pool-torture-canfail: $(POOL_TORTURE_BUG_BINS) $(POOL_TORTURE_BINS) $(POOL_TSAN_SUPP) softrdma
	@for b in $(POOL_TORTURE_BUG_BINS); do \
		$(call pool_torture_expect,$$b,$(POOL_TORTURE_CANFAIL_SECONDS),$(POOL_TORTURE_BACK)); \
	done
	@export POOL_TORTURE_PLANT=stale-gen; b=$(POOL_TORTURE_DIR)/pool_torture-asan; \
	$(call pool_torture_expect,$$b,$(POOL_TORTURE_CANFAIL_SECONDS),$(POOL_TORTURE_STALE),$(POOL_TORTURE_STALE_SRV))

CHECK_SLOW_TARGETS += check-pool-torture check-pool-torture-canfail
