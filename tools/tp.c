/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp.c - main() of the multi-call binary: dispatch is in commands.c. */
#include "tools/cli.h"

int main(int argc, char **argv)
{
	return tp_main(argc, (const char **)argv);
}
