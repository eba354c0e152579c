/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_abi.c -- <librpmem.h> against the ABI of PMDK's librpmem 1.11: the
 * layout of struct rpmem_pool_attr (104 bytes, no padding, each field at its
 * offset and of its type), the value and type of every constant, and the
 * exact type of every function. Nothing is linked: the functions are only
 * looked at through __typeof__, so the test needs no library.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <librpmem.h>

/* SAME_TYPE -- whether expression or type a has exactly the type b */
#define SAME_TYPE(a, b) __builtin_types_compatible_p(__typeof__(a), b)

/* every function of librpmem 1.11 with the type PMDK's header gives it */
_Static_assert(SAME_TYPE(rpmem_create, RPMEMpool *(const char *, const char *, void *, size_t,
						   unsigned *, const struct rpmem_pool_attr *)),
	       "rpmem_create");
_Static_assert(SAME_TYPE(rpmem_open, RPMEMpool *(const char *, const char *, void *, size_t,
						 unsigned *, struct rpmem_pool_attr *)),
	       "rpmem_open");
_Static_assert(SAME_TYPE(rpmem_set_attr, int(RPMEMpool *, const struct rpmem_pool_attr *)),
	       "rpmem_set_attr");
_Static_assert(SAME_TYPE(rpmem_close, int(RPMEMpool *)), "rpmem_close");
_Static_assert(SAME_TYPE(rpmem_remove, int(const char *, const char *, int)), "rpmem_remove");
_Static_assert(SAME_TYPE(rpmem_persist, int(RPMEMpool *, size_t, size_t, unsigned, unsigned)),
	       "rpmem_persist");
_Static_assert(SAME_TYPE(rpmem_deep_persist, int(RPMEMpool *, size_t, size_t, unsigned)),
	       "rpmem_deep_persist");
_Static_assert(SAME_TYPE(rpmem_flush, int(RPMEMpool *, size_t, size_t, unsigned, unsigned)),
	       "rpmem_flush");
_Static_assert(SAME_TYPE(rpmem_drain, int(RPMEMpool *, unsigned, unsigned)), "rpmem_drain");
_Static_assert(SAME_TYPE(rpmem_read, int(RPMEMpool *, void *, size_t, size_t, unsigned)),
	       "rpmem_read");
_Static_assert(SAME_TYPE(rpmem_check_version, const char *(unsigned, unsigned)),
	       "rpmem_check_version");
_Static_assert(SAME_TYPE(rpmem_errormsg, const char *(void)), "rpmem_errormsg");

/* RPMEMpool names the opaque struct rpmem_pool */
_Static_assert(__builtin_types_compatible_p(RPMEMpool, struct rpmem_pool), "RPMEMpool");

/* struct rpmem_pool_attr: 104 bytes, no padding, PMDK's offsets */
static void
test_attr_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct rpmem_pool_attr), 104);
	assert_int_equal(offsetof(struct rpmem_pool_attr, signature), 0);
	assert_int_equal(offsetof(struct rpmem_pool_attr, major), 8);
	assert_int_equal(offsetof(struct rpmem_pool_attr, compat_features), 12);
	assert_int_equal(offsetof(struct rpmem_pool_attr, incompat_features), 16);
	assert_int_equal(offsetof(struct rpmem_pool_attr, ro_compat_features), 20);
	assert_int_equal(offsetof(struct rpmem_pool_attr, poolset_uuid), 24);
	assert_int_equal(offsetof(struct rpmem_pool_attr, uuid), 40);
	assert_int_equal(offsetof(struct rpmem_pool_attr, next_uuid), 56);
	assert_int_equal(offsetof(struct rpmem_pool_attr, prev_uuid), 72);
	assert_int_equal(offsetof(struct rpmem_pool_attr, user_flags), 88);
}

/* each field of struct rpmem_pool_attr: its type and its size */
static void
test_attr_fields(void **state)
{
	(void)state;
	struct rpmem_pool_attr a;

	assert_true(SAME_TYPE(a.signature, char[8]));
	assert_true(SAME_TYPE(a.major, uint32_t));
	assert_true(SAME_TYPE(a.compat_features, uint32_t));
	assert_true(SAME_TYPE(a.incompat_features, uint32_t));
	assert_true(SAME_TYPE(a.ro_compat_features, uint32_t));
	assert_true(SAME_TYPE(a.poolset_uuid, unsigned char[16]));
	assert_true(SAME_TYPE(a.uuid, unsigned char[16]));
	assert_true(SAME_TYPE(a.next_uuid, unsigned char[16]));
	assert_true(SAME_TYPE(a.prev_uuid, unsigned char[16]));
	assert_true(SAME_TYPE(a.user_flags, unsigned char[16]));

	/* the last field ends the struct: no tail padding */
	assert_int_equal(offsetof(struct rpmem_pool_attr, user_flags) + sizeof(a.user_flags),
			 sizeof(a));
}

/* the version macros: API 1.3, as librpmem 1.11 */
static void
test_version(void **state)
{
	(void)state;
	assert_int_equal(RPMEM_MAJOR_VERSION, 1);
	assert_int_equal(RPMEM_MINOR_VERSION, 3);
}

/* the sizes of the attributes' fields */
static void
test_attr_lengths(void **state)
{
	(void)state;
	assert_int_equal(RPMEM_POOL_HDR_SIG_LEN, 8);
	assert_int_equal(RPMEM_POOL_HDR_UUID_LEN, 16);
	assert_int_equal(RPMEM_POOL_USER_FLAGS_LEN, 16);
}

/* the flags: values and types (unsigned for persist and flush, int for remove) */
static void
test_flags(void **state)
{
	(void)state;
	assert_int_equal(RPMEM_PERSIST_RELAXED, 1);
	assert_true(SAME_TYPE(RPMEM_PERSIST_RELAXED, unsigned));
	assert_int_equal(RPMEM_FLUSH_RELAXED, 1);
	assert_true(SAME_TYPE(RPMEM_FLUSH_RELAXED, unsigned));
	assert_int_equal(RPMEM_REMOVE_FORCE, 0x1);
	assert_true(SAME_TYPE(RPMEM_REMOVE_FORCE, int));
	assert_int_equal(RPMEM_REMOVE_POOL_SET, 0x2);
	assert_true(SAME_TYPE(RPMEM_REMOVE_POOL_SET, int));
}

/* the minimum sizes: 8 KiB for a pool, 2 MiB for a part, both size_t */
static void
test_min_sizes(void **state)
{
	(void)state;
	assert_int_equal(RPMEM_MIN_POOL, 8192);
	assert_true(SAME_TYPE(RPMEM_MIN_POOL, size_t));
	assert_int_equal(RPMEM_MIN_PART, 2 * 1024 * 1024);
	assert_true(SAME_TYPE(RPMEM_MIN_PART, size_t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attr_layout), cmocka_unit_test(test_attr_fields),
	    cmocka_unit_test(test_version),	cmocka_unit_test(test_attr_lengths),
	    cmocka_unit_test(test_flags),	cmocka_unit_test(test_min_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
