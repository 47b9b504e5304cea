# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel's needs_check flag (set after a metadata I/O error or a failed
# commit, issue 12): tpcheck reports it (exit 1) and names tprepair; changes
# and activation are refused (exit 5, nothing written); tprepair rewrites the
# metadata without the flag, keeping every volume; then all works again.
DATA_SIZE=64M META_SIZE=16M
new_pool p
ok tvcreate -V 8M -n v p
ok tvsnap -n s p/v
save_area p area.bin
ok tp-damage area.bin sb needs_check
load_area p area.bin
expect_rc 1 tpcheck p
out_has "needs_check"
out_has "tprepair p"
out_has "p: non-fatal damage (1 problem):"	# one flag: one problem, not "1 problems"
unchanged 5 tvcreate -V 8M -n w p
err_has "needs_check"
err_has "tprepair p"
ok tprepair p
expect_rc 0 tpcheck p
ok tvcreate -V 8M -n w p
ok tpstatus -o vol_name p
out_has "s"
out_has "v"
