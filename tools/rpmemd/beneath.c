/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * beneath.c -- files reached only beneath one directory, with openat2(2)
 * or an O_NOFOLLOW walk (see beneath.h)
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "beneath.h"
#include "errmsg.h"

#define PARENT_FLAGS (O_PATH | O_DIRECTORY)
#define STEP_FLAGS   (O_PATH | O_NOFOLLOW | O_CLOEXEC) /* an element on the way */

/* the kernel has no openat2 (found once), or the tests asked for the walk */
static atomic_bool No_openat2;
static atomic_bool Walk_only;

/* copy_of -- a malloc()ed copy of len bytes at s and a NUL (not strdup(): tests wrap malloc) */
static char *
copy_of(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

/* see beneath.h */
int
beneath_dir_open(const char *path, struct beneath_dir *dir, char *err, size_t err_len)
{
	size_t len = path ? strlen(path) : 0;
	char *real;
	int ret;

	dir->fd = -1;
	dir->path = dir->real = NULL;
	if (len == 0)
		return errmsg_fail(err, err_len, -EINVAL, "beneath_dir_open: invalid argument");
	while (len > 1 && path[len - 1] == '/')
		len--;
	dir->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir->fd < 0)
		return errmsg_fail(err, err_len, -errno, "%s: cannot open the directory: %s", path,
				   strerror(errno));
	real = realpath(path, NULL);
	if (real == NULL) {
		ret = errmsg_fail(err, err_len, -errno, "%s: cannot resolve: %s", path,
				  strerror(errno));
		goto err_close;
	}
	dir->real = copy_of(real, strlen(real));
	free(real);
	dir->path = copy_of(path, len);
	if (dir->real == NULL || dir->path == NULL) {
		ret = errmsg_fail(err, err_len, -ENOMEM, "%s: out of memory", path);
		goto err_close;
	}
	return 0;

err_close:
	beneath_dir_close(dir);
	return ret;
}

/* see beneath.h */
void
beneath_dir_close(struct beneath_dir *dir)
{
	if (dir->fd >= 0)
		close(dir->fd);
	dir->fd = -1;
	free(dir->path);
	free(dir->real);
	dir->path = dir->real = NULL;
}

/* after_root -- path with root and the '/' after it taken away; NULL when root is not its start */
static const char *
after_root(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return path + 1;
	if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

/* rel_add -- element el (n bytes) applied to the relative path of *len bytes in out */
static int
rel_add(char *out, size_t out_len, size_t *len, const char *el, size_t n)
{
	char *slash;

	if (n == 0 || (n == 1 && el[0] == '.'))
		return 0;
	if (n == 2 && el[0] == '.' && el[1] == '.') {
		if (*len == 0)
			return -EXDEV;
		out[*len] = '\0';
		slash = strrchr(out, '/');
		*len = slash ? (size_t)(slash - out) : 0;
		out[*len] = '\0';
		return 0;
	}
	if (*len + (*len > 0) + n >= out_len)
		return -ENAMETOOLONG;
	if (*len > 0)
		out[(*len)++] = '/';
	memcpy(out + *len, el, n);
	*len += n;
	out[*len] = '\0';
	return 0;
}

/* see beneath.h */
int
beneath_rel(const struct beneath_dir *dir, const char *path, char *out, size_t out_len)
{
	const char *rest = path;
	size_t len = 0;
	int ret;

	if (dir == NULL || path == NULL || out == NULL || out_len == 0)
		return -EINVAL;
	out[0] = '\0';
	if (path[0] == '/') {
		rest = after_root(path, dir->path);
		if (rest == NULL)
			rest = after_root(path, dir->real);
		if (rest == NULL)
			return -EXDEV;
	}
	while (*rest) {
		size_t n = strcspn(rest, "/");

		ret = rel_add(out, out_len, &len, rest, n);
		if (ret)
			return ret;
		rest += n + (rest[n] == '/');
	}
	return 0;
}

/*
 * path_check -- an O_PATH descriptor is not one of a symbolic link (O_PATH
 * with O_NOFOLLOW gives those, and O_DIRECTORY would say ENOTDIR instead
 * of ELOOP: it is checked here), and is a directory when dir; else closed
 */
static int
path_check(int fd, bool dir)
{
	struct stat st;
	int ret = fd;

	if (fstat(fd, &st))
		ret = -errno;
	else if (S_ISLNK(st.st_mode))
		ret = -ELOOP;
	else if (dir && !S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
	if (ret < 0)
		close(fd);
	return ret;
}

/* open_at -- openat(2) of one element, a symbolic link refused; the descriptor or -errno */
static int
open_at(int at, const char *el, int flags, bool dir)
{
	int fd = openat(at, el, flags);

	if (fd < 0)
		return -errno;
	return flags & O_PATH ? path_check(fd, dir) : fd;
}

/*
 * walk -- rel opened element by element from the directory, O_NOFOLLOW at
 * every step; the last one with flags, a directory when dir
 */
static int
walk(const struct beneath_dir *dir, const char *rel, int flags, bool is_dir)
{
	char el[NAME_MAX + 1];
	int at = dir->fd, fd;

	for (;;) {
		size_t n = strcspn(rel, "/");
		int last = rel[n] == '\0';

		if (n > NAME_MAX)
			fd = -ENAMETOOLONG;
		else if (n == 2 && rel[0] == '.' && rel[1] == '.')
			fd = -EXDEV; /* beneath_rel() leaves none */
		else {
			memcpy(el, rel, n);
			el[n] = '\0';
			fd = open_at(at, n ? el : ".", last ? flags : STEP_FLAGS,
				     last ? is_dir : true);
		}
		if (at != dir->fd)
			close(at);
		if (fd < 0 || last)
			return fd;
		at = fd;
		rel += n + 1;
	}
}

/* see beneath.h */
int
beneath_open(const struct beneath_dir *dir, const char *rel, int flags)
{
	bool is_dir = (flags & O_PATH) && (flags & O_DIRECTORY);
	struct open_how how = {0};
	long fd;

	if (dir == NULL || rel == NULL || (flags & O_CREAT))
		return -EINVAL;
	flags |= O_CLOEXEC | O_NOFOLLOW;
	if (is_dir)
		flags &= ~O_DIRECTORY; /* path_check() says ELOOP for a link, ENOTDIR for a file */
	if (atomic_load(&Walk_only) || atomic_load(&No_openat2))
		return walk(dir, rel, flags, is_dir);
	how.flags = (unsigned)flags;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	fd = syscall(SYS_openat2, dir->fd, rel[0] ? rel : ".", &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		atomic_store(&No_openat2, true);
		return walk(dir, rel, flags, is_dir);
	}
	if (fd < 0)
		return -errno;
	return flags & O_PATH ? path_check((int)fd, is_dir) : (int)fd;
}

/* see beneath.h */
int
beneath_parent(const struct beneath_dir *dir, const char *rel, const char **last)
{
	char parent[PATH_MAX];
	const char *slash;
	size_t n;

	if (dir == NULL || rel == NULL || last == NULL || rel[0] == '\0')
		return -EINVAL;
	slash = strrchr(rel, '/');
	n = slash ? (size_t)(slash - rel) : 0;
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, rel, n);
	parent[n] = '\0';
	*last = slash ? slash + 1 : rel;
	return beneath_open(dir, parent, PARENT_FLAGS);
}

/* see beneath.h */
void
beneath__walk_only(bool on)
{
	atomic_store(&Walk_only, on);
}
