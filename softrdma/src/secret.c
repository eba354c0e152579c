/* SPDX-License-Identifier: BSD-3-Clause */
/* Connection secrets: the table of local and remote entries (secret.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "secret.h"
#include "util.h"

struct softrdma_secret {
	struct softrdma_list node;
	/* 0 for a local entry, else the peer's IPv4 address */
	uint32_t addr;
	uint32_t qpn;
	uint8_t key[SOFTRDMA_SECRET_LEN];
};

/* @lock guards @entries and every entry on it. */
static struct {
	pthread_mutex_t lock;
	struct softrdma_list entries;
} softrdma_secrets = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .entries = {&softrdma_secrets.entries, &softrdma_secrets.entries},
};

/* Draw a secret: 16 bytes the kernel's pool gives at once or an errno. */
int
softrdma__secret_new(uint8_t key[SOFTRDMA_SECRET_LEN])
{
	ssize_t n;

	do {
		n = getrandom(key, SOFTRDMA_SECRET_LEN, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return n == SOFTRDMA_SECRET_LEN ? 0 : EIO;
}

/* The entry of (@addr, @qpn), or NULL (lock held). */
static struct softrdma_secret *
softrdma_secret_find(uint32_t addr, uint32_t qpn)
{
	struct softrdma_list *n;

	for (n = softrdma_secrets.entries.next; n != &softrdma_secrets.entries; n = n->next) {
		struct softrdma_secret *s = SOFTRDMA_CONTAINER_OF(n, struct softrdma_secret, node);

		if (s->addr == addr && s->qpn == qpn)
			return s;
	}
	return NULL;
}

/* Set the entry of (@addr, @qpn) to @key, adding it when new; 0 or ENOMEM. */
static int
softrdma_secret_set(uint32_t addr, uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN])
{
	struct softrdma_secret *s;
	int err = 0;

	pthread_mutex_lock(&softrdma_secrets.lock);
	s = softrdma_secret_find(addr, qpn);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			err = ENOMEM;
			goto out;
		}
		s->addr = addr;
		s->qpn = qpn;
		softrdma__list_add_tail(&softrdma_secrets.entries, &s->node);
	}
	memcpy(s->key, key, SOFTRDMA_SECRET_LEN);
out:
	pthread_mutex_unlock(&softrdma_secrets.lock);
	return err;
}

/* Remove the entry of (@addr, @qpn), if any. */
static void
softrdma_secret_forget(uint32_t addr, uint32_t qpn)
{
	struct softrdma_secret *s;

	pthread_mutex_lock(&softrdma_secrets.lock);
	s = softrdma_secret_find(addr, qpn);
	if (s)
		softrdma__list_del(&s->node);
	pthread_mutex_unlock(&softrdma_secrets.lock);
	if (s) {
		explicit_bzero(s->key, sizeof(s->key));
		free(s);
	}
}

/* A local QP's secret, set by the CM. */
int
softrdma__secret_set_local(uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN])
{
	return softrdma_secret_set(0, qpn, key);
}

/* A connection's secret by its peer QP, set by the passive side's CM. */
int
softrdma__secret_set_remote(struct in_addr addr, uint32_t qpn,
			    const uint8_t key[SOFTRDMA_SECRET_LEN])
{
	/* an entry with address 0 would read as a local one: nothing to find it by */
	if (!addr.s_addr)
		return 0;
	return softrdma_secret_set(addr.s_addr, qpn, key);
}

/* A local QP no longer speaks for the connection its secret was drawn for. */
void
softrdma__secret_forget_local(uint32_t qpn)
{
	softrdma_secret_forget(0, qpn);
}

/* The passive side's CM is done with the remote entry of a request. */
void
softrdma__secret_forget_remote(struct in_addr addr, uint32_t qpn)
{
	if (addr.s_addr)
		softrdma_secret_forget(addr.s_addr, qpn);
}

/* What a requester sends: its own secret, else the one of its peer QP. */
int
softrdma__secret_for_hello(uint32_t qpn, struct in_addr addr, uint32_t dest_qpn,
			   uint8_t key[SOFTRDMA_SECRET_LEN])
{
	struct softrdma_secret *s;

	pthread_mutex_lock(&softrdma_secrets.lock);
	s = softrdma_secret_find(0, qpn);
	if (!s && addr.s_addr)
		s = softrdma_secret_find(addr.s_addr, dest_qpn);
	if (s)
		memcpy(key, s->key, SOFTRDMA_SECRET_LEN);
	else
		memset(key, 0, SOFTRDMA_SECRET_LEN);
	pthread_mutex_unlock(&softrdma_secrets.lock);
	return s != NULL;
}

/* Compare two secrets in a time that does not depend on where they differ. */
static int
softrdma_secret_equal(const uint8_t *a, const uint8_t *b)
{
	volatile uint8_t diff = 0;
	int i;

	for (i = 0; i < SOFTRDMA_SECRET_LEN; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

/* Whether a hello carrying @key may attach to local QP @qpn. */
int
softrdma__secret_admits(uint32_t qpn, const uint8_t key[SOFTRDMA_SECRET_LEN])
{
	struct softrdma_secret *s;
	int ok;

	pthread_mutex_lock(&softrdma_secrets.lock);
	s = softrdma_secret_find(0, qpn);
	ok = !s || softrdma_secret_equal(s->key, key);
	pthread_mutex_unlock(&softrdma_secrets.lock);
	return ok;
}

/* fork(), before: the table's lock is the last one taken. */
void
softrdma__secret_fork_prepare(void)
{
	pthread_mutex_lock(&softrdma_secrets.lock);
}

/* fork(), in the parent. */
void
softrdma__secret_fork_parent(void)
{
	pthread_mutex_unlock(&softrdma_secrets.lock);
}

/*
 * fork(), in the child, which holds the lock: the entries speak for the
 * parent's connections, which the child's inherited QPs never use.
 */
void
softrdma__secret_fork_child(void)
{
	struct softrdma_list *n, *next;

	for (n = softrdma_secrets.entries.next; n != &softrdma_secrets.entries; n = next) {
		next = n->next;
		free(SOFTRDMA_CONTAINER_OF(n, struct softrdma_secret, node));
	}
	softrdma__list_init(&softrdma_secrets.entries);
	pthread_mutex_unlock(&softrdma_secrets.lock);
}
