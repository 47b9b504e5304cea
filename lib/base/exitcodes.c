/* exitcodes.c - errno to exit code (see exitcodes.h). */
#include "lib/base/exitcodes.h"
#include "lib/base/critical.h"

#include <errno.h>

int tp_exit_from_errno(int err)
{
	if (err >= 0)
		return TP_EXIT_OK;
	if (err == -EINVAL || err == -ERANGE || err == -ENOTBLK)
		return TP_EXIT_USAGE;
	if (err == -ENOTRECOVERABLE)
		return TP_EXIT_BUG;
	if (err == -EINTR && tp_critical_stopped_by())
		return 128 + tp_critical_stopped_by();
	return TP_EXIT_FAILED;
}
