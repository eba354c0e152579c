# SPDX-License-Identifier: BSD-3-Clause
#
# tests/sanitize/sanitize.mk -- softrdma built with sanitizers, under the
# softrdma, example and integration suites; part of make check-slow:
#   make check-softrdma-asan   gcc AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-softrdma-tsan   gcc ThreadSanitizer
# Each builds build/softrdma-VARIANT (SOFTRDMA_VARIANT in softrdma.mk), the
# suites' programs as usual, and runs tests/sanitize/run-sanitized.sh.
# tests/sanitize/tsan.supp may only name softrdma's known-benign races, each
# with a comment saying why it is benign.

SANITIZE_VARIANTS := asan tsan

.PHONY: $(addprefix check-softrdma-,$(SANITIZE_VARIANTS))

$(addprefix check-softrdma-,$(SANITIZE_VARIANTS)): check-softrdma-%: examples integration
	@$(MAKE) --no-print-directory softrdma softrdma-tests SOFTRDMA_VARIANT=$*
	@tests/sanitize/run-sanitized.sh $*

CHECK_SLOW_TARGETS += $(addprefix check-softrdma-,$(SANITIZE_VARIANTS))
