# SPDX-License-Identifier: GPL-2.0-or-later
# Repair converges (tptools(7) REPAIR, tpcheck(8)): from each state
# tpcheck calls damaged, following its next: lines alone reaches a clean
# pool, or a loss the commands reported, in at most three commands. The
# follower is mechanical: it takes the first quoted command of the next:
# line, puts a new image where it says DEV, runs it (no terminal, no
# --yes), checks again. tprepair agrees with tpcheck: where the next: line
# names another command, tprepair says the same (exit 5, nothing written)
# instead of "clean".
# Scenarios: garbage over the top-level mapping tree's root of a pool
# with snapshots (a salvage that loses a volume, then tvremove of it,
# which works on a volume whose thin device is gone); a volume whose thin
# device sound thin metadata lacks; a thin device no volume uses; an
# orphan label left by a tpreduce --data and one by a tpextend --data
# (killed); a lost label; a VG slot damaged, and another pool's VG area
# copied over a device's; a missing second and a missing first leg of
# mirrored thin metadata; a missing data device (whose next: line says to
# attach it, and tprepair refuses with the same words).
DATA_SIZE=256M META_SIZE=32M
newdev() {	# a fresh image for a DEV of a next: line (run in $(...))
	local f
	f=$(mktemp -p "$PWD" newXXXXXX.img)
	truncate -s 32M "$f"
	echo "$f"
}

