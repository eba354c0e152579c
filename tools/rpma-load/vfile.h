/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * vfile.h -- --verify-file: check the records in a server's region file
 * (after the server has exited), with no RDMA.
 *
 * With a journal (--journal PATH, written by a --verify run) every slot the
 * run wrote must hold exactly the record it wrote last (sequence, length,
 * checksum) and every other slot must be blank or a sound record. Without
 * one, the file is scanned for records (each says where it belongs and its
 * slot size) and each one found must be sound; at least one must be found.
 * Only a journal catches a record whose header was destroyed.
 */

#ifndef RPMA_LOAD_VFILE_H
#define RPMA_LOAD_VFILE_H

#include <stdio.h>

/*
 * vfile_check -- check the region file at path (with the journal at
 * journal_path, or NULL); the problems to stderr, a summary to out
 * RETURN VALUE: 0 when every record checks; 1 otherwise (or when the files
 * cannot be read).
 */
int vfile_check(const char *path, const char *journal_path, FILE *out);

#endif /* RPMA_LOAD_VFILE_H */
