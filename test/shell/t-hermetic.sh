# SPDX-License-Identifier: GPL-2.0-or-later
# Hermetic tests (lib/base/devfilter.h, the test build's scan root): a pool
# on block devices of the host that are not the test's own is neither seen
# nor touched. test/shell/run.sh confines each test to the loop devices of
# images in its own directory (TP_TEST_SCAN_ROOT); here a pool "lp" is made
# on two loop devices of images elsewhere (another directory, another
# config dir: the host's pool), and every way a command finds pools passes
# it by: the label scan (tpactivate --all, tpcheck and tpstatus by name,
# tprename's check of the names in use), and naming its device
# (tpcreate, tpremove --label, tpcheck --devices) is refused. Its images
# are byte-for-byte unchanged. The same commands with the scan root on
# that directory do find it, so what is proved is the confinement.
have losetup || skip "no losetup"
# the test's own pool, on loop devices of its own images (their EXIT trap
# detaches them, and lp's too: loops)
loop_images d d.img 64M m m.img 16M
ok tpcreate -q --data "$d" --meta "$m" --chunk 64k own
outside=$(mktemp -d "${TMPDIR:-/tmp}/tp-outside.XXXXXX")
trap 'loops_detach; rm -rf "$outside"' EXIT
truncate -s 64M "$outside/lp-d.img"
truncate -s 16M "$outside/lp-m.img"
loop_attach ld "$outside/lp-d.img"
loop_attach lm "$outside/lp-m.img"
# the host's pool, made by the host's tptools (its own config dir)
host_tp() { TPTOOLS_DIR=$outside/etc TP_TEST_SCAN_ROOT=$outside "$@"; }
host_tp tpcreate -q --data "$ld" --meta "$lm" --chunk 64k lp >out 2>err ||
	{ cat err >&2; fail "the host's pool lp was not made"; }
host_tp tvcreate -q -V 16M -n v lp >out 2>err || { cat err >&2; fail "no volume lp/v"; }
before=$(sums "$outside/lp-d.img" "$outside/lp-m.img")

# the label scan passes lp by
expect_rc 5 tpcheck lp
err_lacks "$ld"
err_lacks "$lm"
ok tpstatus
out_lacks "lp"
ok tpstatus own
expect_rc_any() { "$@" >out 2>err || true; }
expect_rc_any tpactivate --all
grep -q "lp" out err && { cat out err >&2; fail "tpactivate --all saw the host's pool lp"; }
ok tprename own lp
ok tprename lp own
# naming its devices is refused, before anything is written
image m2.img 16M
unchanged 3 tpcreate --data "$ld" --meta m2.img --chunk 64k x
err_has "$ld is excluded"
expect_rc 3 tpremove -y --label "$lm"
err_has "$lm is excluded"
expect_rc 3 tpcheck --devices "$ld,$lm" lp
err_has "is excluded"
[ "$(sums "$outside/lp-d.img" "$outside/lp-m.img")" = "$before" ] ||
	fail "the host's pool lp was written by a test"

# the proof that it is the confinement: with the scan root on lp's
# directory its label is found by name (its config dir does not list it)
TP_TEST_SCAN_ROOT=$outside ok tpcheck lp
TP_TEST_SCAN_ROOT=$outside ok tpstatus lp
out_has "lp"
