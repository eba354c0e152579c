/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool_torture_resurrect.c -- a planted bug for the pool's torture test,
 * linked in with -Wl,--wrap=rpmaf__regtab_announce: once a region's
 * removal has been applied, the next announcement of another region first
 * drops the tombstones and puts the removed registration back, as a
 * REGION_LIST page taken before the removal and applied after a prune
 * would. The table then offers a registration the client had seen removed:
 * the torture must fail.
 */

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "../../regtab/regtab.h"

/* a registration announced, kept whole (the announcement's buffers do not last) */
struct kept {
	bool used;
	uint32_t target;
	struct rpmaf__proto_region reg;
	char name[RPMAF__REGTAB_NAME_MAX + 1];
	uint8_t desc[RPMAF__REGTAB_DESC_MAX];
};

#define KEPT_MAX 32

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER; /* guards Kept and Back */
static struct kept Kept[KEPT_MAX]; /* the last registration announced of each name */
static struct kept Back;	   /* the one to bring back */

int __real_rpmaf__regtab_announce(struct rpmaf__regtab *tab, uint32_t target,
				  const struct rpmaf__proto_region *reg, bool removed);
int __wrap_rpmaf__regtab_announce(struct rpmaf__regtab *tab, uint32_t target,
				  const struct rpmaf__proto_region *reg, bool removed);

/* kept_of -- the slot of the name of reg (a free one when it has none; NULL when full) */
static struct kept *
kept_of(const struct rpmaf__proto_region *reg)
{
	struct kept *free_one = NULL;

	for (unsigned i = 0; i < KEPT_MAX; i++) {
		if (Kept[i].used && Kept[i].reg.name_len == reg->name_len &&
		    memcmp(Kept[i].name, reg->name, reg->name_len) == 0)
			return &Kept[i];
		if (!Kept[i].used && !free_one)
			free_one = &Kept[i];
	}
	return free_one;
}

/* keep -- copy an added registration, its name and descriptor included */
static void
keep(struct kept *k, uint32_t target, const struct rpmaf__proto_region *reg)
{
	k->used = true;
	k->target = target;
	k->reg = *reg;
	memset(k->name, 0, sizeof(k->name));
	memcpy(k->name, reg->name, reg->name_len);
	memcpy(k->desc, reg->desc, reg->desc_len);
	k->reg.name = k->name;
	k->reg.desc = k->desc;
}

/* bring_back -- the planted bug: forget the tombstones, apply the removed registration again */
static void
bring_back(struct rpmaf__regtab *tab, const struct rpmaf__proto_region *reg)
{
	if (!Back.used || (Back.reg.name_len == reg->name_len &&
			   memcmp(Back.name, reg->name, reg->name_len) == 0))
		return;
	(void)rpmaf__regtab_prune(tab);
	(void)rpmaf__regtab_apply(tab, Back.target, &Back.reg);
	Back.used = false;
}

/* hold -- a removal: keep its last registration to bring back */
static void
hold(const struct kept *k)
{
	Back = *k;
	Back.reg.name = Back.name;
	Back.reg.desc = Back.desc;
}

/*
 * __wrap_rpmaf__regtab_announce -- the announcement, after the planted
 * bug's work (all under one lock: the removal is in the table before
 * another announcement may bring it back)
 */
int
__wrap_rpmaf__regtab_announce(struct rpmaf__regtab *tab, uint32_t target,
			      const struct rpmaf__proto_region *reg, bool removed)
{
	struct kept *k;
	int ret;

	(void)pthread_mutex_lock(&Lock);
	bring_back(tab, reg);
	k = kept_of(reg);
	if (k && !removed && (!k->used || k->reg.generation < reg->generation))
		keep(k, target, reg);
	else if (k && removed && k->used && k->reg.generation < reg->generation && !Back.used)
		hold(k);
	ret = __real_rpmaf__regtab_announce(tab, target, reg, removed);
	(void)pthread_mutex_unlock(&Lock);
	return ret;
}
