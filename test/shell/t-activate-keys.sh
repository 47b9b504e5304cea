# SPDX-License-Identifier: GPL-2.0-or-later
# tpactivate's key options and key directory setting (tpactivate(8)
# "Encrypted volumes", tptools.conf(5) crypt/key_dir), checked before
# anything is opened or loaded, so they hold on any host; the unlocking
# itself runs on the real kernel (test/vm/s-encrypt.sh).
DATA_SIZE=128M META_SIZE=16M
new_pool vault
ok tvcreate -V 1G -n www vault
# --key-file: for one pool's volumes, never for --all/--auto, never for
# tpdeactivate; refused before anything is read or loaded
printf 'secret' >k
usage_error tpactivate --key-file k --all
err_has "not with --all"
usage_error tpactivate --key-file k --auto vault
err_has "not with --auto"
usage_error tpdeactivate --key-file k vault
err_has "key-file"
usage_error tpactivate --key-file '' vault www
err_has "needs a FILE"
# a key that cannot be had is the input that is wrong, before the pool is opened
unchanged 3 tpactivate --key-file nosuch vault www
err_has "nosuch"
: >empty
unchanged 3 tpactivate --key-file empty vault www
usage_error tpactivate --key-file k --key-keyring tp:none vault www
tpdeactivate --help >help.txt
! grep -q -- "--key-file" help.txt || fail "tpdeactivate --help offers --key-file"
tpactivate --help >help.txt
grep -q -- "--key-file" help.txt || fail "tpactivate --help lacks --key-file"
# the key directory is a setting: an absolute path
printf 'crypt {\n key_dir = "keys"\n}\n' >"$TPTOOLS_DIR/tptools.conf"
usage_error tpactivate vault
err_has "crypt/key_dir"
printf 'crypt {\n key_dir = "/etc/tptools/keys"\n}\n' >"$TPTOOLS_DIR/tptools.conf"
ok tpconfig crypt/key_dir
out_has "/etc/tptools/keys"
rm -f "$TPTOOLS_DIR/tptools.conf"
