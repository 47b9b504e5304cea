/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_config.c - the tptools.conf reader (lib/base/config) on arbitrary
 * bytes, against the tools' own table of settings (their checks included:
 * sizes, percentages, filter patterns, system ids): it refuses or loads,
 * never crashes, and what it loaded reads back through every lookup. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/base/config.h"
#include "lib/base/devfilter.h"
#include "lib/base/log.h"
#include "tools/config_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char where[4200];
	FILE *null;

	tp_log_set_verbosity(-2);
	if (tp_config_load_text(tp_conf_keys, tp_conf_nkeys, "fuzz.conf", (const char *)data, size))
		return 0;
	null = fopen("/dev/null", "w");
	for (unsigned i = 0; i < tp_conf_nkeys; i++) {
		const char *const *items;
		const char *path = tp_conf_keys[i].path;
		(void)tp_config_str(path);
		(void)tp_config_int(path);
		(void)tp_config_list(path, &items);
		(void)tp_config_where(path, where, sizeof(where));
		if (null)
			tp_config_print_value(null, path);
	}
	(void)tp_dev_filter_accepts("/dev/null", NULL, 0);
	if (null)
		fclose(null);
	tp_config_unload();
	return 0;
}
