/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * scalar.h -- the syntax of scalar values: integers, sizes, booleans,
 * numbers, names, host names and paths. Pure functions of their text.
 */

#ifndef RPMAF_CFG_SCALAR_H
#define RPMAF_CFG_SCALAR_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rpmaf__cfg_scalar_res {
	RPMAF__CFG_SCALAR_OK,
	RPMAF__CFG_SCALAR_SYNTAX, /* not of the type at all */
	RPMAF__CFG_SCALAR_RANGE,  /* of the type, but beyond what a uint64_t/double holds */
};

/*
 * rpmaf__cfg_scalar_uint -- a decimal integer: digits with no sign and no
 * leading zero; a leading '-' before digits is RANGE (negative).
 */
enum rpmaf__cfg_scalar_res rpmaf__cfg_scalar_uint(const char *s, size_t len, uint64_t *v);

/*
 * rpmaf__cfg_scalar_size -- an integer optionally followed by K, M, G, T
 * (or KiB, MiB, GiB, TiB), powers of 1024
 */
enum rpmaf__cfg_scalar_res rpmaf__cfg_scalar_size(const char *s, size_t len, uint64_t *v);

/*
 * rpmaf__cfg_c_locale -- the "C" locale for numbers, so that "1.5" reads and
 * prints the same whatever locale the program has set; (locale_t)0 when it
 * cannot be created (the program's locale is used then). Thread-safe.
 */
locale_t rpmaf__cfg_c_locale(void);

/* rpmaf__cfg_scalar_bool -- true/True/TRUE or false/False/FALSE */
enum rpmaf__cfg_scalar_res rpmaf__cfg_scalar_bool(const char *s, size_t len, bool *v);

/*
 * rpmaf__cfg_scalar_float -- a decimal number: digits, an optional fraction
 * and an optional exponent ("2", "1.5", "5e-1"); RANGE when not finite
 */
enum rpmaf__cfg_scalar_res rpmaf__cfg_scalar_float(const char *s, size_t len, double *v);

/*
 * rpmaf__cfg_scalar_enum -- the index of the len bytes at s in the
 * NULL-terminated names; -1 when absent
 */
int rpmaf__cfg_scalar_enum(const char *s, size_t len, const char *const *names);

/* rpmaf__cfg_scalar_name_ok -- only letters, digits, '_', '-' and '.' */
bool rpmaf__cfg_scalar_name_ok(const char *s, size_t len);

/*
 * rpmaf__cfg_scalar_host_ok -- an IPv4 address, an IPv6 address or a host
 * name (labels of letters, digits and '-' not at either end, joined by '.')
 */
bool rpmaf__cfg_scalar_host_ok(const char *s, size_t len);

/* rpmaf__cfg_scalar_path_ok -- no control character (a NUL included) */
bool rpmaf__cfg_scalar_path_ok(const char *s, size_t len);

#endif /* RPMAF_CFG_SCALAR_H */
