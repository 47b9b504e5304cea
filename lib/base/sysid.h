/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysid.h - this host's system id (tptools.conf(5) global/system_id and
 * global/system_id_source, as lvmsystemid(7)): the name a pool will
 * record as its owner.
 *
 * global/system_id, when set, is the id; else global/system_id_source
 * says where it comes from: "none" (no id: the default), "machineid"
 * (/etc/machine-id, or $TPTOOLS_DIR/machine-id in tests), "uname" (the
 * node name, uname -n). An id keeps only the characters A-Z a-z 0-9 . _
 * - + and at most TP_SYSID_MAX of them; "localhost" from uname is no id. */
#ifndef TP_BASE_SYSID_H
#define TP_BASE_SYSID_H

#include <stddef.h>

#define TP_SYSID_MAX 128

/* The id into BUF (size > TP_SYSID_MAX): 0 (BUF "" when there is none),
 * or -errno when the source cannot be read (logged, naming it). SOURCE,
 * when given, gets what it came from ("global/system_id", "machineid
 * (/etc/machine-id)", "uname", "none"). */
int tp_system_id(char *buf, size_t len, const char **source);

/* Is ID a valid system id as given (only the characters above, 1..MAX)?
 * 0, or -1 with WHY set. */
int tp_system_id_check(const char *id, char *why, size_t len);

#endif
