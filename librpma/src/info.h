/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * info.h -- address information for the connection manager: turns an
 * address and a port into what rdma_bind_addr() / rdma_resolve_addr() need.
 *
 * Threads: set-up only; any thread on an rdma_addrinfo and id of its own,
 * no lock; the caller frees the information with rpma__info_delete().
 */

#ifndef RPMA_INFO_H
#define RPMA_INFO_H

#include <rdma/rdma_cma.h>

enum rpma_info_side {
	RPMA_INFO_PASSIVE, /* a local address to bind or listen on */
	RPMA_INFO_ACTIVE,  /* a remote address to connect to */
};

/*
 * rpma__info_new -- look addr:port up (port may be NULL).
 *
 * ASSUMPTIONS: addr and info_ptr are not NULL.
 * ERRORS: RPMA_E_PROVIDER (rdma_getaddrinfo() failed; errno kept).
 */
int rpma__info_new(const char *addr, const char *port, enum rpma_info_side side,
		   struct rdma_addrinfo **info_ptr);

/* rpma__info_delete -- free what rpma__info_new() returned; NULL is fine */
void rpma__info_delete(struct rdma_addrinfo **info_ptr);

/*
 * rpma__info_new_id -- rpma__info_new(), then a synchronous TCP-port-space
 * id for it (*id_ptr), the start both of a connection request and of a
 * device lookup. The caller destroys the id and deletes the information.
 *
 * ASSUMPTIONS: addr, info_ptr and id_ptr are not NULL.
 * ERRORS: RPMA_E_PROVIDER (rdma_getaddrinfo() or rdma_create_id() failed;
 * nothing is left allocated).
 */
int rpma__info_new_id(const char *addr, const char *port, enum rpma_info_side side,
		      struct rdma_addrinfo **info_ptr, struct rdma_cm_id **id_ptr);

/*
 * rpma__info_resolve_addr -- resolve the destination (and route) of a
 * synchronous id, within timeout_ms.
 * ERRORS: RPMA_E_PROVIDER.
 */
int rpma__info_resolve_addr(const struct rdma_addrinfo *info, struct rdma_cm_id *id,
			    int timeout_ms);

/*
 * rpma__info_bind_addr -- bind id to the source address.
 * ERRORS: RPMA_E_PROVIDER.
 */
int rpma__info_bind_addr(const struct rdma_addrinfo *info, struct rdma_cm_id *id);

#endif /* RPMA_INFO_H */
