/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * diag.h -- the configuration loader's diagnostics: one error message per
 * load, "FILE:LINE:COLUMN: key.path: what is wrong (what was expected)", and
 * the "did you mean" suggestions for misspelt keys and values.
 *
 * ASSUMPTIONS
 * A diag lives on the stack of one load; nothing here is shared between
 * threads.
 */

#ifndef RPMAF_CFG_DIAG_H
#define RPMAF_CFG_DIAG_H

#include <stddef.h>

#include "rpmaf.h"

/* where a message points: a line and column of the file, or an override */
struct rpmaf__cfg_pos {
	unsigned line;	 /* 1-based; 0: no position */
	unsigned column; /* 1-based */
	int ovr;	 /* index of the --set string; -1: the file */
};

struct rpmaf__cfg_diag {
	const char *name;	      /* the file name shown in messages */
	const char *const *overrides; /* the --set strings, for messages */
	struct rpmaf_cfg_err *err;    /* where the message goes; may be NULL */
	int code;		      /* the first error's code; 0: none yet */
};

/* the longest key path or quoted text a message shows */
#define RPMAF__CFG_PATH_MAX 256

/*
 * rpmaf__cfg_diag_init -- a diag that writes to err (may be NULL) and shows
 * name as the file
 */
void rpmaf__cfg_diag_init(struct rpmaf__cfg_diag *d, const char *name, const char *const *overrides,
			  struct rpmaf_cfg_err *err);

/*
 * rpmaf__cfg_diag_fail -- record an error at pos for key path (NULL or ""
 * for none), the message from fmt. Only the first error of a load is kept.
 *
 * RETURN VALUE
 * code, so that callers can write "return rpmaf__cfg_diag_fail(...)".
 */
int rpmaf__cfg_diag_fail(struct rpmaf__cfg_diag *d, int code, struct rpmaf__cfg_pos pos,
			 const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * rpmaf__cfg_diag_nomem -- record an allocation failure (no position)
 *
 * RETURN VALUE
 * RPMAF_E_NOMEM
 */
int rpmaf__cfg_diag_nomem(struct rpmaf__cfg_diag *d);

/*
 * rpmaf__cfg_suggest -- the candidate closest to the len bytes at word, when
 * it is close enough to be a likely misspelling (edit distance at most a
 * third of its length, and at least 1, counting a swap of two neighbours as
 * one edit); NULL otherwise. cands is NULL-terminated.
 */
const char *rpmaf__cfg_suggest(const char *word, size_t len, const char *const *cands);

/*
 * rpmaf__cfg_quote -- len bytes at s as a printable, double-quoted text of
 * at most size - 1 bytes: control and non-ASCII bytes as \xNN, long text cut
 * with "...". Returns buf.
 */
char *rpmaf__cfg_quote(char *buf, size_t size, const char *s, size_t len);

/*
 * rpmaf__cfg_diag_key -- a key of len bytes as a key path shows it, into
 * buf: as is when it is a plain name of at most 64 bytes without '.', else
 * quoted (rpmaf__cfg_quote()). Returns buf.
 */
char *rpmaf__cfg_diag_key(char *buf, size_t size, const char *key, size_t len);

#endif /* RPMAF_CFG_DIAG_H */
