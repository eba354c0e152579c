/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * dump.c -- the dumper. Strings are written double-quoted with escapes, and
 * numbers in the shortest form that reads back to the same double, so that
 * the output loads back to an equal configuration.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "scalar.h"
#include "schema.h"
#include "text.h"

#define FIELD(base, key) ((const char *)(base) + (key)->offset)

static int dump_keys(FILE *out, const struct rpmaf__cfg_key *keys, const void *base, int indent,
		     bool dash);

/* dump_omitted -- whether key of base writes nothing */
static bool
dump_omitted(const struct rpmaf__cfg_key *key, const void *base)
{
	const void *field = FIELD(base, key);

	if (key->omit && key->omit(base))
		return true;
	switch (key->type) {
	case RPMAF__CFG_T_SECTION:
		if (key->count_offset != RPMAF__CFG_NONE &&
		    !*(const bool *)((const char *)field + key->count_offset))
			return true;
		for (const struct rpmaf__cfg_key *k = key->keys; k->name; k++)
			if (!dump_omitted(k, field))
				return false;
		return true;
	case RPMAF__CFG_T_LIST:
	case RPMAF__CFG_T_CPUS:
		return *(const uint32_t *)((const char *)base + key->count_offset) == 0;
	case RPMAF__CFG_T_NAME:
	case RPMAF__CFG_T_HOST:
	case RPMAF__CFG_T_PATH:
		return *(const char *const *)field == NULL;
	default:
		return false;
	}
}

/* dump_escape -- whether the code point is written as an escape inside double quotes */
static bool
dump_escape(int32_t cp)
{
	return cp < 0x20 || cp == '"' || cp == '\\' || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

/* dump_string -- s double-quoted, escaping what YAML would not read back as itself */
static void
dump_string(FILE *out, const char *s)
{
	size_t left = strlen(s);

	fputc('"', out);
	while (left) {
		size_t n;
		int32_t cp = rpmaf__cfg_utf8_decode(s, left, &n);

		if (cp < 0)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else if (dump_escape(cp))
			fprintf(out, "\\u%04x", (unsigned)cp);
		else
			fwrite(s, 1, n, out);
		s += n;
		left -= n;
	}
	fputc('"', out);
}

/* dump_float -- the shortest decimal that reads back as v, in the "C" locale */
static void
dump_float(FILE *out, double v)
{
	locale_t loc = rpmaf__cfg_c_locale();
	locale_t old = loc ? uselocale(loc) : (locale_t)0;
	char buf[40];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (loc)
		uselocale(old);
	fputs(buf, out);
}

/* dump_names -- "[a, b]": the names of the bits set in bits */
static void
dump_names(FILE *out, const char *const *names, unsigned bits)
{
	bool first = true;

	fputc('[', out);
	for (unsigned i = 0; names[i]; i++) {
		if (!(bits & (1u << i)))
			continue;
		fprintf(out, "%s%s", first ? "" : ", ", names[i]);
		first = false;
	}
	fputc(']', out);
}

/* dump_enum -- names[v], or RPMAF_E_INVAL when v is none of them */
static int
dump_enum(FILE *out, const char *const *names, int v)
{
	for (int i = 0; names[i]; i++) {
		if (i == v) {
			fputs(names[i], out);
			return 0;
		}
	}
	return RPMAF_E_INVAL;
}

/* dump_cpus -- "[0, 1]" */
static void
dump_cpus(FILE *out, const uint32_t *cpus, uint32_t n)
{
	fputc('[', out);
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu32, i ? ", " : "", cpus[i]);
	fputc(']', out);
}

/* dump_uint -- an integer, or auto for an unresolved one */
static void
dump_uint(FILE *out, uint32_t v)
{
	if (v == RPMAF__CFG_AUTO)
		fputs("auto", out);
	else
		fprintf(out, "%" PRIu32, v);
}

