/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lease/lease.h without a sanlock daemon: bad areas are refused before
 * anything is asked, and a host without the daemon gets -ENOTCONN with a
 * message naming the service (the two-host VM scenario s2-lease tests the
 * leases themselves). */
#include "lease/lease.h"
#include "lib/base/log.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int no_daemon(void)
{
	struct stat st;

	return stat("/run/sanlock/sanlock.sock", &st) != 0;
}

static void test_bad_areas(void)
{
	struct lease_area a = { "pool", "/dev/null", 0 };
	struct lease_owner o;
	struct lease_hold h;
	char longname[64];

	a.offset = 4096;	/* not 1 MiB aligned */
	CU_ASSERT_EQUAL(lease_format(&a, 10), -EINVAL);
	CU_ASSERT_EQUAL(lease_join(&a, 1, 10), -EINVAL);
	CU_ASSERT_EQUAL(lease_owner(&a, &o), -EINVAL);
	CU_ASSERT_EQUAL(lease_acquire(&h, &a, NULL, NULL, &o), -EINVAL);
	CU_ASSERT_EQUAL(h.sock, -1);
	a.offset = 0;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	a.name = longname;	/* longer than sanlock's 48 bytes */
	CU_ASSERT_EQUAL(lease_join(&a, 1, 10), -EINVAL);
	a.name = "";
	CU_ASSERT_EQUAL(lease_owner(&a, &o), -EINVAL);
	a.name = "pool";
	CU_ASSERT_EQUAL(lease_join(&a, 0, 10), -EINVAL);	/* host ids 1..2000 */
	CU_ASSERT_EQUAL(lease_join(&a, LEASE_MAX_HOSTS + 1, 10), -EINVAL);
	/* releasing what was never held is no error */
	h.sock = -1;
	CU_ASSERT_EQUAL(lease_release(&h, &a), 0);
}

static void test_no_daemon(void)
{
	struct lease_area a = { "pool", "/dev/null", 0 };
	struct lease_owner o;
	struct lease_hold h;
	static struct tp_log_capture cap;

	if (!no_daemon())
		return;	/* a sanlock daemon runs here: s2-lease covers it */
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(lease_acquire(&h, &a, NULL, NULL, &o), -ENOTCONN);
	CU_ASSERT_EQUAL(h.sock, -1);
	CU_ASSERT_EQUAL(lease_join(&a, 1, 10), -ENOTCONN);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "sanlock.service") != NULL);
	/* the checks before a shared pool is written, and the holder's */
	CU_ASSERT_EQUAL(lease_daemon_up(), 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(lease_daemon_check("pool p"), -ENOTCONN);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "pool p: the sanlock daemon does not answer") != NULL);
	CU_ASSERT(strstr(cap.buf, "systemctl start sanlock") != NULL);
	CU_ASSERT_EQUAL(lease_held_by(&a, (int)getpid()), -ENOTCONN);
	a.offset = 4096;
	CU_ASSERT_EQUAL(lease_held_by(&a, (int)getpid()), -EINVAL);
}

TP_TEST_SUITE(lease, NULL, NULL,
	      { "bad areas, names and host ids are refused", test_bad_areas },
	      { "without a daemon: -ENOTCONN naming the service", test_no_daemon })
