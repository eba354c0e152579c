/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * schema.h -- the keys of the configuration file: for each key its name,
 * type, range and where its value goes in struct rpmaf_cfg, and the defaults.
 * The mapper, the dumper, the comparison and the destructor all walk this
 * one table, so a new key is one entry here (and its rules in rules.c).
 *
 * ASSUMPTIONS
 * The table is constant; it may be read from any thread.
 */

#ifndef RPMAF_CFG_SCHEMA_H
#define RPMAF_CFG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpmaf.h"

enum rpmaf__cfg_type {
	RPMAF__CFG_T_SECTION,  /* a mapping of keys; its fields live in the parent's struct */
	RPMAF__CFG_T_LIST,     /* a list of mappings of keys, into an allocated array */
	RPMAF__CFG_T_U32,      /* uint32_t from min to max */
	RPMAF__CFG_T_U32_AUTO, /* the same, or "auto" (RPMAF__CFG_AUTO until resolved) */
	RPMAF__CFG_T_SIZE,     /* uint64_t bytes, with an optional K/M/G/T suffix */
	RPMAF__CFG_T_BOOL,     /* bool: true or false */
	RPMAF__CFG_T_ENUM,     /* an enum: one of names[] */
	RPMAF__CFG_T_FLAGS,    /* unsigned: a list of names[], bit i for names[i] */
	RPMAF__CFG_T_FLOAT,    /* double from fmin to fmax */
	RPMAF__CFG_T_NAME,     /* char *: letters, digits, '_', '-', '.' */
	RPMAF__CFG_T_HOST,     /* char *: an IPv4/IPv6 address or a host name */
	RPMAF__CFG_T_PATH,     /* char *: a file system path */
	RPMAF__CFG_T_CPUS,     /* uint32_t * and a count: a list of CPU numbers */
	RPMAF__CFG_T_BACKING,  /* enum rpmaf_backing: names[0] or a mapping of keys */
};

/* the value of an "auto" key before the rules resolve it */
#define RPMAF__CFG_AUTO UINT32_MAX
/* no such field */
#define RPMAF__CFG_NONE SIZE_MAX

struct rpmaf__cfg_key {
	const char *name;
	enum rpmaf__cfg_type type;
	size_t offset;	/* of the field, in the struct of the enclosing section or list element */
	uint64_t min;	/* integers and sizes; strings: shortest length */
	uint64_t max;	/* integers and sizes; strings: longest length in bytes */
	uint64_t align; /* SIZE: must be a multiple of it (0: any) */
	double fmin;	/* FLOAT */
	double fmax;
	const char *const *names;	   /* ENUM, FLAGS, BACKING: NULL-terminated */
	const struct rpmaf__cfg_key *keys; /* SECTION, LIST, BACKING: ended by a NULL name */
	size_t count_offset;		   /* LIST, CPUS: uint32_t count; SECTION: bool set when
					      the section is present (or RPMAF__CFG_NONE) */
	size_t elem_size;		   /* LIST */
	void (*init)(void *elem);	   /* LIST: the defaults of a new element */
	bool required;			   /* an error when the key is missing */
	bool (*omit)(const void *base);	   /* dump: leave out when true for this struct */
};

/* the document itself: a SECTION whose keys are the top-level sections */
extern const struct rpmaf__cfg_key rpmaf__cfg_schema;

/* rpmaf__cfg_defaults -- every default of the configuration into cfg (lists empty) */
void rpmaf__cfg_defaults(struct rpmaf_cfg *cfg);

/*
 * rpmaf__cfg_key_expected -- what a value of key may be, as the "(...)" of a
 * message ("an integer from 1 to 256"), into buf. Returns buf.
 */
char *rpmaf__cfg_key_expected(const struct rpmaf__cfg_key *key, char *buf, size_t size);

/*
 * rpmaf__cfg_key_names -- the names of keys[] (at most n - 1, then NULL)
 * into names, for suggestions
 */
void rpmaf__cfg_key_names(const struct rpmaf__cfg_key *keys, const char **names, size_t n);

/* rpmaf__cfg_size_str -- bytes as "64K", "1M", ... when exact, else decimal; returns buf */
char *rpmaf__cfg_size_str(uint64_t bytes, char *buf, size_t size);

#endif /* RPMAF_CFG_SCHEMA_H */
