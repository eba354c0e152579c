/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_vfile.c -- libFuzzer harness of what rpma-load's --verify-file reads
 * from files: the journal (tools/rpma-load/journal.c) and the region file
 * it checks against it or scans alone (tools/rpma-load/vfile.c).
 *
 * An input is a little-endian u32 J, then J bytes of journal, then the
 * bytes of the region file; J = 0xffffffff: no journal (the scan), J larger
 * than what follows: all of it is the journal and the region file is empty.
 * Both are written to files of a scratch directory and read back by the
 * real readers. Properties:
 * - a journal accepted by journal_read() describes slots that fit its
 *   region (a slot size that is a multiple of REC_ALIGN and at least
 *   REC_HDR, nslots x slot_size within the region size, entries in
 *   increasing slot order, each naming a slot and a length within the
 *   layout); a
 *   rejected one leaves no entry and says why;
 * - vfile_check() returns 0 or 1 and its summary agrees with it: 0 exactly
 *   when some record is good and none is bad;
 * - nothing is read out of bounds, nothing leaks (AddressSanitizer), no
 *   allocation beyond libFuzzer's limit whatever size the journal claims.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_assert.h"
#include "journal.h"
#include "vfile.h"

#define NO_JOURNAL 0xffffffffu

static char Dir[] = "/dev/shm/fuzz_vfile.XXXXXX";
static char Journal_path[64], Region_path[64];
static FILE *Null; /* the readers' complaints go here */

/* cleanup -- the scratch directory goes with the process */
static void
cleanup(void)
{
	unlink(Journal_path);
	unlink(Region_path);
	rmdir(Dir);
}

/* LLVMFuzzerInitialize -- the scratch directory of the two files */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_assert(mkdtemp(Dir) != NULL);
	snprintf(Journal_path, sizeof(Journal_path), "%s/journal", Dir);
	snprintf(Region_path, sizeof(Region_path), "%s/region", Dir);
	fuzz_assert((Null = fopen("/dev/null", "w")) != NULL);
	atexit(cleanup);
	return 0;
}

/* put_file -- path holds exactly the len bytes of p */
static void
put_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "w");

	fuzz_assert(f != NULL);
	fuzz_assert(len == 0 || fwrite(p, 1, len, f) == len);
	fuzz_assert(fclose(f) == 0);
}

/* check_journal -- what journal_read() accepts fits its region; what it refuses is empty */
static void
check_journal(void)
{
	struct journal j;
	char why[320] = "";

	if (journal_read(Journal_path, &j, why, sizeof(why))) {
		fuzz_assert(j.e == NULL && j.n == 0 && why[0]);
		return;
	}
	fuzz_assert(j.layout.slot_size >= REC_HDR && j.layout.slot_size % REC_ALIGN == 0);
	fuzz_assert(j.layout.nslots <= j.region_size / j.layout.slot_size);
	fuzz_assert(j.n <= j.layout.nslots && (j.n == 0 || j.e != NULL));
	for (size_t i = 0; i < j.n; i++) {
		fuzz_assert(j.e[i].slot < j.layout.nslots);
		fuzz_assert(i == 0 || j.e[i].slot > j.e[i - 1].slot);
		fuzz_assert(j.e[i].len >= REC_HDR && j.e[i].len <= j.layout.slot_size);
	}
	journal_fini(&j);
}

/* check_file -- vfile_check()'s result agrees with its summary */
static void
check_file(int with_journal)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	FILE *err = stderr;
	unsigned long long good = 0, bad = 0;
	int ret;

	fuzz_assert(f != NULL);
	stderr = Null;
	ret = vfile_check(Region_path, with_journal ? Journal_path : NULL, f);
	stderr = err;
	fuzz_assert(fclose(f) == 0);
	fuzz_assert(ret == 0 || ret == 1);
	if (out_len) {
		const char *s = strstr(out, ": ");

		fuzz_assert(s && sscanf(s, ": %llu records good, %llu bad", &good, &bad) == 2);
		fuzz_assert(ret == (bad || !good));
	} else {
		fuzz_assert(ret == 1);
	}
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t jlen;

	if (size < 4)
		return 0;
	memcpy(&jlen, data, 4);
	data += 4;
	size -= 4;
	if (jlen == NO_JOURNAL) {
		put_file(Region_path, data, size);
		check_file(0);
		return 0;
	}
	if (jlen > size)
		jlen = (uint32_t)size;
	put_file(Journal_path, data, jlen);
	put_file(Region_path, data + jlen, size - jlen);
	check_journal();
	check_file(1);
	return 0;
}
