/* SPDX-License-Identifier: GPL-2.0-or-later */
/* human.h - thin_dump -f human_readable's layout, for people (never
 * parsed back). One style for the emitter in xml_emit.h. */
#ifndef TP_THIN_HUMAN_H
#define TP_THIN_HUMAN_H

#include "metadata/thin/xml_emit.h"

extern const struct thin_emit_style thin_emit_human_style;

#endif
