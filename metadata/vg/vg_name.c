/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_name.c - the name rule for pools and volumes. See vg.h. */
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include <string.h>

/* The bytes a name may hold: letters, digits and '+_.-'. One pass over a
 * name finds its length and its first byte outside the set (issue 40:
 * every volume's name is checked at every read and every commit). */
#define L1(c) [c] = 1
#define DIGITS L1('0'), L1('1'), L1('2'), L1('3'), L1('4'), L1('5'), L1('6'), L1('7'), \
	       L1('8'), L1('9')
#define LOWER L1('a'), L1('b'), L1('c'), L1('d'), L1('e'), L1('f'), L1('g'), L1('h'), \
	      L1('i'), L1('j'), L1('k'), L1('l'), L1('m'), L1('n'), L1('o'), L1('p'), \
	      L1('q'), L1('r'), L1('s'), L1('t'), L1('u'), L1('v'), L1('w'), L1('x'), \
	      L1('y'), L1('z')
#define UPPER L1('A'), L1('B'), L1('C'), L1('D'), L1('E'), L1('F'), L1('G'), L1('H'), \
	      L1('I'), L1('J'), L1('K'), L1('L'), L1('M'), L1('N'), L1('O'), L1('P'), \
	      L1('Q'), L1('R'), L1('S'), L1('T'), L1('U'), L1('V'), L1('W'), L1('X'), \
	      L1('Y'), L1('Z')
const unsigned char vg_name_byte[256] = { DIGITS, LOWER, UPPER, L1('+'), L1('_'), L1('.'),
					  L1('-') };

int vg_name_valid(const char *name, const char **why)
{
	const char *dummy;
	const unsigned char *p;
	size_t len;

	if (!why)
		why = &dummy;
	if (!name || !*name) {
		*why = "the name is empty";
		return 0;
	}
	for (p = (const unsigned char *)name; vg_name_byte[*p]; p++)
		;
	len = (size_t)((const char *)p - name);
	if (*p)
		len += strlen((const char *)p);
	/* the problems in the order they are said */
	if (len > VG_NAME_MAX) {
		*why = "the name is longer than 64 bytes";
		return 0;
	}
	if (name[0] == '-') {
		*why = "the name starts with '-'";
		return 0;
	}
	if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) {
		*why = "'.' and '..' are reserved";
		return 0;
	}
	if (*p) {
		*why = "only letters, digits and '+_.-' are allowed";
		return 0;
	}
	*why = NULL;
	return 1;
}
