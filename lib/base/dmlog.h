/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dmlog.h - the one log function tptools gives libdevmapper.
 *
 * libdevmapper reports through a single process-wide log function, used
 * by kernel/ (ioctl details), metadata/vg (dm_config parse errors) and
 * tools (dm_report writes its tables through log_print). Installing one
 * function here keeps those users from replacing each other's:
 * - log_print output (level 4 without the stderr bit) goes to stdout;
 * - the first error-level message since tp_dmlog_clear() is kept, so a
 *   caller can quote it (e.g. where the VG text's syntax broke);
 * - everything is also a debug message of class "kernel".
 * tp_dmlog_install() is idempotent. */
#ifndef TP_BASE_DMLOG_H
#define TP_BASE_DMLOG_H

void tp_dmlog_install(void);
/* Install it again after a library that sets libdevmapper's log function
 * of its own and resets it to libdevmapper's default when done
 * (libcryptsetup, lib/pool/crypt): a no-op before tp_dmlog_install. */
void tp_dmlog_reclaim(void);
/* While ON, what libdevmapper says at warning level or above is printed
 * where its own log function prints it (errors and warnings on stderr,
 * log_print's output on stdout) instead of going to debug: dm_report's
 * help (tpstatus -o help, -S help) and its list of the fields after a bad
 * one are warnings meant for the user, whichever function is installed. */
void tp_dmlog_pass_through(int on);
void tp_dmlog_clear(void);
/* The first error message since the last clear, or "". */
const char *tp_dmlog_first_error(void);

#endif
