# SPDX-License-Identifier: BSD-3-Clause
#
# softrdma: user-space replacements for libibverbs.so.1 and librdmacm.so.1,
# included by the top-level Makefile:
#   make softrdma         build build/softrdma/{libibverbs,librdmacm}.so.1
#   make check-softrdma   softrdma's own tests and external programs, both transports
#   make fuzz-softrdma    build/fuzz/fuzz_softrdma_* (libFuzzer, mk/module.mk): what softrdma
#                         parses from a peer (check-fuzz-softrdma runs them,
#                         fuzz-run-softrdma SECONDS=N longer; SOFTRDMA_FUZZ_DEEP=1 in the
#                         environment makes fuzz_softrdma_cm connect a real pair through
#                         the CM's listener after every input, not every 64th)
#   make softrdma-fuzz-seeds   record the seeds fuzz/corpus/fuzz_softrdma_*/rec-* again
#
# SOFTRDMA_VARIANT=asan or tsan builds the same libraries with gcc's
# AddressSanitizer+UndefinedBehaviorSanitizer or ThreadSanitizer into
# build/softrdma-asan or build/softrdma-tsan (see tests/sanitize/sanitize.mk).
# Everything here but the harnesses and their seed recorder (clang) is built with the
# project's CC (gcc: tests/sanitize/run-sanitized.sh preloads gcc's sanitizer runtimes),
# CFLAGS_COMMON and CFLAGS.
#
# Debian packages needed beyond build-essential (none extra at run time):
SOFTRDMA_DEB_PACKAGES := libibverbs-dev librdmacm-dev libcmocka-dev rdmacm-utils \
	ibverbs-utils perftest iproute2 binutils

SOFTRDMA_TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
SOFTRDMA_ROOT := $(abspath $(SOFTRDMA_TOP)/..)
SOFTRDMA_VARIANT ?=
SOFTRDMA_BUILD := $(abspath $(BUILD))/softrdma$(if $(SOFTRDMA_VARIANT),-$(SOFTRDMA_VARIANT))
SOFTRDMA_SRC := $(SOFTRDMA_TOP)/src
SOFTRDMA_SCRIPTS := $(SOFTRDMA_TOP)/scripts
SOFTRDMA_TESTS := $(SOFTRDMA_ROOT)/tests/softrdma
SOFTRDMA_REAL_LIBDIR ?= /usr/lib/x86_64-linux-gnu
SOFTRDMA_CC := $(CC)
SOFTRDMA_SAN_asan := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
# gcc warns that ThreadSanitizer does not model standalone fences (the shm
# rings and sequence counters use them): the build goes on, and a race TSan
# reports through a fence it cannot see is judged in tests/sanitize/tsan.supp
SOFTRDMA_SAN_tsan := -fsanitize=thread -fno-omit-frame-pointer -Wno-tsan
SOFTRDMA_SAN := $(SOFTRDMA_SAN_$(SOFTRDMA_VARIANT))
SOFTRDMA_CFLAGS := $(CFLAGS_COMMON) $(CFLAGS) -fPIC -pthread $(SOFTRDMA_SAN)
SOFTRDMA_LDFLAGS := -shared -pthread -Wl,-z,defs -Wl,--no-undefined $(SOFTRDMA_SAN)

SOFTRDMA_VERBS_SRCS := util.c wire.c ctx.c device.c mr.c cq.c qp.c srq.c req.c resp.c comp.c net.c wr.c \
	progress.c shm.c share.c compat.c secret.c
