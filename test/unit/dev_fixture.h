/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dev_fixture.h - image files with hand-written signatures and fake sysfs
 * trees, for the lib/dev unit tests (test_dev.c, test_stack.c). */
#ifndef TP_TEST_DEV_FIXTURE_H
#define TP_TEST_DEV_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* A sparse zero file of SIZE bytes in the test's temp dir (the returned
 * path stays valid for the next 7 calls). */
const char *img(const char *name, unsigned size);
/* Write LEN bytes of BUF at OFF into PATH. */
void put(const char *path, uint64_t off, const void *buf, size_t len);
void le32(unsigned char *p, uint32_t v);
void le64(unsigned char *p, uint64_t v);

/* An md v1.x superblock (checksum included) with array name NAME, at byte
 * SB_OFF, saying it lies at sector SB_OFF/512 (v1.2: 4096; v1.0: near the
 * end, see md_v10_offset). */
void write_md1_super(const char *path, uint64_t sb_off, const char *name);
/* Where md v1.0 keeps its superblock on a member of SIZE bytes. */
uint64_t md_v10_offset(uint64_t size);
/* An md v0.90 superblock at the end of a member of SIZE bytes. */
void write_md090_super(const char *path, uint64_t size);

/* Under the test's temp dir: mkdir -p REL; write TEXT into the file REL. */
void fx_mkdir(const char *rel);
void fx_file(const char *rel, const char *text);
/* The absolute path of REL under the temp dir (valid for 7 calls). */
const char *fx_path(const char *rel);

#endif
