/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_beneath.c -- files reached only beneath one directory: paths made
 * relative (absolute ones by the directory's configured and real paths,
 * "." and "..", what leaves it), then opened with openat2 and again with
 * the O_NOFOLLOW walk: files and directories beneath, a symbolic link as
 * the last element or on the way (to a file outside or inside), a file
 * taken for a directory, a missing file, the parent of a path.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "beneath.h"

static char Top[PATH_MAX / 4];	/* the test's temporary directory */
static char Root[PATH_MAX / 2]; /* Top/root: the directory everything is beneath */
static char Link[PATH_MAX / 2]; /* Top/link: a symbolic link to Root */
static struct beneath_dir Dir;	/* Root, opened through Link */

/* pathf -- printf into a PATH_MAX buffer */
__attribute__((format(printf, 2, 3))) static char *
pathf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	assert_true(vsnprintf(buf, PATH_MAX, fmt, ap) < PATH_MAX);
	va_end(ap);
	return buf;
}

/* touch -- an empty file at path */
static void
touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	close(fd);
}

/* rel_is -- beneath_rel() of path gives want */
static void
rel_is(const char *path, const char *want)
{
	char out[PATH_MAX];
	int ret = beneath_rel(&Dir, path, out, sizeof(out));

	if (ret || strcmp(out, want) != 0)
		fail_msg("'%s': %d '%s', want '%s'", path, ret, ret ? "" : out, want);
}

/* rel_fails -- beneath_rel() of path fails with code */
static void
rel_fails(const char *path, int code)
{
	char out[PATH_MAX];
	int ret = beneath_rel(&Dir, path, out, sizeof(out));

	if (ret != code)
		fail_msg("'%s': %d '%s', want %d", path, ret, ret ? "" : out, code);
}

