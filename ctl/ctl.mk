# SPDX-License-Identifier: BSD-3-Clause
#
# ctl/ctl.mk -- the control channel: a module of librpmaf (mk/module.mk)
#   make check-ctl   the control channel between the server's test clients and the
#                    server (tests/integration/server/: check-server covers ctl/ too)

MODULE := ctl
MODULE_LIB := rpmaf
include mk/module.mk

.PHONY: check-ctl

check-ctl: check-server
