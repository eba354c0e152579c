# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# tools/rpma-load/test-workload.sh -- sourced (bash) by rpma-load's tests,
# test-rpma-load.sh and test-rpma-load-tsan.sh: the workload both run, one of
# every kind of operation. It defines one function and runs nothing.

# workload_every_kind FILE THREADS QUEUE_DEPTH -- write to FILE a 2 s workload
# on region data, THREADS threads with QUEUE_DEPTH operations in flight each:
# writes, persistent writes and reads of several sizes, atomics and calls (a
# kind rpma-load learns belongs here, so that both tests run it)
workload_every_kind() {
	cat >"$1" <<YAML
region: data
mix:
  - {kind: write, weight: 2}
  - {kind: write_persist, weight: 3}
  - {kind: read, weight: 3}
  - {kind: atomic, weight: 1}
  - {kind: call, weight: 1}
sizes:
  write: 1K
  write_persist: {uniform: [512, 4K]}
  read: {uniform: [64, 8K]}
  call: 128
threads: $2
queue_depth: $3
duration: 2s
YAML
}
