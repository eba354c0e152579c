/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shared_cq.h -- the tests of shared_cq.c (requests on CQs of their own),
 * run by the main() of conn_req.c
 */

#ifndef UNIT_CONN_REQ_SHARED_CQ_H
#define UNIT_CONN_REQ_SHARED_CQ_H 1

extern const struct CMUnitTest conn_req_shared_cq_tests[];
extern const size_t conn_req_shared_cq_count;

#endif /* UNIT_CONN_REQ_SHARED_CQ_H */
