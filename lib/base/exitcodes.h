/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exitcodes.h - the fixed process exit codes of every tptools command.
 * Documented in man/tptools.7; tests assert them exactly. */
#ifndef TP_BASE_EXITCODES_H
#define TP_BASE_EXITCODES_H

enum tp_exit {
	TP_EXIT_OK = 0,		/* success */
	TP_EXIT_DAMAGE = 1,	/* tpcheck: non-fatal damage found (e.g. leaked blocks) */
	TP_EXIT_FATAL = 2,	/* tpcheck: fatal damage found */
	/* bad command line: unknown option, bad size, bad name, a device
	 * path of the wrong kind or one the devices filter excludes; or a
	 * refused tptools.conf (no command runs) */
	TP_EXIT_USAGE = 3,
	/* tprepair: the repair was done, but volumes now read something else
	 * than before it (a restore forced past a backup that contradicts the
	 * devices: another pool's, another chunk size, a smaller data area);
	 * each is named. Never 0 for that. */
	TP_EXIT_REREAD = 4,
	/* the command failed or was refused: no volume or pool setting a
	 * reader sees was changed (every metadata change is a transaction).
	 * tvremove of several volumes removes each in a transaction of its
	 * own. Two commands can stop part-way, keep what they did and say so
	 * in their last error line: tprecv (an unfinished receive, no
	 * volume, for --resume or --abort) and tvremove --wipe (the volume,
	 * with the chunks it zeroed). man/tptools.7 EXIT STATUS. */
	TP_EXIT_FAILED = 5,
	/* an internal error: a broken invariant of tptools itself, said as
	 * "internal error at FILE:LINE ... this is a bug" (log.h: TP_BUG);
	 * never the user's input. EX_SOFTWARE of sysexits(3). */
	TP_EXIT_BUG = 70,
};

/* Map a negative errno from the library layers to an exit code:
 * -EINVAL and -ERANGE are the caller's input (3), and so is -ENOTBLK: a
 * device path that is neither a block device nor an image file (a FIFO, a
 * character device, a directory, a socket: refused before it is waited
 * on, read or written, lib/base/devopen.h); -EINTR from a long copy that
 * a signal stopped (tp_critical_stopped_by) 128 + that signal, as if it
 * had ended the process (130 SIGINT, 143 SIGTERM, 129 SIGHUP);
 * -ENOTRECOVERABLE, an internal error (TP_BUG), 70; everything else 5.
 * An error that reaches it with none logged yet in this process (an
 * allocation that failed deep down) is logged here, so that no command
 * fails silently. */
int tp_exit_from_errno(int err);

#endif
