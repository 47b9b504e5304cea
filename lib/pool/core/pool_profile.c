/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_profile.c - the geometry profile between lib/pool's policy names
 * (enum tp_profile) and the VG metadata's record of it (enum vg_profile). */
#include "lib/pool/core/core_int.h"

const char *pool_profile_name(enum vg_profile p)
{
	switch (p) {
	case VG_PROFILE_BALANCED:
		return tp_profile_name(TP_PROFILE_BALANCED);
	case VG_PROFILE_THROUGHPUT:
		return tp_profile_name(TP_PROFILE_THROUGHPUT);
	case VG_PROFILE_SNAPSHOTS:
		return tp_profile_name(TP_PROFILE_SNAPSHOTS);
	case VG_PROFILE_CUSTOM:
		return "custom";
	case VG_PROFILE_NONE:
		break;
	}
	return "-";
}

enum vg_profile pool_profile_to_vg(enum tp_profile p)
{
	switch (p) {
	case TP_PROFILE_THROUGHPUT:
		return VG_PROFILE_THROUGHPUT;
	case TP_PROFILE_SNAPSHOTS:
		return VG_PROFILE_SNAPSHOTS;
	case TP_PROFILE_BALANCED:
		break;
	}
	return VG_PROFILE_BALANCED;
}
