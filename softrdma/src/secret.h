/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection secrets: what a data connection proves to the responder QP it
 * names. The connection manager draws 128 random bits for every connection
 * it sets up and hands them to both sides inside its own exchange; the
 * requester sends them in its hello, and a responder QP that has a secret
 * takes no hello without it. QPs connected without the CM (numbers
 * exchanged out of band) have none and take a hello naming them, as an RNIC
 * takes a packet naming a QP.
 *
 * Two kinds of entries, both in this process's table:
 *   - local: the secret of a local QP (by its number), set by the CM once it
 *     knows which QP the connection uses (the active side when it sends its
 *     request, the passive side when it accepts); the responder checks
 *     hellos against it, the requester sends it;
 *   - remote: the secret of a connection to a peer QP (by the peer's
 *     address and QP number), set by the passive side's CM when the request
 *     arrives, for a QP the application moves to RTR before it accepts.
 *
 * Thread safety: every function may be called from any thread; the table's
 * lock is taken under any other lock of the library and nothing is taken
 * under it. An entry is freed when it is forgotten (the QP destroyed, the
 * request accepted or rejected).
 */
#ifndef SOFTRDMA_SECRET_H
#define SOFTRDMA_SECRET_H

#include <netinet/in.h>
#include <stdint.h>

#define SOFTRDMA_SECRET_LEN 16

/* Draw a new secret from the kernel's random pool; 0 or an errno. */
int softrdma__secret_new(uint8_t key[SOFTRDMA_SECRET_LEN]);

/* Give local QP @qpn the secret @key (replacing any); 0 or ENOMEM. */
int softrdma__secret_set_local(uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN]);

/* Record @key for the connection to QP @qpn of the peer at @addr; 0 or ENOMEM. */
int softrdma__secret_set_remote(struct in_addr addr, uint32_t qpn,
				const uint8_t key[SOFTRDMA_SECRET_LEN]);

/* Forget the local secret of QP @qpn (destroyed or reset). */
void softrdma__secret_forget_local(uint32_t qpn);

/* Forget the remote entry of (@addr, @qpn). */
void softrdma__secret_forget_remote(struct in_addr addr, uint32_t qpn);

/*
 * The secret a requester QP @qpn sends to QP @dest_qpn at @addr: its local
 * one, else the remote entry's, else all zeroes. Returns 1 when one was
 * found.
 */
int softrdma__secret_for_hello(uint32_t qpn, struct in_addr addr, uint32_t dest_qpn,
			       uint8_t key[SOFTRDMA_SECRET_LEN]);

/*
 * Whether a hello carrying @key may attach to local QP @qpn: yes when the QP
 * has no secret, or @key is its secret (compared in constant time).
 */
int softrdma__secret_admits(uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN]);

/*
 * fork() handlers: prepare takes the table's lock (after every other lock of
 * the library), parent releases it, the child empties the table.
 */
void softrdma__secret_fork_prepare(void);
void softrdma__secret_fork_parent(void);
void softrdma__secret_fork_child(void);

#endif
