# SPDX-License-Identifier: GPL-2.0-or-later
# Live or offline, failing closed (issue 12): this host has no
# device-mapper, so a pool is offline unless a device of it is held. A
# block device held exclusively (as the kernel's thin-pool target, a mount
# or an md array holds it) while none of the pool's kernel devices is
# loaded is not "offline": every command refuses the pool with exit 5 and
# a message, writing nothing; once released, all works again.
have losetup || skip "no losetup"
image ld.img 128M
image lm.img 16M
holder=
cleanup() {
	rm -f held
	[ -z "$holder" ] || wait "$holder" 2>/dev/null || true
	loops_detach
}
trap cleanup EXIT
loop_attach ld ld.img
loop_attach lm lm.img

# hold DEV: hold it exclusively in the background until release
hold() {
	tp-hold "$1" held & holder=$!
	wait_until "$holder" test -e held || fail "tp-hold $1 did not start"
}
release() { rm -f held; wait "$holder"; holder=; }

ok tpcreate --data "$ld" --meta "$lm" blk
ok tvcreate -V 64M -n v blk
ok tpstatus --noheadings --units b -o pool_spare_offset,pool_meta_length blk
read -r spare len < <(awk 'NF == 2 { sub("b", "", $1); sub("b", "", $2); print; exit }' out)
ok tpdump blk
cp out blk.xml

for dev in "$lm" "$ld"; do
	hold "$dev"
	sync
	for cmd in "tpremove -y blk" "tprepair blk" "tpcheck blk" "tvcreate -V 8M -n w blk" \
		"tvsnap blk/v -n s" "tvremove -y blk/v" "tpstatus blk" "tpactivate blk" \
		"tpextend blk" "tpreduce --size 64M blk"; do
		# shellcheck disable=SC2086
		unchanged 5 $cmd
		err_has "is held by the kernel or another program"
		err_has "none of the pool's own kernel devices is loaded"
	done
	release
done

# tprestore into the spare area of the held metadata device: refused too
hold "$lm"
unchanged 5 tprestore -i blk.xml -o "$lm" --offset "$spare" --size "$len"
release

# released: every command works again, the pool as it was
ok tpcheck blk
ok tpstatus -o vol_name blk
out_has "v"
ok tvsnap blk/v -n s
ok tpremove -y blk
out_has "removed"
