/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_keys.h - the settings tptools.conf has (tptools.conf(5)): the one
 * table lib/base/config reads the file against, with each value's check
 * (the same parsers the command-line options use). */
#ifndef TP_TOOLS_CONFIG_KEYS_H
#define TP_TOOLS_CONFIG_KEYS_H

#include "lib/base/config.h"

extern const struct tp_conf_key tp_conf_keys[];
extern const unsigned tp_conf_nkeys;

/* Load <config dir>/tptools.conf (FILE when given) against the table.
 * Returns 0, or an exit code (3: the file is refused, said line by line;
 * 5: it cannot be read). */
int config_keys_load(const char *file);

#endif
