# SPDX-License-Identifier: BSD-3-Clause
#
# fuzz/softrdma-fuzz.mk -- libFuzzer harnesses of what softrdma parses from
# a peer, linked with softrdma's own sources; included by the top-level
# Makefile (GNU make):
#   make fuzz-softrdma         build/fuzz/fuzz_softrdma_* (clang, libFuzzer, ASan, UBSan)
#   make check-fuzz-softrdma   run each for FUZZ_CHECK_SECONDS; make fuzz-run-softrdma SECONDS=N
#   make softrdma-fuzz-seeds   record the seeds fuzz/corpus/fuzz_softrdma_*/rec-* again
# SOFTRDMA_FUZZ_DEEP=1 in the environment makes fuzz_softrdma_cm connect a
# real pair through the CM's listener after every input, not every 64th.

SFZ_NAMES := $(notdir $(basename $(wildcard fuzz/fuzz_softrdma_*.c)))
SFZ_BINS := $(addprefix $(BUILD)/fuzz/,$(SFZ_NAMES))
SFZ_OBJ := $(BUILD)/fuzz/softrdma
# softrdma's verbs library but the ABI stubs of compat.c, which need the
# generated symbol versions; the CM harness is linked with the CM's sources
# (but cm_stubs.c, which needs the generated symbol versions)
SFZ_SRCS := $(addprefix softrdma/src/,$(filter-out compat.c,$(SOFTRDMA_VERBS_SRCS)))
SFZ_LIB_OBJS := $(patsubst softrdma/src/%.c,$(SFZ_OBJ)/%.o,$(SFZ_SRCS))
SFZ_OBJS := $(SFZ_LIB_OBJS) $(SFZ_OBJ)/softrdma_fuzz.o
# clang (softrdma builds with gcc) warns about resp.c's WQE buffer, a GNU extension
SFZ_WARN := $(WARN) -Wno-gnu-variable-sized-type-not-at-end
# keys move by 1 at each registration (not at random): a seed's recorded keys match
SFZ_KEYS := -DSOFTRDMA_MR_KEY_STEP=1
SFZ_CFLAGS := -g -O1 $(SFZ_WARN) -pthread -Isoftrdma/src $(FUZZ_FLAGS) $(SFZ_KEYS)
SFZ_RECORD := $(BUILD)/fuzz/softrdma-record

.PHONY: softrdma-fuzz-seeds

# static pattern rules: these targets never fall to the librpma harnesses' rule
$(SFZ_LIB_OBJS): $(SFZ_OBJ)/%.o: softrdma/src/%.c $(SOFTRDMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(SFZ_CFLAGS) -c $< -o $@

$(SFZ_OBJ)/softrdma_fuzz.o: fuzz/softrdma_fuzz.c fuzz/softrdma_fuzz.h $(SOFTRDMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(SFZ_CFLAGS) -c $< -o $@

$(SFZ_BINS): $(BUILD)/fuzz/%: fuzz/%.c fuzz/softrdma_fuzz.h $(SFZ_OBJS)
	$(CLANG) $(SFZ_CFLAGS) -o $@ $< $(SFZ_OBJS)

SFZ_CM_SRCS := $(addprefix softrdma/src/,$(filter cm%,$(filter-out cm_stubs.c,$(SOFTRDMA_CM_SRCS))))
$(BUILD)/fuzz/fuzz_softrdma_cm: SFZ_OBJS += $(SFZ_CM_SRCS)
$(BUILD)/fuzz/fuzz_softrdma_cm: $(SFZ_CM_SRCS)

$(eval $(call fuzz_targets,softrdma,$(SFZ_BINS)))

# The seed recorder runs real softrdma traffic in one process and keeps
# what softrdma's receive paths read (recv, readv and close are wrapped at
# link time): it is built without sanitizers, from the same sources.
$(SFZ_RECORD): fuzz/softrdma_record.c fuzz/softrdma_fuzz.c fuzz/softrdma_fuzz.h $(SFZ_SRCS) \
		$(SFZ_CM_SRCS) $(SOFTRDMA_HDRS)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 $(SFZ_WARN) $(SFZ_KEYS) -pthread -Isoftrdma/src -o $@ fuzz/softrdma_record.c \
		fuzz/softrdma_fuzz.c $(SFZ_SRCS) $(SFZ_CM_SRCS) \
		-Wl,--wrap=recv,--wrap=readv,--wrap=close

softrdma-fuzz-seeds: $(SFZ_RECORD)
	rm -f $(addsuffix /rec-*,$(addprefix fuzz/corpus/,$(SFZ_NAMES)))
	$(SFZ_RECORD) tcp fuzz/corpus
	$(SFZ_RECORD) shm fuzz/corpus

CLEAN_DIRS += $(SFZ_OBJ) $(SFZ_BINS) $(SFZ_RECORD)
