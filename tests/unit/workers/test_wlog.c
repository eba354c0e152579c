// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_wlog.c -- the library's log (workers/wlog.c): the default line's form
 * (an ISO 8601 time, "rpmaf", the level), log.level, and the application's
 * function taking every line instead (rpmaf_log_set_callback()).
 */

#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wlog.h"

/* a log on a temporary file at level */
static void
log_on(struct rpmaf__wlog *l, enum rpmaf_log_level level)
{
	l->out = tmpfile();
	assert_non_null(l->out);
	l->own = 1;
	l->level = level;
}

/* contents -- what was written to l so far (static buffer) */
static const char *
contents(struct rpmaf__wlog *l)
{
	static char buf[4096];
	size_t n;

	rewind(l->out);
	n = fread(buf, 1, sizeof(buf) - 1, l->out);
	buf[n] = '\0';
	return buf;
}

/* default_form: "2026-11-27T10:59:42.123+00:00 rpmaf: notice: msg", one line each */
static void
test_default_form(void **state)
{
	struct rpmaf__wlog l;
	regex_t re;

	(void)state;
	log_on(&l, RPMAF_LOG_NOTICE);
	rpmaf__wlog(&l, RPMAF_LOG_NOTICE, "server: %d region%s", 1, "");
	rpmaf__wlog(&l, RPMAF_LOG_ERROR, "pool: %s", "gone");
	assert_int_equal(
	    regcomp(&re,
		    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}"
		    "[+-][0-9]{2}:[0-9]{2} rpmaf: notice: server: 1 region\n"
		    "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.+-]+ rpmaf: error: pool: gone\n$",
		    REG_EXTENDED),
	    0);
	assert_int_equal(regexec(&re, contents(&l), 0, NULL, 0), 0);
	regfree(&re);
	rpmaf__wlog_close(&l);
}

/* level: a line less severe than log.level is not written */
static void
test_level(void **state)
{
	struct rpmaf__wlog l;

	(void)state;
	log_on(&l, RPMAF_LOG_WARNING);
	rpmaf__wlog(&l, RPMAF_LOG_NOTICE, "not this");
	rpmaf__wlog(&l, RPMAF_LOG_DEBUG, "nor this");
	assert_string_equal(contents(&l), "");
	rpmaf__wlog_close(&l);
}

/* what the application's function got */
struct got {
	int n;
	enum rpmaf_log_level level;
	char msg[128];
};

static void
take(enum rpmaf_log_level level, const char *msg, void *arg)
{
	struct got *g = arg;

	g->n++;
	g->level = level;
	snprintf(g->msg, sizeof(g->msg), "%s", msg);
}

/* callback: every line within the level goes to it, none to the file; NULL restores the file */
static void
test_callback(void **state)
{
	struct got g = {0};
	struct rpmaf__wlog l;

	(void)state;
	log_on(&l, RPMAF_LOG_INFO);
	assert_int_equal(rpmaf_log_set_callback(take, &g), 0);
	rpmaf__wlog(&l, RPMAF_LOG_WARNING, "server: client #%d lost", 3);
	rpmaf__wlog(&l, RPMAF_LOG_DEBUG, "filtered");
	assert_int_equal(g.n, 1);
	assert_int_equal(g.level, RPMAF_LOG_WARNING);
	assert_string_equal(g.msg, "server: client #3 lost");
	assert_string_equal(contents(&l), "");
	assert_int_equal(rpmaf_log_set_callback(NULL, NULL), 0);
	rpmaf__wlog(&l, RPMAF_LOG_INFO, "back");
	assert_int_equal(g.n, 1);
	assert_non_null(strstr(contents(&l), " rpmaf: info: back\n"));
	rpmaf__wlog_close(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_form),
	    cmocka_unit_test(test_level),
	    cmocka_unit_test(test_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
