# SPDX-License-Identifier: GPL-2.0-or-later
# tpactivate --lock-wait takes SECONDS, 0..3600 (tpactivate(8)): an empty
# value is no number of seconds and is refused (exit 3), as
# tptools.conf's activate/lock_wait = "" is, not taken for 0 ("not at
# all": a script's unset variable, --lock-wait "$WAIT", would then fail
# every pool another command holds at once). (A hostile trial of issue 40
# found popt's POPT_ARG_INT reading "" as 0, tools/tpactivate.c.)
DATA_SIZE=128M META_SIZE=16M
new_pool alpha
usage_error tpactivate --all --lock-wait ''
err_has "lock-wait"
usage_error tpdeactivate --all --lock-wait ''
