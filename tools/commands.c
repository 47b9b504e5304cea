/* commands.c - the command table, expanded from commands.def. */
#include "tools/cli.h"

#include <string.h>

const struct tp_command tp_commands[] = {
#define TP_COMMAND(name, alias, summary, args, fn) \
	{ #name, alias, summary, args, fn },
#include "tools/commands.def"
#undef TP_COMMAND
	{ NULL, NULL, NULL, NULL, NULL },
};

const unsigned tp_ncommands = sizeof(tp_commands) / sizeof(tp_commands[0]) - 1;

const struct tp_command *tp_command_find(const char *name)
{
	for (unsigned i = 0; i < tp_ncommands; i++)
		if (!strcmp(tp_commands[i].name, name) ||
		    (tp_commands[i].alias && !strcmp(tp_commands[i].alias, name)))
			return &tp_commands[i];
	return NULL;
}
