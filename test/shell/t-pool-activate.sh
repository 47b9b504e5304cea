# SPDX-License-Identifier: GPL-2.0-or-later
# tpactivate/tpdeactivate where the kernel has no device-mapper (this host,
# CI): a clear error, nothing changed; damaged metadata is refused by the
# check that runs before activation. (test/vm/s-tp-pool.sh covers the real
# kernel.)
DATA_SIZE=128M META_SIZE=16M
new_pool vault
ok tvcreate -V 1G -n www vault

# (a /dev/mapper/control node alone may be stale: libdevmapper, run by
# libcryptsetup in the encryption tests, makes one on a kernel without dm)
if [ -e /sys/class/misc/device-mapper ] || grep -qw device-mapper /proc/misc; then
	skip "this host has device-mapper; see test/vm"
fi
unchanged 5 tpactivate vault
err_has "device-mapper"
# tpactivate waits for the pool's lock as every writer does (it once took
# only the brief wait of a command looking at another pool: its flag
# shared a bit with that one, so a holder of over 5 s made it give up)
flock -x "$TPTOOLS_DIR/lock/vault.lock" sleep 6 &
holder=$!
sleep 0.5
unchanged 5 tpactivate vault
err_has "device-mapper"
wait $holder
unchanged 5 tpactivate vault www
unchanged 5 tpactivate vault nosuch
err_has "no volume nosuch"
usage_error tpactivate

ok tpdeactivate vault
out_has "inactive"
unchanged 5 tpdeactivate vault www
err_has "not active"

# damage below the superblock: the pre-activation check refuses
save_area vault area.bin
read -r root _ _ <<<"$(tp-damage area.bin find 0 0)"
ok tp-damage area.bin csum "$root"
load_area vault area.bin
unchanged 5 tpactivate vault
err_has "damaged"
err_has "tprepair vault"
