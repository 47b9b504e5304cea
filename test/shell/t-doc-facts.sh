# SPDX-License-Identifier: GPL-2.0-or-later
# What the man pages state about behaviour, checked: --metadata-size
# without a unit is MiB (tpcreate(8)); tpcreate --force erases the
# signatures it found, an ext4 superblock included (tpcreate(8));
# tpremove --force forgets a pool whose device is lost (tpremove(8));
# no page says tpreduce takes only the last data device.

# --metadata-size 64 = 64 MiB, as the page says
image d.img 4G
image m.img 512M
ok tpcreate --data d.img --meta m.img --metadata-size 64 p
ok tpstatus --noheadings -o pool_meta_length p
[ "$(tr -d ' ' <out)" = $((64 << 20)) ] || fail "--metadata-size 64 is not 64 MiB: $(cat out)"
grep -q "is in megabytes (MiB)" "$TOP/man/tpcreate.8" || fail "tpcreate(8) states another unit"
ok tpremove -y p

# the 10M-mapping tpcheck time: one figure, in README.md and tpcheck(8),
# and a measured one (bench/check.md)
readme=$(sed -n 's/^| tpcheck | \([0-9.]*\) s |.*/\1/p' "$TOP/README.md")
page=$(sed -n 's/^full check took \([0-9.]*\) s .*/\1/p' "$TOP/man/tpcheck.8")
[ -n "$readme" ] && [ -n "$page" ] || fail "no 10M tpcheck time found: README '$readme', tpcheck.8 '$page'"
[ "$readme" = "$page" ] || fail "10M tpcheck time: README says $readme s, tpcheck(8) $page s"
grep -q "| $readme s / [0-9.]* s / [0-9.]* MiB | [0-9.]*x |" "$TOP/bench/check.md" ||
	fail "bench/check.md has no tpcheck run of $readme s"

# tpreduce takes any emptied data device, the first one too
# (t-pool-reduce-first proves it): no page says it takes only the last
python3 - "$TOP"/man/*.[578] <<'PY' || fail "a page says tpreduce takes only the last data device"
import re, sys
bad = 0
for f in sys.argv[1:]:
    text = re.sub(r"\\f[BIRP]|\\-|^\.[A-Z]+ ?", "", open(f).read(), flags=re.M)
    text = " ".join(text.split())
    for m in re.finditer(r"tpreduce[^.;]{0,120}?\blast\b[^.;]{0,40}?device", text):
        print(f"{f}: {m.group(0)}")
        bad = 1
sys.exit(bad)
PY
grep -q "the first one too" "$TOP/man/tpreduce.8" || fail "tpreduce(8) no longer says the first device goes too"

# --force erases an ext4 signature
have mkfs.ext4 && have blkid || skip "mkfs.ext4 or blkid not installed"
image fs.img 1G
mkfs.ext4 -q -F fs.img
failed tpcreate --data fs.img --meta m.img fs
err_has "ext4"
ok tpcreate --data fs.img --meta m.img --force -y fs
! blkid -p fs.img >/dev/null 2>&1 || fail "the ext4 signature survived --force: $(blkid -p fs.img)"
grep -q "erases every signature" "$TOP/man/tpcreate.8" || fail "tpcreate(8) says otherwise"

# tpremove --force forgets a pool whose metadata device is lost
rm m.img
failed tpremove -y fs
ok tpremove --force -y fs
out_has "Pool fs forgotten."
failed tpstatus fs
image m.img 64M
ok tpcreate --data fs.img --meta m.img fs
