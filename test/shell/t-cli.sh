# SPDX-License-Identifier: GPL-2.0-or-later
# The multi-call binary: help, version, unknown commands, exit codes.
ok tp --help
out_has "Commands:"
ok tp --version
out_has "tptools "
usage_error tp
usage_error tp no-such-command
err_has "unknown command 'no-such-command'"
# every command in the table answers --help by its own name and through tp
for c in $(tp --help | sed -n 's/^  \(t[pv][a-z]*\) .*/\1/p'); do
	ok "$c" --help
	out_has "$c"
	ok tp "$c" --help
	usage_error "$c" --no-such-option
	err_has "no-such-option"
done