SOFTRDMA_CM_SRCS := util.c cm.c cm_addr.c cm_conn.c cm_qp.c cm_thread.c cm_fork.c cm_stubs.c
SOFTRDMA_VERBS_OBJS := $(addprefix $(SOFTRDMA_BUILD)/verbs/,$(SOFTRDMA_VERBS_SRCS:.c=.o))
SOFTRDMA_CM_OBJS := $(addprefix $(SOFTRDMA_BUILD)/cm/,$(SOFTRDMA_CM_SRCS:.c=.o))
SOFTRDMA_HDRS := $(wildcard $(SOFTRDMA_SRC)/*.h)

# how the tests, the harnesses and the benchmark bring a QP up (tests/support/rc_qp.h)
SOFTRDMA_SUPPORT_HDRS := $(SOFTRDMA_ROOT)/tests/support/rc_qp.h
SOFTRDMA_TEST_SRCS := $(wildcard $(SOFTRDMA_TESTS)/test_*.c)
SOFTRDMA_TEST_BINS := $(patsubst $(SOFTRDMA_TESTS)/%.c,$(SOFTRDMA_BUILD)/tests/%,$(SOFTRDMA_TEST_SRCS))

.PHONY: softrdma check-softrdma clean-softrdma softrdma-tests

softrdma: $(SOFTRDMA_BUILD)/libibverbs.so.1 $(SOFTRDMA_BUILD)/librdmacm.so.1 \
	  $(SOFTRDMA_BUILD)/.symbols-ok $(SOFTRDMA_BUILD)/softrdma-bench

# The benchmark links against the real rdma-core; tools/softrdma-bench runs it
# under softrdma-run.
$(SOFTRDMA_BUILD)/softrdma-bench: $(SOFTRDMA_TOP)/bench/softrdma-bench.c $(SOFTRDMA_SUPPORT_HDRS)
	@mkdir -p $(dir $@)
	$(SOFTRDMA_CC) $(CFLAGS_COMMON) $(CFLAGS) -I$(SOFTRDMA_ROOT)/tests/support -o $@ $< -libverbs

$(SOFTRDMA_BUILD)/gen/libibverbs.map $(SOFTRDMA_BUILD)/gen/verbs/compat_symver.h: \
		$(SOFTRDMA_REAL_LIBDIR)/libibverbs.so.1 $(SOFTRDMA_SCRIPTS)/gen-versions.sh \
		$(SOFTRDMA_SCRIPTS)/elf-nodes.sh
	@mkdir -p $(SOFTRDMA_BUILD)/gen/verbs
	$(SOFTRDMA_SCRIPTS)/gen-versions.sh $< $(SOFTRDMA_BUILD)/gen/libibverbs.map \
		$(SOFTRDMA_BUILD)/gen/verbs/compat_symver.h

$(SOFTRDMA_BUILD)/gen/librdmacm.map $(SOFTRDMA_BUILD)/gen/cm/compat_symver.h: \
		$(SOFTRDMA_REAL_LIBDIR)/librdmacm.so.1 $(SOFTRDMA_SCRIPTS)/gen-versions.sh \
		$(SOFTRDMA_SCRIPTS)/elf-nodes.sh
	@mkdir -p $(SOFTRDMA_BUILD)/gen/cm
	$(SOFTRDMA_SCRIPTS)/gen-versions.sh $< $(SOFTRDMA_BUILD)/gen/librdmacm.map \
		$(SOFTRDMA_BUILD)/gen/cm/compat_symver.h

$(SOFTRDMA_BUILD)/verbs/%.o: $(SOFTRDMA_SRC)/%.c $(SOFTRDMA_HDRS) \
		$(SOFTRDMA_BUILD)/gen/verbs/compat_symver.h
	@mkdir -p $(dir $@)
	$(SOFTRDMA_CC) $(SOFTRDMA_CFLAGS) -I$(SOFTRDMA_BUILD)/gen/verbs -c $< -o $@

$(SOFTRDMA_BUILD)/cm/%.o: $(SOFTRDMA_SRC)/%.c $(SOFTRDMA_HDRS) \
		$(SOFTRDMA_BUILD)/gen/cm/compat_symver.h
	@mkdir -p $(dir $@)
	$(SOFTRDMA_CC) $(SOFTRDMA_CFLAGS) -I$(SOFTRDMA_BUILD)/gen/cm -c $< -o $@

$(SOFTRDMA_BUILD)/libibverbs.so.1: $(SOFTRDMA_VERBS_OBJS) $(SOFTRDMA_BUILD)/gen/libibverbs.map
	$(SOFTRDMA_CC) $(SOFTRDMA_LDFLAGS) -Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=$(SOFTRDMA_BUILD)/gen/libibverbs.map \
		-o $@ $(SOFTRDMA_VERBS_OBJS)

$(SOFTRDMA_BUILD)/librdmacm.so.1: $(SOFTRDMA_CM_OBJS) $(SOFTRDMA_BUILD)/gen/librdmacm.map \
		$(SOFTRDMA_BUILD)/libibverbs.so.1
	$(SOFTRDMA_CC) $(SOFTRDMA_LDFLAGS) -Wl,-soname,librdmacm.so.1 \
		-Wl,--version-script=$(SOFTRDMA_BUILD)/gen/librdmacm.map \
		-o $@ $(SOFTRDMA_CM_OBJS) -L$(SOFTRDMA_BUILD) -l:libibverbs.so.1

$(SOFTRDMA_BUILD)/.symbols-ok: $(SOFTRDMA_BUILD)/libibverbs.so.1 \
		$(SOFTRDMA_BUILD)/librdmacm.so.1 $(SOFTRDMA_SCRIPTS)/check-symbols.sh
	$(SOFTRDMA_SCRIPTS)/check-symbols.sh $(SOFTRDMA_REAL_LIBDIR)/libibverbs.so.1 \
		$(SOFTRDMA_BUILD)/libibverbs.so.1
	$(SOFTRDMA_SCRIPTS)/check-symbols.sh $(SOFTRDMA_REAL_LIBDIR)/librdmacm.so.1 \
		$(SOFTRDMA_BUILD)/librdmacm.so.1
	@touch $@

# Tests are compiled and linked against the real rdma-core.
$(SOFTRDMA_BUILD)/tests/%: $(SOFTRDMA_TESTS)/%.c $(wildcard $(SOFTRDMA_TESTS)/*.h) $(SOFTRDMA_SUPPORT_HDRS)
	@mkdir -p $(dir $@)
	$(SOFTRDMA_CC) $(CFLAGS_COMMON) $(CFLAGS) -I$(SOFTRDMA_ROOT)/tests/support -pthread -o $@ $< \
		-lcmocka -lrdmacm -libverbs

softrdma-tests: $(SOFTRDMA_TEST_BINS)

# The whole suite runs once per transport: same-host rings and TCP.
SOFTRDMA_TRANSPORTS ?= shm tcp

check-softrdma: softrdma softrdma-tests
	@rc=0; for t in $(SOFTRDMA_TRANSPORTS); do \
		echo "== softrdma transport $$t"; \
		SOFTRDMA_TRANSPORT=$$t SOFTRDMA_BUILD=$(SOFTRDMA_BUILD) \
		SOFTRDMA_ROOT=$(SOFTRDMA_ROOT) \
			bash $(SOFTRDMA_TESTS)/run-all.sh $(SOFTRDMA_TEST_BINS) || rc=1; \
	done; exit $$rc

clean-softrdma:
	rm -rf $(SOFTRDMA_BUILD)

# make install: the libraries into SOFTRDMA_LIBDIR, a directory of their own, and
# softrdma-run, which puts that directory first in LD_LIBRARY_PATH
INSTALL_SOFTRDMA_LIBS += $(SOFTRDMA_BUILD)/libibverbs.so.1 $(SOFTRDMA_BUILD)/librdmacm.so.1
SOFTRDMA_RUN_INSTALL := $(INSTALL_GEN)/bin/softrdma-run
INSTALL_BINS += $(SOFTRDMA_RUN_INSTALL)

$(SOFTRDMA_RUN_INSTALL): $(SOFTRDMA_ROOT)/tools/softrdma-run $(INSTALL_STAMP)
	@mkdir -p $(@D)
	sed -e "s|^default_libdir=.*|default_libdir='$(SOFTRDMA_LIBDIR)'|" \
		-e "s|^installed_version=.*|installed_version='$(TOOLS_VERSION)'|" $< > $@
	@grep -qxF "default_libdir='$(SOFTRDMA_LIBDIR)'" $@ && \
		grep -qxF "installed_version='$(TOOLS_VERSION)'" $@ || \
		{ echo "$<: no default_libdir= or installed_version= line to set"; rm -f $@; exit 1; }
	chmod 755 $@

CHECK_TARGETS += check-softrdma

# The libFuzzer harnesses (mk/module.mk), linked with softrdma's sources and the
# harnesses' environment (fuzz/softrdma_fuzz.c): the verbs library but the ABI stubs of
# compat.c, which need the generated symbol versions; the CM harness also the CM's
# sources (but cm_stubs.c, for the same reason). clang warns about resp.c's WQE buffer,
# a GNU extension; keys move by 1 at each registration (not at random), so that a
# seed's recorded keys match.
SOFTRDMA_FUZZ_SRCS := $(addprefix softrdma/src/,$(filter-out compat.c,$(SOFTRDMA_VERBS_SRCS))) \
	fuzz/softrdma_fuzz.c
SOFTRDMA_FUZZ_CM_SRCS := $(addprefix softrdma/src/,$(filter cm%,$(filter-out cm_stubs.c,$(SOFTRDMA_CM_SRCS))))
SOFTRDMA_FUZZ_CFLAGS := -Isoftrdma/src -Itests/support -Wno-gnu-variable-sized-type-not-at-end \
	-DSOFTRDMA_MR_KEY_STEP=1

MODULE := softrdma
MODULE_SRCS := $(SOFTRDMA_FUZZ_SRCS)
MODULE_BASE_CFLAGS := $(CFLAGS_COMMON)
MODULE_CFLAGS := $(SOFTRDMA_FUZZ_CFLAGS)
MODULE_LIBS := -pthread
MODULE_UNIT_TESTS :=
MODULE_FUZZ := $(subst _,-,$(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_softrdma_*.c)))
MODULE_FUZZ_SRCS_softrdma-cm := $(SOFTRDMA_FUZZ_SRCS) $(SOFTRDMA_FUZZ_CM_SRCS)
MODULE_FUZZ_DEPS := tests/support/rc_qp.h
include mk/module.mk

# The seed recorder runs real softrdma traffic in one process and keeps what softrdma's
# receive paths read (recv, readv and close are wrapped at link time): it is built
# without sanitizers, from the harnesses' sources.
SOFTRDMA_FUZZ_RECORD := $(BUILD)/fuzz/softrdma-record

$(SOFTRDMA_FUZZ_RECORD): fuzz/softrdma_record.c fuzz/softrdma_fuzz.h tests/support/rc_qp.h \
		$(SOFTRDMA_FUZZ_SRCS) $(SOFTRDMA_FUZZ_CM_SRCS) $(SOFTRDMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_COMMON) -O1 $(SOFTRDMA_FUZZ_CFLAGS) -pthread -o $@ $< \
		$(SOFTRDMA_FUZZ_SRCS) $(SOFTRDMA_FUZZ_CM_SRCS) -Wl,--wrap=recv,--wrap=readv,--wrap=close

.PHONY: softrdma-fuzz-seeds
softrdma-fuzz-seeds: $(SOFTRDMA_FUZZ_RECORD)
	rm -f $(addsuffix /rec-*,$(addprefix fuzz/corpus/,$(notdir $(softrdma_FUZZ_BINS))))
	$(SOFTRDMA_FUZZ_RECORD) tcp fuzz/corpus
	$(SOFTRDMA_FUZZ_RECORD) shm fuzz/corpus
