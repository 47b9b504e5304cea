# SPDX-License-Identifier: GPL-2.0-or-later
# tpchange --max-overprovision under what the pool already holds promises
# "no volume is added or grown until the sum is under the limit". That
# holds when the volumes' virtual sizes add up past 16 EiB too (three
# volumes of almost 8 EiB): the sum is kept saturated at 2^64 - 1 bytes
# (lib/pool/core/pool_provision.c), so a change that adds to it leaves it
# where it was, and is not to be taken for one that does not raise it.
# (A hostile trial of issue 40: tvcreate, tvresize and tvsnap all went
# through.)
DATA_SIZE=128M
new_pool op --chunk 64k
for v in a b c; do ok tvcreate -V 8388607T -n "$v" op; done
ok tpchange --max-overprovision 1 op
err_has "no volume is added or grown until the sum is under the limit"
unchanged 5 tvcreate -V 1G -n d op
err_has "pool op: refused"
unchanged 5 tvresize -V +1G op/a
unchanged 5 tvsnap op/a -n a-snap
# shrinking and removing still go through
ok tvresize -V 1T op/c
ok tvremove -y op/b
ok tpcheck op
