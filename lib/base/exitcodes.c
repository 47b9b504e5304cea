/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exitcodes.c - errno to exit code (see exitcodes.h). */
#include "lib/base/exitcodes.h"
#include "lib/base/critical.h"

#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

int tp_exit_from_errno(int err)
{
	if (err >= 0)
		return TP_EXIT_OK;
	/* the library logs an error where it arises; one that reached the
	 * tool unsaid (an allocation that failed deep down) is said here, so
	 * no command fails silently */
	if (!tp_log_error_count() && !(err == -EINTR && tp_critical_stopped_by()))
		log_error("%s%s", strerror(-err),
			  err == -ENOMEM ? ": out of memory; nothing was changed" : "");
	if (err == -EINVAL || err == -ERANGE || err == -ENOTBLK)
		return TP_EXIT_USAGE;
	if (err == -ENOTRECOVERABLE)
		return TP_EXIT_BUG;
	if (err == -EINTR && tp_critical_stopped_by())
		return 128 + tp_critical_stopped_by();
	return TP_EXIT_FAILED;
}
