/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_monitor_state.c - the monitor's state file of each pool (see
 * monitor.h for where it lives, why there, and its format). */
#include "lib/pool/monitor.h"

#include "lib/base/atomic.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* <run dir>/monitor, or with UUID its file: malloc'd, NULL on ENOMEM. */
static char *state_path(const char *uuid)
{
	char *run = tp_run_dir(), *dir, *file;

	if (!run)
		return NULL;
	dir = tp_path_join(run, "monitor");
	free(run);
	if (!dir || !uuid)
		return dir;
	file = tp_path_join(dir, uuid);
	free(dir);
	return file;
}

/* A uuid is a file name: no '/', not empty, no dot names. */
static int name_ok(const char *uuid)
{
	return uuid[0] && uuid[0] != '.' && !strchr(uuid, '/') && strlen(uuid) <= POOL_UUID_LEN;
}

/* The count_* keys and where each goes. */
static uint64_t *count_of(struct pool_monitor_state *s, const char *key)
{
	struct pool_monitor_counts *c = &s->counts;

	if (!strcmp(key, "count_warnings"))
		return &c->warnings;
	if (!strcmp(key, "count_no_room"))
		return &c->no_room;
	if (!strcmp(key, "count_autoextends"))
		return &c->autoextends;
	if (!strcmp(key, "count_autoextend_failures"))
		return &c->autoextend_failures;
	if (!strcmp(key, "count_error_switches"))
		return &c->error_switches;
	return NULL;
}

static int parse_line(char *line, struct pool_monitor_state *s)
{
	char *val = strchr(line, ' ');
	unsigned long long u;
	uint64_t *count;
	char *end;

	if (!val)
		return *line ? -EUCLEAN : 0;
	*val++ = '\0';
	if (!strcmp(line, "pool") || !strcmp(line, "action")) {
		char *dst = line[0] == 'p' ? s->pool : s->action;
		size_t max = line[0] == 'p' ? sizeof(s->pool) : sizeof(s->action);
		snprintf(dst, max, "%s", val);
		return 0;
	}
	if (!strcmp(line, "add_failed")) {
		if (strlen(val) >= sizeof(s->add_failed))
			return -EUCLEAN;
		snprintf(s->add_failed, sizeof(s->add_failed), "%s", val);
		return 0;
	}
	count = count_of(s, line);
	if (!count && strcmp(line, "data_warned") && strcmp(line, "meta_warned") &&
	    strcmp(line, "error_set") && strcmp(line, "no_room") && strcmp(line, "time") &&
	    strcmp(line, "meta_degraded"))
		return 0;	/* a newer monitor's key */
	errno = 0;
	u = strtoull(val, &end, 10);
	if (errno || end == val || *end || *val == '-')
		return -EUCLEAN;
	if (count)
		*count = u;
	else if (!strcmp(line, "data_warned") && u <= 100)
		s->data_warned = (unsigned)u;
	else if (!strcmp(line, "meta_warned") && u <= 100)
		s->meta_warned = (unsigned)u;
	else if (!strcmp(line, "error_set") && u <= 1)
		s->error_set = (int)u;
	else if (!strcmp(line, "no_room") && u <= 7)
		s->no_room = (unsigned)u;
	else if (!strcmp(line, "time") && u <= INT64_MAX)
		s->time = (int64_t)u;
	else if (!strcmp(line, "meta_degraded") && u <= 1)
		s->meta_degraded = (int)u;
	else
		return -EUCLEAN;
	return 0;
}

static int one_line(char *line, void *s)
{
	return parse_line(line, s);
}

int pool_monitor_state_read(const char *pool_uuid, struct pool_monitor_state *s)
{
	char *path;
	int r;

	memset(s, 0, sizeof(*s));
	if (!name_ok(pool_uuid))
		return -EINVAL;
	if (!(path = state_path(pool_uuid)))
		return -ENOMEM;
	r = tp_read_lines(path, POOL_DEVICE_PATH_MAX + 64, one_line, s);
	free(path);
	if (r)
		memset(s, 0, sizeof(*s));
	return r;
}

int pool_monitor_state_write(const char *pool_uuid, const struct pool_monitor_state *s)
{
	char *dir = NULL, *path = NULL;
	struct tp_atomic a;
	int r;

	if (!name_ok(pool_uuid) || strchr(s->pool, '\n') || strchr(s->action, '\n') ||
	    strchr(s->add_failed, '\n')) {
		log_error("pool %s: cannot write the monitor's state file: bad pool uuid '%s' or "
			  "a newline in the name or the action", s->pool, pool_uuid);
		return -EINVAL;
	}
	dir = state_path(NULL);
	path = state_path(pool_uuid);
	if (!dir || !path)
		r = -ENOMEM;
	else
		r = tp_mkdir_p(dir);
	if (r) {
		log_error("pool %s: cannot write the monitor's state file %s: %s", s->pool,
			  path ? path : "", strerror(-r));
		goto out;
	}
	/* from here on tp_atomic_* name the file and the step of a failure */
	if ((r = tp_atomic_open(path, NULL, 0666, &a)))
		goto out;
	tp_atomic_printf(&a,
			 "# tpmonitor state: rewritten by tpmonitor; 'tpstatus' shows it\n"
			 "pool %s\ndata_warned %u\nmeta_warned %u\nerror_set %d\nno_room %u\n"
			 "time %" PRId64 "\naction %s\n"
			 "count_warnings %" PRIu64 "\ncount_no_room %" PRIu64 "\n"
			 "count_autoextends %" PRIu64 "\ncount_autoextend_failures %" PRIu64 "\n"
			 "count_error_switches %" PRIu64 "\n",
			 s->pool, s->data_warned, s->meta_warned, s->error_set, s->no_room, s->time,
			 s->action, s->counts.warnings, s->counts.no_room, s->counts.autoextends,
			 s->counts.autoextend_failures, s->counts.error_switches);
	if (s->add_failed[0])
		tp_atomic_printf(&a, "add_failed %s\n", s->add_failed);
	if (s->meta_degraded)
		tp_atomic_printf(&a, "meta_degraded 1\n");
	r = tp_atomic_commit(&a);
out:
	free(dir);
	free(path);
	return r;
}
