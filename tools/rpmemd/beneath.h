/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * beneath.h -- files reached only beneath one directory: rpmemd's
 * rpmem.poolset_dir. Every pool set file and every part is opened, created
 * and unlinked through a descriptor of that directory, never through a
 * path string resolved again later, so nothing a set file or a client
 * names can make the daemon touch a file elsewhere.
 *
 * RESOLUTION
 * A path is first made relative to the directory, without the file
 * system's help (beneath_rel()): an absolute path must start with the
 * directory's own path, as configured or as realpath(3) gives it; "." and
 * empty elements go; ".." takes the element before it away and may not
 * rise above the directory. The result is then opened with openat2(2)
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (Linux 5.6 and later), or, where the
 * kernel has no openat2 (ENOSYS), element by element with O_NOFOLLOW from
 * the directory's descriptor. Either way no symbolic link is followed, not
 * even one that stays inside: a symbolic link anywhere on the way, the
 * last element included, is refused with -ELOOP.
 *
 * A file is created or unlinked by its last element through a descriptor
 * of the directory that holds it (beneath_parent()): between the lookup
 * and the unlinkat(2) no rename outside can make the call reach a file
 * elsewhere. Mount points beneath the directory are crossed: a file system
 * mounted there is the administrator's choice.
 *
 * ASSUMPTIONS
 * A struct beneath_dir is read-only once beneath_dir_open() filled it: any
 * number of threads may use it at once, and the one that calls
 * beneath_dir_close() must be the last. The other functions keep no state
 * but whether openat2 is missing, found once and kept in an atomic.
 */

#ifndef RPMEMD_BENEATH_H
#define RPMEMD_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BENEATH_ERR_MAX 8192 /* holds any message of beneath_dir_open() */

/* a directory everything is resolved beneath */
struct beneath_dir {
	int fd;	    /* O_PATH | O_DIRECTORY, close-on-exec; -1 when not open */
	char *path; /* as configured, without '/' at its end, for absolute parts */
	char *real; /* its realpath(3), the same for the same purpose */
};

/*
 * beneath_dir_open -- the directory at path opened into *dir, with its two
 * paths; *dir is left with fd -1 on failure
 *
 * RETURN VALUE
 * 0; or a negative errno of open(2) or realpath(3) (-ENOTDIR when path is
 * not a directory, -ENOMEM), with the message in err (err_len bytes at most).
 */
int beneath_dir_open(const char *path, struct beneath_dir *dir, char *err, size_t err_len);

/*
 * beneath_dir_close -- what beneath_dir_open() holds released (a directory
 * not open is fine); dir->fd becomes -1
 */
void beneath_dir_close(struct beneath_dir *dir);

/*
 * beneath_rel -- path (absolute, or relative to the directory) as a path
 * relative to dir without ".", ".." or empty elements, into out (out_len
 * bytes, NUL included); "" is the directory itself
 *
 * RETURN VALUE
 * 0; -EXDEV when path leaves the directory (an absolute path elsewhere, or
 * too many ".."), -ENAMETOOLONG when the result does not fit in out,
 * -EINVAL when an argument is NULL.
 */
int beneath_rel(const struct beneath_dir *dir, const char *path, char *out, size_t out_len);

/*
 * beneath_open -- the file at rel, a path beneath_rel() gave, opened with
 * flags (O_CLOEXEC and O_NOFOLLOW are added; O_CREAT is refused: create
 * through beneath_parent()) and no symbolic link followed
 *
 * RETURN VALUE
 * the descriptor; or a negative errno: -ELOOP (a symbolic link on the
 * way), -EXDEV (rel would leave the directory), -ENOTDIR, -ENOENT and the
 * like from the lookup, -EINVAL (an argument NULL, or O_CREAT).
 */
int beneath_open(const struct beneath_dir *dir, const char *rel, int flags);

/*
 * beneath_parent -- the directory that holds rel, opened as beneath_open()
 * opens (O_PATH | O_DIRECTORY), for openat(2), fstatat(2) and unlinkat(2)
 * on *last, rel's last element (a pointer into rel)
 *
 * RETURN VALUE
 * the descriptor; or a negative errno as beneath_open(), and -EINVAL when
 * rel is the directory itself ("").
 */
int beneath_parent(const struct beneath_dir *dir, const char *rel, const char **last);

/*
 * beneath__walk_only -- resolve by the element-by-element walk even where
 * openat2 exists (true), or use openat2 where it exists (false, the
 * default): for the tests of both ways
 */
void beneath__walk_only(bool on);

#endif /* RPMEMD_BENEATH_H */
