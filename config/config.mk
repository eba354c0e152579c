# SPDX-License-Identifier: BSD-3-Clause
#
# config/config.mk -- the configuration module of librpmaf (mk/module.mk): its
# tests and its fuzzing, included by the top-level Makefile (GNU make):
#   make check-config        the cmocka tests of tests/unit/config/, built with gcc
#                            (gcov) and with clang AddressSanitizer+UBSan, run both
#   make coverage-config     line coverage of config/*.c from the gcc run
#   make fuzz-config         build/fuzz/fuzz_config (libFuzzer): YAML bytes and --set
#                            strings into the loader
#   make check-fuzz-config   run it for FUZZ_CHECK_SECONDS; make fuzz-run-config SECONDS=N
#
# Each tests/unit/config/test_*.c is one program, linked with the other .c
# files of that directory and with config/*.c compiled in (not the shared
# library, so that the tests reach the internal functions too).

CONFIG_SRCS := $(sort $(wildcard config/*.c))
# the key file is checked with the control protocol's own parser (proto/auth.c)
CONFIG_DEP_SRCS := $(sort $(wildcard proto/*.c))
CONFIG_DEP_LIBS := -lsodium

MODULE := config
MODULE_LIB := rpmaf
MODULE_HDRS := $(wildcard config/*.h) $(wildcard proto/*.h) $(RPMAF_PUBLIC_HDRS)
MODULE_CFLAGS := -Irpmaf/include -Iconfig
MODULE_LIBS := -lyaml $(CONFIG_DEP_LIBS)
MODULE_UNIT_DEP_SRCS := $(CONFIG_DEP_SRCS)
MODULE_UNIT_HELPERS := tests/support/fail_alloc.c
MODULE_UNIT_CFLAGS := -Itests/support -DCONFIG_TOP_DIR='"$(abspath .)"'
# the tests make allocations fail on purpose
MODULE_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
MODULE_CHECK := check-config
MODULE_FUZZ := config
MODULE_FUZZ_LIBS := -lyaml $(CONFIG_DEP_LIBS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
include mk/module.mk