/* test_rel -- relative paths, absolute ones beneath either path of the directory, escapes */
static void
test_rel(void **state)
{
	char p[PATH_MAX], small[4];

	(void)state;
	assert_string_equal(Dir.path, Link);
	rel_is("a", "a");
	rel_is("a/b", "a/b");
	rel_is("./a//b/", "a/b");
	rel_is("a/../b", "b");
	rel_is("a/b/../../c", "c");
	rel_is("", "");
	rel_is(".", "");
	rel_is(pathf(p, "%s/x/y", Root), "x/y");
	rel_is(pathf(p, "%s/x/y", Link), "x/y");
	rel_is(pathf(p, "%s/", Root), "");
	rel_is(Root, "");
	rel_is(pathf(p, "%s/sub/../x", Root), "x");
	rel_fails("..", -EXDEV);
	rel_fails("../root/a", -EXDEV);
	rel_fails("a/../../b", -EXDEV);
	rel_fails(pathf(p, "%s/../root/a", Root), -EXDEV);
	rel_fails("/etc/passwd", -EXDEV);
	rel_fails(pathf(p, "%sx/a", Root), -EXDEV); /* a sibling whose name starts alike */
	rel_fails(pathf(p, "%s/a", Top), -EXDEV);
	rel_fails("/", -EXDEV);
	assert_int_equal(beneath_rel(&Dir, "abcd", small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(beneath_rel(&Dir, "abc", small, sizeof(small)), 0);
	assert_int_equal(beneath_rel(NULL, "a", p, sizeof(p)), -EINVAL);
	assert_int_equal(beneath_rel(&Dir, NULL, p, sizeof(p)), -EINVAL);
}

/* opens -- beneath_open() of rel with flags gives a descriptor; closed */
static void
opens(const char *rel, int flags)
{
	int fd = beneath_open(&Dir, rel, flags);

	if (fd < 0)
		fail_msg("'%s': %s", rel, strerror(-fd));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

/* refuses -- beneath_open() of rel with flags fails with code */
static void
refuses(const char *rel, int flags, int code)
{
	int fd = beneath_open(&Dir, rel, flags);

	if (fd >= 0)
		close(fd);
	if (fd != code)
		fail_msg("'%s': %d, want %d (%s)", rel, fd, code, strerror(-code));
}

/* open_cases -- what beneath_open() and beneath_parent() open and refuse */
static void
open_cases(void)
{
	const char *last = NULL;
	struct stat st, want;
	char p[PATH_MAX];
	int fd;

	opens("f", O_RDONLY);
	opens("sub/g", O_RDWR);
	opens("sub", O_PATH | O_DIRECTORY);
	opens("", O_PATH | O_DIRECTORY);
	refuses("lf", O_RDONLY, -ELOOP);	       /* a link to a file outside */
	refuses("lin", O_RDONLY, -ELOOP);	       /* a link to a file inside */
	refuses("ldir/h", O_RDONLY, -ELOOP);	       /* through a link to a directory outside */
	refuses("lsub/g", O_RDONLY, -ELOOP);	       /* through a link to a directory inside */
	refuses("ldir", O_PATH | O_DIRECTORY, -ELOOP); /* the link itself, as a directory */
	refuses("lf", O_PATH, -ELOOP);
	refuses("f/x", O_RDONLY, -ENOTDIR);
	refuses("f", O_PATH | O_DIRECTORY, -ENOTDIR);
	refuses("none", O_RDONLY, -ENOENT);
	refuses("none/x", O_RDONLY, -ENOENT);
	refuses("n", O_RDWR | O_CREAT, -EINVAL);
	assert_int_equal(beneath_open(NULL, "f", O_RDONLY), -EINVAL);

	fd = beneath_parent(&Dir, "sub/g", &last);
	assert_true(fd >= 0);
	assert_string_equal(last, "g");
	assert_int_equal(fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(stat(pathf(p, "%s/sub/g", Root), &want), 0);
	assert_true(st.st_ino == want.st_ino && st.st_dev == want.st_dev);
	close(fd);
	fd = beneath_parent(&Dir, "f", &last);
	assert_true(fd >= 0);
	assert_string_equal(last, "f");
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(stat(Root, &want), 0);
	assert_true(st.st_ino == want.st_ino);
	close(fd);
	assert_int_equal(beneath_parent(&Dir, "ldir/h", &last), -ELOOP);
	assert_int_equal(beneath_parent(&Dir, "f/x", &last), -ENOTDIR);
	assert_int_equal(beneath_parent(&Dir, "", &last), -EINVAL);
}

/* test_open_openat2 -- open_cases() with openat2 (or the walk, where the kernel has none) */
static void
test_open_openat2(void **state)
{
	(void)state;
	beneath__walk_only(false);
	open_cases();
}

/* test_open_walk -- open_cases() with the O_NOFOLLOW walk */
static void
test_open_walk(void **state)
{
	(void)state;
	beneath__walk_only(true);
	open_cases();
	beneath__walk_only(false);
}

/* test_dir_open -- a missing directory, a file, an empty path: refused; closing twice is fine */
static void
test_dir_open(void **state)
{
	struct beneath_dir d;
	char p[PATH_MAX], err[BENEATH_ERR_MAX];

	(void)state;
	assert_int_equal(beneath_dir_open(pathf(p, "%s/none", Top), &d, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "none"));
	assert_int_equal(d.fd, -1);
	assert_int_equal(beneath_dir_open(pathf(p, "%s/f", Root), &d, err, sizeof(err)), -ENOTDIR);
	assert_int_equal(beneath_dir_open("", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(beneath_dir_open(pathf(p, "%s//", Root), &d, err, sizeof(err)), 0);
	assert_string_equal(d.path, Root);
	beneath_dir_close(&d);
	beneath_dir_close(&d);
	assert_int_equal(beneath_dir_open("/", &d, err, sizeof(err)), 0);
	assert_string_equal(d.path, "/");
	beneath_dir_close(&d);
}

/* setup -- Top with root/ (f, sub/g, links) beside outside/ (h), Dir opened through link */
static int
setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	snprintf(Top, sizeof(Top), "%s/rpmemd-beneath-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(Top))
		return -1;
	snprintf(Root, sizeof(Root), "%s/root", Top);
	snprintf(Link, sizeof(Link), "%s/link", Top);
	if (mkdir(Root, 0700) || mkdir(pathf(p, "%s/sub", Root), 0700) ||
	    mkdir(pathf(p, "%s/outside", Top), 0700) || symlink(Root, Link))
		return -1;
	touch(pathf(p, "%s/f", Root));
	touch(pathf(p, "%s/sub/g", Root));
	touch(pathf(p, "%s/outside/h", Top));
	if (symlink(pathf(q, "%s/outside/h", Top), pathf(p, "%s/lf", Root)) ||
	    symlink("f", pathf(p, "%s/lin", Root)) ||
	    symlink(pathf(q, "%s/outside", Top), pathf(p, "%s/ldir", Root)) ||
	    symlink("sub", pathf(p, "%s/lsub", Root)))
		return -1;
	return beneath_dir_open(Link, &Dir, NULL, 0);
}

/* teardown -- everything removed */
static int
teardown(void **state)
{
	static const char *const names[] = {
	    "root/lf",	"root/lin", "root/ldir", "root/lsub", "root/f", "root/sub/g",
	    "root/sub", "root",	    "outside/h", "outside",   "link",
	};
	char p[PATH_MAX];

	(void)state;
	beneath_dir_close(&Dir);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)remove(pathf(p, "%s/%s", Top, names[i]));
	return rmdir(Top);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rel),
	    cmocka_unit_test(test_open_openat2),
	    cmocka_unit_test(test_open_walk),
	    cmocka_unit_test(test_dir_open),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
