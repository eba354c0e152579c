/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * scalar.c -- scalar syntax. Strict on purpose: one spelling per value, so
 * that what a file says is what every reader of it understands (no octal
 * "010", no "yes"/"on" booleans, no hexadecimal floats).
 */

#include <arpa/inet.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "scalar.h"

/* is_digit -- an ASCII decimal digit */
static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* scalar_digits -- the value of the n digits at s (n > 0, no leading zero) */
static enum rpmaf__cfg_scalar_res
scalar_digits(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || (n > 1 && s[0] == '0'))
		return RPMAF__CFG_SCALAR_SYNTAX;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return RPMAF__CFG_SCALAR_SYNTAX;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return RPMAF__CFG_SCALAR_RANGE;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return RPMAF__CFG_SCALAR_OK;
}

/* see scalar.h */
enum rpmaf__cfg_scalar_res
rpmaf__cfg_scalar_uint(const char *s, size_t len, uint64_t *v)
{
	uint64_t ignored;

	if (len > 1 && s[0] == '-')
		return scalar_digits(s + 1, len - 1, &ignored) == RPMAF__CFG_SCALAR_SYNTAX
			   ? RPMAF__CFG_SCALAR_SYNTAX
			   : RPMAF__CFG_SCALAR_RANGE;
	return scalar_digits(s, len, v);
}

/* see scalar.h */
enum rpmaf__cfg_scalar_res
rpmaf__cfg_scalar_size(const char *s, size_t len, uint64_t *v)
{
	static const char *const units[] = {"K", "M", "G", "T", "KiB", "MiB", "GiB", "TiB"};
	size_t n = 0;
	unsigned shift = 0;
	enum rpmaf__cfg_scalar_res res;

	while (n < len && is_digit(s[n]))
		n++;
	if (n < len) {
		size_t ulen = len - n;

		for (unsigned i = 0; i < 8 && shift == 0; i++)
			if (strlen(units[i]) == ulen && memcmp(units[i], s + n, ulen) == 0)
				shift = 10 * (i % 4 + 1);
		if (shift == 0)
			return rpmaf__cfg_scalar_uint(s, len, v);
	}
	res = scalar_digits(s, n, v);
	if (res != RPMAF__CFG_SCALAR_OK)
		return res;
	if (shift && *v > (UINT64_MAX >> shift))
		return RPMAF__CFG_SCALAR_RANGE;
	*v <<= shift;
	return RPMAF__CFG_SCALAR_OK;
}

/* see scalar.h */
enum rpmaf__cfg_scalar_res
rpmaf__cfg_scalar_bool(const char *s, size_t len, bool *v)
{
	static const char *const yes[] = {"true", "True", "TRUE", NULL};
	static const char *const no[] = {"false", "False", "FALSE", NULL};

	if (rpmaf__cfg_scalar_enum(s, len, yes) >= 0)
		*v = true;
	else if (rpmaf__cfg_scalar_enum(s, len, no) >= 0)
		*v = false;
	else
		return RPMAF__CFG_SCALAR_SYNTAX;
	return RPMAF__CFG_SCALAR_OK;
}

/* float_syntax -- digits [. digits] [e|E [+|-] digits], all of len */
static bool
float_syntax(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_digit(s[i]))
		i++;
	if (i == 0)
		return false;
	if (i < len && s[i] == '.') {
		size_t start = ++i;

		while (i < len && is_digit(s[i]))
			i++;
		if (i == start)
			return false;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t start;

		if (++i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		start = i;
		while (i < len && is_digit(s[i]))
			i++;
		if (i == start)
			return false;
	}
	return i == len;
}

/* see scalar.h */
locale_t
rpmaf__cfg_c_locale(void)
{
	static locale_t c_locale; /* created once, kept for the life of the process */
	locale_t loc = __atomic_load_n(&c_locale, __ATOMIC_ACQUIRE);
	locale_t expected = (locale_t)0;

	if (loc)
		return loc;
	loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (loc == (locale_t)0)
		return loc;
	if (!__atomic_compare_exchange_n(&c_locale, &expected, loc, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		freelocale(loc); /* another thread was first */
		loc = expected;
	}
	return loc;
}

/* see scalar.h */
enum rpmaf__cfg_scalar_res
rpmaf__cfg_scalar_float(const char *s, size_t len, double *v)
{
	char buf[RPMAF_CFG_MAX_SCALAR + 1];
	locale_t loc = rpmaf__cfg_c_locale();

	if (!float_syntax(s, len))
		return RPMAF__CFG_SCALAR_SYNTAX;
	if (len >= sizeof(buf)) /* longer than any scalar of a document */
		return RPMAF__CFG_SCALAR_RANGE;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = loc ? strtod_l(buf, NULL, loc) : strtod(buf, NULL);
	return isfinite(*v) ? RPMAF__CFG_SCALAR_OK : RPMAF__CFG_SCALAR_RANGE;
}

/* see scalar.h */
int
rpmaf__cfg_scalar_enum(const char *s, size_t len, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return i;
	return -1;
}

/* see scalar.h */
bool
rpmaf__cfg_scalar_name_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!is_digit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

/* host_label_ok -- one label of a host name: 1 to 63 of [A-Za-z0-9-], no '-' at the ends */
static bool
host_label_ok(const char *s, size_t len)
{
	if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!is_digit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '-')
			return false;
	}
	return true;
}

/* see scalar.h */
bool
rpmaf__cfg_scalar_host_ok(const char *s, size_t len)
{
	unsigned char addr[sizeof(struct in6_addr)];
	char buf[256];
	size_t start = 0;
	size_t last = 0;

	if (len == 0 || len >= sizeof(buf) || memchr(s, '\0', len))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1 || inet_pton(AF_INET6, buf, addr) == 1)
		return true;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (!host_label_ok(s + start, i - start))
			return false;
		last = start;
		start = i + 1;
	}
	/* a name whose last label is a number is a mistyped IPv4 address ("10.0.0.256") */
	for (size_t i = last; i < len; i++)
		if (!is_digit(s[i]))
			return true;
	return false;
}

/* see scalar.h */
bool
rpmaf__cfg_scalar_path_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}
