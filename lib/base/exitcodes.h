/* exitcodes.h - the fixed process exit codes of every tptools command.
 * Documented in man/tptools.7; tests assert them exactly. */
#ifndef TP_BASE_EXITCODES_H
#define TP_BASE_EXITCODES_H

enum tp_exit {
	TP_EXIT_OK = 0,		/* success */
	TP_EXIT_DAMAGE = 1,	/* tpcheck: non-fatal damage found (e.g. leaked blocks) */
	TP_EXIT_FATAL = 2,	/* tpcheck: fatal damage found */
	TP_EXIT_USAGE = 3,	/* bad command line: unknown option, bad size, bad name */
	TP_EXIT_FAILED = 5,	/* the command could not do its work; nothing changed */
};

/* Map a negative errno from the library layers to an exit code:
 * -EINVAL and -ERANGE are the caller's input (3), and so is -ENOTBLK: a
 * device path that is neither a block device nor an image file (a FIFO, a
 * character device, a directory, a socket: refused before it is waited
 * on, read or written, lib/base/devopen.h); everything else 5. */
int tp_exit_from_errno(int err);

#endif
