/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * text.h -- the checks made on the raw bytes of a configuration before the
 * YAML parser sees them: UTF-8 only, no control characters, no tab in
 * indentation. The parser would refuse most of these too, but with a less
 * precise message or, for other encodings, by guessing.
 */

#ifndef RPMAF_CFG_TEXT_H
#define RPMAF_CFG_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/*
 * rpmaf__cfg_text_check -- check len bytes at buf as the text of a document
 * coming from the source of pos (pos.ovr says which override, -1 the file).
 *
 * RETURN VALUE
 * 0 when the text is acceptable; RPMAF_E_PARSE, with the message in d,
 * at the first bad byte otherwise.
 */
int rpmaf__cfg_text_check(struct rpmaf__cfg_diag *d, const char *buf, size_t len, int ovr);

/*
 * rpmaf__cfg_text_offset -- the byte offset in buf of the character at
 * 1-based line and column as the YAML parser counts them; len when past the
 * end. Used to look at the character a parser error points to.
 */
size_t rpmaf__cfg_text_offset(const char *buf, size_t len, unsigned line, unsigned column);

/*
 * rpmaf__cfg_utf8_decode -- the code point of the UTF-8 sequence at s (left
 * bytes available, at least 1) and its length in *n; -1 when the bytes are
 * not UTF-8 (a bad lead or continuation byte, a truncated sequence, an
 * overlong form, a surrogate, beyond U+10FFFF), *n then being 1 or the bytes
 * to blame
 */
int32_t rpmaf__cfg_utf8_decode(const char *s, size_t left, size_t *n);

#endif /* RPMAF_CFG_TEXT_H */
