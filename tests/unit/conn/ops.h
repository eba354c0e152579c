/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops.h -- the data-path tests of ops.c, run by the main() of conn.c
 */

#ifndef UNIT_CONN_OPS_H
#define UNIT_CONN_OPS_H 1

extern const struct CMUnitTest conn_ops_tests[];
extern const size_t conn_ops_count;

#endif /* UNIT_CONN_OPS_H */
