# SPDX-License-Identifier: BSD-3-Clause
#
# tools/common/common.mk -- what the tools and their scripts share, included by
# the top-level Makefile (GNU make):
#   make check-service-start   the daemon helpers of service-start.sh on stand-in
#                              programs (tools/common/test-service-start.sh)

.PHONY: check-service-start

check-service-start:
	@tools/common/test-service-start.sh

CHECK_TARGETS += check-service-start
