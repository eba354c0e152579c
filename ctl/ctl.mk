# SPDX-License-Identifier: BSD-3-Clause
#
# ctl/ctl.mk -- the tests of ctl/ (its *.c go into librpmaf through rpmaf/rpmaf.mk)
#   make check-ctl   the control channel between the server's test clients and the
#                    server (tests/integration/server/: check-server covers ctl/ too)

.PHONY: check-ctl

check-ctl: check-server
