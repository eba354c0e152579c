/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * tsan.h -- happens-before annotations for the RCU users of the framework
 * (the client's region table, the server's): ThreadSanitizer cannot see the
 * ordering liburcu provides, since its grace periods and publication
 * barriers live in an uninstrumented library. In a TSan build RPMAF_TSAN
 * is defined and tsan_acquire()/tsan_release() state that ordering;
 * elsewhere they cost nothing.
 */

#ifndef RPMAF_REGTAB_TSAN_H
#define RPMAF_REGTAB_TSAN_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RPMAF_TSAN 1
#endif
#endif
#if !defined(RPMAF_TSAN) && defined(__SANITIZE_THREAD__)
#define RPMAF_TSAN 1
#endif

#ifdef RPMAF_TSAN
#include <sanitizer/tsan_interface.h>
#define tsan_acquire(p) __tsan_acquire((void *)(p))
#define tsan_release(p) __tsan_release((void *)(p))
#else
#define tsan_acquire(p) ((void)(p))
#define tsan_release(p) ((void)(p))
#endif

#endif /* RPMAF_REGTAB_TSAN_H */
