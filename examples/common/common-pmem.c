/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-pmem.c -- a file mapped with libpmem2 for the examples that keep
 * data in persistent memory.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common-pmem.h"

/* the temporary file to unlink when the program ends, empty if none */
static char Tmp_path[4096];

/*
 * unlink_tmp -- remove the temporary file at exit, also when the program
 * ends on an error.
 */
static void
unlink_tmp(void)
{
	if (Tmp_path[0]) {
		(void)unlink(Tmp_path);
		Tmp_path[0] = '\0';
	}
}

/*
 * pmem2_die -- end the program after a failed libpmem2 call.
 */
static void __attribute__((noreturn)) pmem2_die(const char *what, int ret)
{
	common_die("%s failed: %s (%d)", what, pmem2_errormsg(), ret);
}

/*
 * common_pmem_map -- map size bytes of a file with libpmem2: the file at
 * path (created or extended as needed), or a temporary file in /tmp when
 * path is NULL; size is rounded up to whole pages. The mapping accepts any
 * store granularity, so that an ordinary file system works too; pm->persist
 * makes a range persistent. Every example starts from an empty file: the
 * mapping is cleared, and the zeros made persistent.
 */
void
common_pmem_map(struct common_pmem *pm, const char *path, size_t size)
{
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	struct stat st;
	int ret;

	long page = sysconf(_SC_PAGESIZE);

	/* a mapping covers whole pages */
	if (page <= 0)
		page = 4096;
	size = (size + (size_t)page - 1) / (size_t)page * (size_t)page;

	memset(pm, 0, sizeof(*pm));
	if (path == NULL) {
		snprintf(pm->path, sizeof(pm->path), "/tmp/rpma-example-XXXXXX");
		pm->fd = mkstemp(pm->path);
		if (pm->fd < 0)
			common_die("mkstemp(%s) failed: %s", pm->path, strerror(errno));
		pm->is_tmp = true;
		memcpy(Tmp_path, pm->path, sizeof(Tmp_path));
		if (atexit(unlink_tmp))
			common_die("atexit() failed");
	} else {
		snprintf(pm->path, sizeof(pm->path), "%s", path);
		pm->fd = open(path, O_RDWR | O_CREAT, 0644);
		if (pm->fd < 0)
			common_die("cannot open %s: %s", path, strerror(errno));
	}

	if (fstat(pm->fd, &st))
		common_die("fstat(%s) failed: %s", pm->path, strerror(errno));
	if ((size_t)st.st_size < size && ftruncate(pm->fd, (off_t)size))
		common_die("cannot extend %s to %zu bytes: %s", pm->path, size, strerror(errno));

	if ((ret = pmem2_config_new(&cfg)))
		pmem2_die("pmem2_config_new()", ret);
	if ((ret = pmem2_source_from_fd(&src, pm->fd)))
		pmem2_die("pmem2_source_from_fd()", ret);
	if ((ret = pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE)))
		pmem2_die("pmem2_config_set_required_store_granularity()", ret);
	if ((ret = pmem2_config_set_length(cfg, size)))
		pmem2_die("pmem2_config_set_length()", ret);
	if ((ret = pmem2_map_new(&pm->map, cfg, src)))
		pmem2_die("pmem2_map_new()", ret);
	if ((ret = pmem2_source_delete(&src)))
		pmem2_die("pmem2_source_delete()", ret);
	if ((ret = pmem2_config_delete(&cfg)))
		pmem2_die("pmem2_config_delete()", ret);

	pm->addr = pmem2_map_get_address(pm->map);
	pm->size = size;
	pm->persist = pmem2_get_persist_fn(pm->map);
	memset(pm->addr, 0, size);
	pm->persist(pm->addr, size);
}

/*
 * common_pmem_unmap -- unmap the file, close it and remove it when it was
 * a temporary one.
 */
void
common_pmem_unmap(struct common_pmem *pm)
{
	int ret = pmem2_map_delete(&pm->map);

	if (ret)
		pmem2_die("pmem2_map_delete()", ret);
	if (close(pm->fd))
		common_die("close(%s) failed: %s", pm->path, strerror(errno));
	if (pm->is_tmp)
		unlink_tmp();
}