# follow POOL: run tpcheck's next: commands until it is clean; fail after
# three. The commands run go to follow.log; their count to ./followed.
follow() {
	local pool=$1 n=0 cmd rc
	: >follow.log
	while :; do
		tpcheck "$pool" >out 2>err && rc=0 || rc=$?
		case $rc in
		0) out_has "$pool: clean"; echo "$n" >followed; return 0 ;;
		1 | 2) ;;
		*) cat out err >&2; fail "tpcheck $pool exited $rc" ;;
		esac
		cmd=$(sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p" out | head -1)
		[ -n "$cmd" ] || { cat out >&2; fail "tpcheck $pool: no command in its next: line"; }
		n=$((n + 1))
		[ $n -le 3 ] || { cat follow.log out >&2; fail "$pool: not clean after 3 commands"; }
		[ "${cmd#*DEV}" = "$cmd" ] || cmd=${cmd//DEV/$(newdev)}
		echo "\$ $cmd" >>follow.log
		eval "$cmd" </dev/null >>follow.log 2>&1 ||
			{ cat out follow.log >&2; fail "'$cmd' (from tpcheck's next: line) failed"; }
	done
}

# 1. garbage over the top-level mapping tree's root, snapshots sharing
# it: the salvage (found by scanning) cannot save bs, reports it lost;
# tvremove takes it out of the VG; clean in two commands
new_pool rp --chunk 64K
ok tvcreate -V 64M -n a rp
ok tvcreate -V 64M -n b rp
write_chunks rp a 0 8
write_chunks rp b 0 8
ok tvsnap rp/a -n as
ok tvsnap rp/b -n bs
save_area rp area.img
root=$(tp-damage area.img root mapping)
read -r off len < <(meta_area rp)
head -c 4096 /dev/urandom | dd of=rp-meta.img bs=4096 seek=$((off / 4096 + root)) \
	conv=notrunc status=none
expect_rc 2 tpcheck rp
out_has "next: run 'tprepair rp' to salvage"
follow rp
grep -q '^\$ tprepair rp$' follow.log || fail "no salvage: $(cat follow.log)"
grep -q "volume .* was lost" follow.log || fail "the salvage reported no loss: $(cat follow.log)"
lost=$(sed -n "s/.*volume \([a-z]*\) (thin device [0-9]*) was lost.*/\1/p" follow.log | head -1)
grep -q "^\\\$ tvremove rp/$lost\$" follow.log || fail "lost $lost not removed: $(cat follow.log)"
[ "$(cat followed)" = 2 ] || fail "rp: $(cat followed) commands, not 2"
[ -z "$(vol_field rp "$lost" vol_name)" ] || fail "volume $lost is still listed"
# the others read what was written (the data is unchanged by the repair)
for v in a b; do
	[ "$v" = "$lost" ] && continue
	rm -f "$v.got"
	ok tpsend --format raw -o "$v.got" "rp/$v"
	cmp -n "$(stat -c %s "$v.want")" "$v.want" "$v.got" || fail "volume $v reads other bytes"
done

# 2. a volume whose thin device sound thin metadata lacks (an earlier
# salvage lost it): tpcheck names tvremove, tprepair says the same and
# writes nothing (it used to salvage again and again)
new_pool lv --chunk 64K
ok tvcreate -V 8M -n keep lv
ok tvcreate -V 8M -n gone lv
write_chunks lv keep 0 3
id=$(vol_dev_id lv gone)
save_area lv area.img
thin_dump area.img | awk -v id="$id" '
	/<device dev_id="/ { d = $0; sub(/.*dev_id="/, "", d); sub(/".*/, "", d); skip = d == id }
	!skip { print }
	skip && /<\/device>/ { skip = 0 }' >lv.xml
thin_restore -q -i lv.xml -o area.img || fail "thin_restore refused"
load_area lv area.img
expect_rc 2 tpcheck lv
out_has "volume gone: thin device $id is missing from the thin metadata (its data is lost)"
out_has "next: run 'tvremove lv/gone' to remove the volume whose thin device was lost"
unchanged 5 tprepair lv
err_has "what is left: run 'tvremove lv/gone'"
follow lv
[ "$(cat followed)" = 1 ] || fail "lv: $(cat followed) commands"
rm -f keep.got
ok tpsend --format raw -o keep.got lv/keep
cmp -n 196608 keep.want keep.got || fail "volume keep reads other bytes"

# 3. a thin device no volume uses
new_pool st
ok tvcreate -V 8M -n v st
save_area st area.bin
ok tp-thinmap --create area.bin 9 0 4
load_area st area.bin
follow st
[ "$(cat followed)" = 1 ] || fail "st: $(cat followed) commands"

# 4. orphan labels: a tpreduce --data and a tpextend --data killed
image od.img 32M
image om.img 16M
image ox.img 32M
image oy.img 32M
ok tpcreate --data od.img --meta om.img --chunk 64K op
ok tpextend --data ox.img op
killed_at xdata-dropped tpreduce --data ox.img op
follow op
[ "$(cat followed)" = 1 ] || fail "op (reduce): $(cat followed) commands"
killed_at xdata-labelled tpextend --data oy.img op
follow op
[ "$(cat followed)" = 1 ] || fail "op (extend): $(cat followed) commands"

# 5. a lost label (the data device's sector 1 zeroed)
new_pool ll
ok tvcreate -V 8M -n v ll
dd if=/dev/zero of=ll-data.img bs=512 seek=1 count=1 conv=notrunc status=none
follow ll
[ "$(cat followed)" = 1 ] || fail "ll: $(cat followed) commands"

# 6. a damaged VG slot; another pool's VG area copied over the metadata
# device's (its slots carry the other pool's uuid: never read as ours)
new_pool vs
ok tvcreate -V 8M -n v vs
ok tp-vgtool damage vs-meta.img newest text
follow vs
[ "$(cat followed)" = 1 ] || fail "vs: $(cat followed) commands"
new_pool fo
dd if=fo-meta.img of=vs-meta.img bs=4096 skip=1 seek=1 count=255 conv=notrunc status=none
expect_rc 1 tpcheck vs
out_has "VG metadata slot .* is damaged"
[ "$(vol_field vs v vol_name)" = v ] || fail "pool vs read another pool's VG"
follow vs
[ "$(cat followed)" = 1 ] || fail "vs (foreign area): $(cat followed) commands"
ok tp-vgtool slots vs-meta.img
out_lacks corrupt

# 7. mirrored thin metadata: a missing second leg, then a missing first
image md.img 64M
image ma.img 16M
image mb.img 16M
ok tpcreate --data md.img --meta ma.img,mb.img --chunk 64K mm
ok tvcreate -V 8M -n v mm
mv mb.img mb.away
expect_rc 1 tpcheck mm
out_has "next: run 'tpchange --meta-replace DEV mm'"
out_lacks "tprepair fixes it"
unchanged 5 tprepair mm
err_has "what is left: run 'tpchange --meta-replace DEV mm'"
follow mm
[ "$(cat followed)" = 1 ] || fail "mm (leg 1): $(cat followed) commands"
mv ma.img ma.away
expect_rc 1 tpcheck mm
out_has "next: run 'tpchange --meta-replace DEV mm' to put the metadata mirror's missing leg 0"
follow mm
[ "$(cat followed)" = 1 ] || fail "mm (leg 0): $(cat followed) commands"

# 8. a missing data device: the next: line says to attach it (data device
# 2: its place, as tpextend and --devices-report number it), and, if it
# is lost for good, names tpreduce --missing (with --force and the loss
# when the volumes map chunks on it); tprepair refuses with the same
# words. Attached again, the pool is clean; lost for good, following the
# line takes it away, the loss reported, in one command.
image xd.img 32M
image xm.img 16M
image xx.img 32M
ok tpcreate --data xd.img --meta xm.img --chunk 64K mx
ok tpextend --data xx.img mx
mv xx.img xx.away
expect_rc 2 tpcheck mx
out_has "data device 2 (device uuid .*, last seen at $PWD/xx.img) is missing"
out_has "next: attach the missing data device 2 (device uuid .*, last seen at $PWD/xx.img), then check again; if it is lost for good, run 'tpreduce --missing mx' to take it away (no volume maps a chunk on it)"
unchanged 5 tprepair mx
err_has "its data device 2 (device uuid .*) is missing; tprepair writes no pool"
err_has "then check again; if it is lost for good, run 'tpreduce --missing mx'"
err_lacks "clean"
mv xx.away xx.img
follow mx
[ "$(cat followed)" = 0 ] || fail "mx: $(cat followed) commands"
# lost for good, with chunks of a volume and its snapshot on it
head -c 40M /dev/urandom >m.want
ok tprecv --format raw -n m mx <m.want
ok tvsnap mx/m -n ms
mv xx.img xx.away
expect_rc 2 tpcheck mx
out_has "only if it is lost for good, run 'tpreduce --missing --force mx' to take it away: the [0-9]* chunks the volumes map on it are lost"
unchanged 5 tpreduce --missing mx
err_has "its missing data device holds chunks the volumes map (m: [0-9]* chunks, ms: [0-9]* chunks)"
follow mx
[ "$(cat followed)" = 1 ] || fail "mx (lost): $(cat followed) commands"
grep -q "^lost: volume mx/m: [0-9]* chunks on it, which now read as zeros" follow.log ||
	fail "the loss was not reported: $(cat follow.log)"
# what was on the first device reads the same, the rest as zeros
first=$(pool_bytes mx pool_size)
rm -f m.got
ok tpsend --format raw -o m.got mx/m
cmp -n "$first" m.want m.got || fail "volume m's chunks on the first device changed"
cmp -i "$first" -n $((40 * 1048576 - first)) m.got /dev/zero ||
	fail "volume m's lost chunks do not read as zeros"
thin_check_pool mx
# the device that comes back carries an orphan label; named, it is told so
mv xx.away xx.img
unchanged 5 tpcreate --data xx.img --meta xm.img other
err_has "xx.img carries an orphan label of pool mx (a data device the pool let go"
