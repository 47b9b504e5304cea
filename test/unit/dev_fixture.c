/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dev_fixture.c - see dev_fixture.h. */
#include "test/unit/dev_fixture.h"
#include "test/unit/tp_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *fx_path(const char *rel)
{
	static char path[8][1024];
	static unsigned next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s", tp_test_tmpdir(), rel);
	return p;
}

const char *img(const char *name, unsigned size)
{
	const char *p = fx_path(name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, size) == 0);
	close(fd);
	return p;
}

void put(const char *path, uint64_t off, const void *buf, size_t len)
{
	int fd = open(path, O_RDWR);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pwrite(fd, buf, len, (off_t)off) == (ssize_t)len);
	close(fd);
}

void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void write_md1_super(const char *path, uint64_t sb_off, const char *name)
{
	unsigned char sb[512] = { 0 };
	uint64_t sum = 0;

	le32(sb + 0, 0xa92b4efc);		/* magic */
	le32(sb + 4, 1);			/* major version */
	for (int i = 0; i < 16; i++)
		sb[16 + i] = (unsigned char)(0x11 * (i + 1));	/* set uuid */
	memcpy(sb + 32, name, strlen(name) < 32 ? strlen(name) : 32);	/* set name */
	le32(sb + 72, 6);			/* level */
	le32(sb + 88, 1024);			/* chunk, sectors */
	le32(sb + 92, 7);			/* raid disks */
	le64(sb + 128, sb_off > 4096 ? 0 : 2048);	/* data offset */
	le64(sb + 136, 4096);			/* data size */
	le64(sb + 144, sb_off / 512);		/* super offset */
	le32(sb + 220, 0);			/* max_dev */
	for (int i = 0; i < 256; i += 4)
		sum += (uint32_t)sb[i] | (uint32_t)sb[i + 1] << 8 | (uint32_t)sb[i + 2] << 16 |
		       (uint32_t)sb[i + 3] << 24;
	le32(sb + 216, (uint32_t)((sum & 0xffffffffu) + (sum >> 32)));
	put(path, sb_off, sb, sizeof(sb));
}

uint64_t md_v10_offset(uint64_t size)
{
	return (((size / 512) - 16) & ~(uint64_t)7) * 512;
}

void write_md090_super(const char *path, uint64_t size)
{
	unsigned char sb[4096] = { 0 };

	le32(sb + 0, 0xa92b4efc);		/* magic */
	le32(sb + 4, 0);			/* major */
	le32(sb + 8, 90);			/* minor */
	le32(sb + 20, 0x01020304);		/* set_uuid0 */
	le32(sb + 28, 1);			/* level */
	le32(sb + 52, 0x05060708);		/* set_uuid1..3 */
	le32(sb + 56, 0x090a0b0c);
	le32(sb + 60, 0x0d0e0f10);
	put(path, (size & ~(uint64_t)0xffff) - 0x10000, sb, sizeof(sb));
}

void fx_mkdir(const char *rel)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", fx_path(rel));
	CU_ASSERT_FATAL(system(cmd) == 0);
}

void fx_file(const char *rel, const char *text)
{
	FILE *f = fopen(fx_path(rel), "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}
