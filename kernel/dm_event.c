/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_event.c - waiting for a device's next event (dm.h: tp_dm_wait_event):
 * the DM_DEVICE_WAITEVENT ioctl dmeventd waits with. The kernel counts
 * events per device (dm_table_event: a thin-pool raises one at its data
 * low-water mark, at metadata low water, on a mode change such as out of
 * data space, and when its table is resumed); the ioctl returns once the
 * counter differs from the number it is given. */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"

#include <errno.h>
#include <libdevmapper.h>

int tp_dm_wait_event(const char *name, uint32_t event_nr, uint32_t *next)
{
	struct dm_task *dmt;
	struct dm_info di;
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_WAITEVENT, name, true, &dmt)))
		return r;
	if (!dm_task_set_event_nr(dmt, event_nr)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	/* a signal (the monitor stopping) interrupts the wait: not an error to log */
	r = tp_dm_lib_run(dmt, "wait for an event of", name, -1, TP_DM_LIB_QUIET_ALL);
	if (!r && !dm_task_get_info(dmt, &di))
		r = -EIO;
	if (!r && !di.exists)
		r = -ENXIO;
	if (!r)
		*next = di.event_nr;
	dm_task_destroy(dmt);
	return r;
}
