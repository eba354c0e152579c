// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_target.c -- librpmem's target strings ("[user@]host[:port]"), its
 * per-thread errors and the errno each framework code stands for.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "errmsg.h"
#include "librpmem.h"
#include "rpmaf.h"
#include "target.h"

/* parses -- text parses into host and port */
static void
parses(const char *text, const char *host, unsigned port)
{
	struct rpmem__target t;

	if (rpmem__target_parse(text, &t))
		fail_msg("%s refused: %s", text, rpmem_errormsg());
	assert_string_equal(t.host, host);
	assert_int_equal(t.port, port);
}

/* refused -- text is refused with EINVAL and a message naming the problem */
static void
refused(const char *text)
{
	struct rpmem__target t;

	errno = 0;
	if (rpmem__target_parse(text, &t) != -1)
		fail_msg("%s accepted as %s:%u", text ? text : "(null)", t.host, t.port);
	assert_int_equal(errno, EINVAL);
	assert_true(strlen(rpmem_errormsg()) > 0);
}

/* test_good -- hosts, users, ports, IPv6 */
static void
test_good(void **state)
{
	(void)state;
	parses("127.0.0.1", "127.0.0.1", RPMEM__PORT_DEFAULT);
	parses("127.0.0.1:17", "127.0.0.1", 17);
	parses("user@host-a.example", "host-a.example", RPMEM__PORT_DEFAULT);
	parses("u@h:65535", "h", 65535);
	parses("h:1", "h", 1);
	parses("[::1]", "::1", RPMEM__PORT_DEFAULT);
	parses("root@[fe80::1]:7000", "fe80::1", 7000);
	parses("node_7", "node_7", RPMEM__PORT_DEFAULT);
}

/* test_bad -- what is not [user@]host[:port] */
static void
test_bad(void **state)
{
	char longhost[RPMEM__HOST_MAX + 2];

	(void)state;
	refused(NULL);
	refused("");
	refused("@host");
	refused("user@");
	refused("host:");
	refused("host:0");
	refused("host:65536");
	refused("host:99999");
	refused("host:123456");
	refused("host:12a");
	refused("host:port:x");
	refused("host/x");
	refused("a b");
	refused("[::1");
	refused("[]");
	refused("[::g]");
	refused("[::1]x");
	refused("u@v@host");
	memset(longhost, 'h', sizeof(longhost) - 1);
	longhost[sizeof(longhost) - 1] = '\0';
	refused(longhost);
	longhost[RPMEM__HOST_MAX] = '\0'; /* exactly the longest */
	parses(longhost, longhost, RPMEM__PORT_DEFAULT);
}

/* errmsg_thread -- another thread's failure leaves this thread's message alone */
static void *
errmsg_thread(void *arg)
{
	(void)arg;
	rpmem__fail(ENOENT, "the other thread's message");
	return (void *)(strcmp(rpmem_errormsg(), "the other thread's message") ? 1L : 0L);
}

/* test_errmsg -- errno and a per-thread message; -1 returned */
static void
test_errmsg(void **state)
{
	pthread_t th;
	void *ret;

	(void)state;
	errno = 0;
	assert_int_equal(rpmem__fail(EBUSY, "pool %s in use", "p.set"), -1);
	assert_int_equal(errno, EBUSY);
	assert_string_equal(rpmem_errormsg(), "pool p.set in use");
	assert_int_equal(pthread_create(&th, NULL, errmsg_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_null(ret);
	assert_string_equal(rpmem_errormsg(), "pool p.set in use");
}

/* test_errno_of -- every framework code has a positive errno */
static void
test_errno_of(void **state)
{
	(void)state;
	assert_int_equal(rpmem__errno_of(RPMAF_E_INVAL), EINVAL);
	assert_int_equal(rpmem__errno_of(RPMAF_E_NOMEM), ENOMEM);
	assert_int_equal(rpmem__errno_of(RPMAF_E_TIMEOUT), ETIMEDOUT);
	assert_int_equal(rpmem__errno_of(RPMAF_E_CONNLOST), ECONNRESET);
	assert_int_equal(rpmem__errno_of(RPMAF_E_NOENT), ECONNRESET);
	assert_int_equal(rpmem__errno_of(RPMAF_E_SHUTDOWN), ECONNABORTED);
	assert_int_equal(rpmem__errno_of(RPMAF_E_AUTH), EACCES);
	assert_int_equal(rpmem__errno_of(RPMAF_E_PROTO), EPROTO);
	assert_int_equal(rpmem__errno_of(RPMAF_E_REMOTE), EREMOTEIO);
	for (int code = RPMAF_E_SHUTDOWN; code <= RPMAF_E_INVAL; code++)
		assert_true(rpmem__errno_of(code) > 0);
	assert_int_equal(rpmem__errno_of(-1000), EIO);
}

/* test_check_version -- 1.0 to 1.3 accepted, anything else explained */
static void
test_check_version(void **state)
{
	(void)state;
	assert_null(rpmem_check_version(1, 0));
	assert_null(rpmem_check_version(RPMEM_MAJOR_VERSION, RPMEM_MINOR_VERSION));
	assert_non_null(rpmem_check_version(1, RPMEM_MINOR_VERSION + 1));
	assert_non_null(strstr(rpmem_check_version(2, 0), "major"));
	assert_non_null(rpmem_check_version(0, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),	  cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_errmsg),	  cmocka_unit_test(test_errno_of),
	    cmocka_unit_test(test_check_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
