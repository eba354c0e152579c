/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool_hdr.h -- the 4096-byte header at the start of a part file of a pool
 * rpmemd keeps, in the format of PMDK's struct pool_hdr (PMDK 1.11 and
 * 1.12), so that Debian's pmempool and libpmemobj read the part files.
 *
 * LAYOUT (byte offsets; every integer is little-endian)
 *      0  signature[8]      the pool's kind, e.g. "PMEMOBJ" and a NUL
 *      8  major             u32, the format's major version
 *     12  compat            u32, features a reader may ignore
 *     16  incompat          u32, features a reader must know: 0x1 SINGLEHDR,
 *                           0x2 CKSUM_2K, 0x4 SDS (shutdown state)
 *     20  ro_compat         u32, features without which a reader only reads
 *     24  poolset_uuid[16]  the pool set's, the same in every part
 *     40  uuid[16]          this part's
 *     56  prev_part_uuid    the previous part's, cyclically: the first part
 *                           names the last
 *     72  next_part_uuid    the next part's, cyclically
 *     88  prev_repl_uuid    the previous replica's first part's
 *    104  next_repl_uuid    the next replica's first part's
 *    120  crtime            u64, creation in seconds since the Epoch
 *    128  arch_flags[16]    u64 alignment descriptor; u8 machine class (2:
 *                           64-bit) at 136; u8 data encoding (1: little-endian)
 *                           at 137; 4 reserved bytes; u16 ELF machine at 142
 *    144  unused[1904]      zero
 *   2048  unused2[1976]     zero
 *   4024  sds[64]           the shutdown state: u64 unsafe shutdown count, u64
 *                           device id checksum, u8 dirty flag at 4040, 39
 *                           reserved bytes, u64 checksum of the 64 bytes at 4080
 *   4088  checksum          u64, of the header
 *
 * CHECKSUM (PMDK's util_checksum(), "Fletcher64-like")
 * The header is read as 1024 32-bit little-endian words w[0..1023]. Two
 * 32-bit sums, lo and hi, start at 0; for each word in order, lo += w[k] and
 * then hi += lo, both modulo 2^32. The checksum is hi << 32 | lo. Words that
 * do not count are taken as 0 but still take their turn (hi still adds lo):
 * the two words of the checksum field, and, when incompat has CKSUM_2K, every
 * word from byte 2048 on (only the first 2 KiB are covered). The shutdown
 * state has its own checksum of the same kind over its 64 bytes, its
 * checksum field counting as 0; 64 zero bytes are a valid shutdown state.
 *
 * ATTRIBUTES (librpmem's struct rpmem_pool_attr; how PMDK's rpmemd stored them)
 * signature, major, compat/incompat/ro_compat_features: the fields of the
 * same names in every part; poolset_uuid: poolset_uuid in every part; uuid:
 * the first part's uuid (the other parts have UUIDs of their own); prev_uuid
 * and next_uuid: prev_repl_uuid and next_repl_uuid in every part; user_flags:
 * the 16 bytes of arch_flags as they are. Reading them back from the first
 * part's header gives the same fields. Where PMDK filled in a zero attribute
 * (a zero poolset_uuid or uuid with a random UUID, zero replica UUIDs with
 * the first part's, zero user flags with this machine's architecture flags),
 * and where it added the SINGLEHDR bit to incompat for a SINGLEHDR set, this
 * module stores what it is given: what rpmem_create() gets, rpmem_open()
 * returns exactly. libpmemobj sends none of these zeros, and poolset(5) has
 * a SINGLEHDR remote set go with a SINGLEHDR local one, whose incompat has
 * the bit already (pmempool refuses a SINGLEHDR set whose header lacks it).
 *
 * Sources: PMDK 1.11/1.12 src/common/pool_hdr.h, shutdown_state.h, util.c
 * (util_checksum_compute), set.c (util_header_create, util_header_check_remote,
 * util_get_rpmem_attr), tools/rpmemd/rpmemd_db.c (rpmemd_get_attr).
 *
 * ASSUMPTIONS
 * No function keeps state of its own: any thread may call any of them; the
 * caller keeps one thread at a time on a given struct pool_hdr or buffer
 * that a function writes.
 */

#ifndef RPMEMD_POOL_HDR_H
#define RPMEMD_POOL_HDR_H

#include <stddef.h>
#include <stdint.h>

#define POOL_HDR_SIZE	   4096
#define POOL_HDR_SIG_LEN   8
#define POOL_HDR_UUID_LEN  16
#define POOL_HDR_ARCH_LEN  16
#define POOL_HDR_SDS_LEN   64
#define POOL_HDR_ERR_MAX   256	   /* bytes a message needs, with its NUL, beside the name */
#define POOL_FEAT_CKSUM_2K 0x0002u /* incompat: the checksum covers the first 2 KiB only */

/* incompat: only the first part has a header (a set with OPTION SINGLEHDR) */
#define POOL_FEAT_SINGLEHDR 0x0001u

/*
 * what a pool's attributes and each part's header begin with: the kind of pool and its
 * layout's version, its features, the pool set's UUID and a UUID (the attributes': the
 * first part's; a header's: its part's)
 */
struct pool_hdr_id {
	char signature[POOL_HDR_SIG_LEN];
	uint32_t major;
	uint32_t compat_features;
	uint32_t incompat_features;
	uint32_t ro_compat_features;
	unsigned char poolset_uuid[POOL_HDR_UUID_LEN];
	unsigned char uuid[POOL_HDR_UUID_LEN];
};

/* the attributes of a pool, laid out as librpmem's struct rpmem_pool_attr (104 bytes) */
struct pool_hdr_attr {
	struct pool_hdr_id id;
	unsigned char next_uuid[POOL_HDR_UUID_LEN];
	unsigned char prev_uuid[POOL_HDR_UUID_LEN];
	unsigned char user_flags[POOL_HDR_ARCH_LEN];
};

/* a header in host byte order; arch_flags and sds are the bytes as stored */
struct pool_hdr {
	struct pool_hdr_id id;
	unsigned char prev_part_uuid[POOL_HDR_UUID_LEN];
	unsigned char next_part_uuid[POOL_HDR_UUID_LEN];
	unsigned char prev_repl_uuid[POOL_HDR_UUID_LEN];
	unsigned char next_repl_uuid[POOL_HDR_UUID_LEN];
	uint64_t crtime;
	unsigned char arch_flags[POOL_HDR_ARCH_LEN];
	unsigned char sds[POOL_HDR_SDS_LEN];
	uint64_t checksum; /* as read by pool_hdr_decode(); pool_hdr_encode() computes its own */
};

/*
 * pool_hdr_checksum -- the checksum of the 4096 bytes at buf, by the rules
 * above (CKSUM_2K read from buf's incompat field)
 */
uint64_t pool_hdr_checksum(const unsigned char *buf);

/*
 * pool_hdr_uuids_new -- the UUIDs of the n parts of a set that carry a
 * header, into uuids[0..n-1]: the first is attr->id.uuid, the others random
 * (RFC 4122 version 4, in PMDK's byte order: the version in the high nibble
 * of byte 7, the variant in the top bits of byte 8)
 *
 * RETURN VALUE
 * 0; -EINVAL when an argument is NULL or n is 0; a negative errno of
 * getrandom(2) when no random bytes can be had.
 */
int pool_hdr_uuids_new(const struct pool_hdr_attr *attr, unsigned n,
		       unsigned char (*uuids)[POOL_HDR_UUID_LEN]);

/*
 * pool_hdr_build -- the header of the i-th of the n parts that carry one
 * (every part, or the first only with SINGLEHDR), whose UUIDs are
 * uuids[0..n-1], created at crtime: attr stored as above, the part links
 * naming its neighbours (the part itself when n is 1), arch_flags from
 * user_flags, the shutdown state zero
 *
 * RETURN VALUE
 * 0; -EINVAL when an argument is NULL, n is 0, i is not below n, the
 * attributes are all zero (librpmem's rule: zero attributes make a pool
 * without headers, a NOHDRS set), or uuids[0] is not attr->id.uuid (the first
 * part's UUID is the attribute).
 */
int pool_hdr_build(const struct pool_hdr_attr *attr,
		   const unsigned char (*uuids)[POOL_HDR_UUID_LEN], unsigned n, unsigned i,
		   uint64_t crtime, struct pool_hdr *hdr);

/*
 * pool_hdr_encode -- hdr as the POOL_HDR_SIZE bytes of a part file at buf,
 * little-endian, the reserved bytes zero, the checksum computed
 */
void pool_hdr_encode(const struct pool_hdr *hdr, unsigned char *buf);

/*
 * pool_hdr_decode -- the header in the len bytes at buf (the start of the
 * part file name, for messages) into *hdr, verified on its own: its size,
 * not all zero, its checksum, zero reserved bytes and a valid shutdown state
 *
 * RETURN VALUE
 * 0; or, with *hdr untouched and "NAME: what is wrong" in err (err_len
 * bytes at most, NUL included; when err is not NULL): -EINVAL when buf,
 * name or hdr is NULL; -EUCLEAN when len is below POOL_HDR_SIZE, the bytes
 * are all zero, the checksum does not match, a reserved byte is not zero
 * or the shutdown state's checksum does not match.
 */
int pool_hdr_decode(const char *name, const unsigned char *buf, size_t len, struct pool_hdr *hdr,
		    char *err, size_t err_len);

/*
 * pool_hdr_check_set -- the decoded headers of the n parts of a set that
 * carry one, in order, agree: the same signature, major, features, pool set
 * UUID, replica UUIDs and arch_flags as the first part's, and each part's
 * links naming its neighbours' UUIDs (cyclically)
 *
 * RETURN VALUE
 * 0; -EINVAL when hdrs is NULL or n is 0; -EUCLEAN with "part I: what is
 * wrong" in err (as pool_hdr_decode() fills it) at the first disagreement.
 */
int pool_hdr_check_set(const struct pool_hdr *hdrs, unsigned n, char *err, size_t err_len);

/*
 * pool_hdr_get_attr -- the attributes of a pool from its first part's
 * header: exactly those pool_hdr_build() stored
 */
void pool_hdr_get_attr(const struct pool_hdr *hdr, struct pool_hdr_attr *attr);

#endif /* RPMEMD_POOL_HDR_H */
