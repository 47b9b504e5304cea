/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wipe.c - see wipe.h. */
#include "lib/dev/wipe.h"

#include "lib/base/devopen.h"
#include "lib/base/log.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int tp_dev_wipe_signatures(const char *path)
{
	blkid_probe pr;
	int fd, n = 0, r = 0;

	fd = io_dev_open(path, O_RDWR);
	if (fd < 0) {
		r = -errno;
		log_error("cannot open %s to wipe its signatures: %s", path, strerror(-r));
		return r;
	}
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		log_error("%s: libblkid cannot probe it", path);
		r = -EIO;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	/* Each pass finds one signature; wiping it lets the next one show. */
	while (n < 64 && blkid_do_probe(pr) == 0) {
		const char *type = NULL;
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL))
			type = "signature";
		if (blkid_do_wipe(pr, 0)) {
			log_error("%s: cannot erase its %s signature", path, type);
			r = -EIO;
			goto out;
		}
		log_info("%s: erased a %s signature", path, type);
		n++;
	}
	if (fsync(fd))
		r = -errno;
out:
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return r ? r : n;
}