/* dump_scalar -- the value of a key that fits on its line */
static int
dump_scalar(FILE *out, const struct rpmaf__cfg_key *key, const void *base)
{
	const void *field = FIELD(base, key);
	char size[32];

	switch (key->type) {
	case RPMAF__CFG_T_U32:
	case RPMAF__CFG_T_U32_AUTO:
		dump_uint(out, *(const uint32_t *)field);
		return 0;
	case RPMAF__CFG_T_SIZE:
		fputs(rpmaf__cfg_size_str(*(const uint64_t *)field, size, sizeof(size)), out);
		return 0;
	case RPMAF__CFG_T_BOOL:
		fputs(*(const bool *)field ? "true" : "false", out);
		return 0;
	case RPMAF__CFG_T_ENUM:
		return dump_enum(out, key->names, *(const int *)field);
	case RPMAF__CFG_T_FLAGS:
		dump_names(out, key->names, *(const unsigned *)field);
		return 0;
	case RPMAF__CFG_T_FLOAT:
		dump_float(out, *(const double *)field);
		return 0;
	case RPMAF__CFG_T_CPUS:
		dump_cpus(out, *(const uint32_t *const *)field,
			  *(const uint32_t *)((const char *)base + key->count_offset));
		return 0;
	default: /* NAME, HOST, PATH */
		dump_string(out, *(const char *const *)field);
		return 0;
	}
}

/* dump_list -- the entries of a list of mappings */
static int
dump_list(FILE *out, const struct rpmaf__cfg_key *key, const void *base, int indent)
{
	const char *array = *(const char *const *)FIELD(base, key);
	uint32_t n = *(const uint32_t *)((const char *)base + key->count_offset);
	int ret;

	fputc('\n', out);
	for (uint32_t i = 0; i < n; i++)
		if ((ret = dump_keys(out, key->keys, array + i * key->elem_size, indent + 2, true)))
			return ret;
	return 0;
}

/* dump_value -- what follows "key:" */
static int
dump_value(FILE *out, const struct rpmaf__cfg_key *key, const void *base, int indent)
{
	int ret;

	switch (key->type) {
	case RPMAF__CFG_T_SECTION:
		fputc('\n', out);
		return dump_keys(out, key->keys, FIELD(base, key), indent + 2, false);
	case RPMAF__CFG_T_LIST:
		return dump_list(out, key, base, indent);
	case RPMAF__CFG_T_BACKING:
		if (*(const int *)FIELD(base, key) == RPMAF_BACKING_ANONYMOUS) {
			fputs(" anonymous\n", out);
			return 0;
		}
		fputc('\n', out);
		return dump_keys(out, key->keys, base, indent + 2, false);
	default:
		fputc(' ', out);
		ret = dump_scalar(out, key, base);
		fputc('\n', out);
		return ret;
	}
}

/*
 * dump_keys -- the keys of one mapping at indent; dash: the mapping is a
 * list entry, whose first key follows "- "
 */
static int
dump_keys(FILE *out, const struct rpmaf__cfg_key *keys, const void *base, int indent, bool dash)
{
	int ret;

	for (const struct rpmaf__cfg_key *k = keys; k->name; k++) {
		if (dump_omitted(k, base))
			continue;
		if (dash)
			fprintf(out, "%*s- %s:", indent - 2, "", k->name);
		else
			fprintf(out, "%*s%s:", indent, "", k->name);
		dash = false;
		if ((ret = dump_value(out, k, base, indent)))
			return ret;
	}
	return 0;
}

/* see dump.h */
int
rpmaf__cfg_dump_write(const struct rpmaf_cfg *cfg, FILE *out)
{
	int ret;

	fputs("# the resolved configuration: every key that applies, defaults filled in\n", out);
	ret = dump_keys(out, rpmaf__cfg_schema.keys, cfg, 0, false);
	if (fflush(out) != 0 || ferror(out))
		return RPMAF_E_IO;
	return ret;
}
