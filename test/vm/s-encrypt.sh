#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Encrypted volumes on the real kernel (issue 39, tpactivate(8) "Encrypted
# volumes"): volumes made with tvcreate --encrypt (offline), unlocked by
# tpactivate as dm-crypt over their hidden thin devices. A volume without
# a key is left locked with one line while the others come up (exit 5); a
# wrong key is refused and leaves it locked while another volume
# activates; the key directory's files are used only when private; the
# dm-crypt table is the one cryptsetup's own header dump gives (cipher,
# volume key, offset); ext4 with checksummed files survives lock/unlock
# and reads back through cryptsetup from the raw export; a snapshot
# unlocks with its origin's key (key file and key directory); tvresize
# moves the crypt device with its thin device; discards reach the pool
# only with --allow-discards (fstrim and the pool's mapped count); fio
# throughput of an encrypted against a plain volume (printed, never
# asserted); tpactivate killed with SIGKILL between the thin device and
# the crypt device is finished by the next tpactivate and undone by the
# next tpdeactivate; with udevd, /dev/POOL/VOL is the crypt device and
# the hidden thin device gets no link.
# vm-timeout: 900
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 2 -e -k dm-crypt -k xts -k loop -k ext4
command -v cryptsetup >/dev/null || skip_scenario "no cryptsetup on the host"
DATA=${disks[0]} META=${disks[1]}
P=vault
# libcryptsetup's default PBKDF (argon2id, 1 GiB) would take minutes and
# most of the guest's memory under emulation: a cheap one for the test
KDF=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)
printf 'correct horse battery staple' >key
printf 'not the passphrase' >bad
chmod 600 key bad

dev() { echo "/dev/mapper/$P-$1"; }
dm_uuid() { dmsetup info -c --noheadings -o uuid "$1" 2>/dev/null; }
dm_type() { dmsetup table "$1" 2>/dev/null | awk '{ print $3; exit }'; }
loaded() { dmsetup info "$1" >/dev/null 2>&1; }
# the thin device's mapped sectors (its status: mapped highest)
mapped() { dmsetup status "$1" | awk '{ print $4 }'; }
# the pool's used data blocks
pool_used() { dmsetup status "$P-tpool" | awk '{ split($6, a, "/"); print a[1] }'; }
unlocked() { # VOL: dm-crypt over the hidden thin device, our uuids
	local v=$1
	[ "$(dm_type "$P-$v")" = crypt ] || { note_fail "$P-$v is not a crypt device"; return; }
	[ "$(dm_type "$P-$v-luks")" = thin ] || { note_fail "$P-$v-luks is not a thin device"; return; }
	case $(dm_uuid "$P-$v") in TPTOOLS-*-crypt[0-9]*) ;; *) note_fail "$P-$v uuid $(dm_uuid "$P-$v")" ;; esac
	case $(dm_uuid "$P-$v-luks") in TPTOOLS-*-thin[0-9]*) ;; *) note_fail "$P-$v-luks uuid" ;; esac
	expect_eq "tpstatus vol_unlocked of $v" "$(vol_unlocked "$v")" yes
}
locked() { # VOL: nothing of it loaded
	if loaded "$P-$1" || loaded "$P-$1-luks"; then note_fail "$1 is not locked"; fi
	expect_eq "tpstatus vol_unlocked of locked $1" "$(vol_unlocked "$1")" no
}
# tpstatus's vol_unlocked of VOL
vol_unlocked() { tpstatus --noheadings -o vol_unlocked "$P/$1" | awk 'NF { print $1; exit }'; }

step "encrypted volumes made offline, a plain one"
must tpcreate --data "$DATA" --meta "$META" --chunk 64k "$P"
must tvcreate --encrypt --key-file key "${KDF[@]}" -V 64M -n sec "$P"
must tvcreate --encrypt --key-file key "${KDF[@]}" --allow-discards -V 64M -n secd "$P"
must tvcreate -V 64M -n plain "$P"

step "no key anywhere: both encrypted volumes left locked, one line each, the plain one up"
tpactivate "$P" >out 2>err
expect_eq "tpactivate without keys: exit" "$?" 5
cat out err
expect_eq "lines naming a locked volume" "$(grep -c 'left locked: unlock it with' err)" 2
expect_eq "lines on stderr" "$(grep -c . err)" 2
check grep -q "volume sec is encrypted and has no key" err
check grep -q "'tpactivate --key-file FILE $P sec'" err
check grep -q "2 encrypted volume(s) left locked" out
check loaded "$P-plain"
locked sec
locked secd

step "a wrong key: refused, sec stays locked, the plain volume goes on"
must tpdeactivate "$P" plain
tpactivate --key-file bad "$P" sec plain >out 2>err
expect_eq "wrong key: exit" "$?" 5
cat err
check grep -q "no key opened any of its keyslots (tried bad); left locked" err
expect_eq "lines of the wrong key" "$(grep -c . err)" 1
locked sec
check loaded "$P-plain"

step "the right key: /dev/mapper/$P-sec is dm-crypt over $P-sec-luks"
must tpactivate --key-file key "$P" sec
unlocked sec
# the table is what cryptsetup makes of the header: cipher, volume key,
# iv offset 0, the thin device, the payload offset
hdr=$(cryptsetup luksDump --dump-volume-key -q --key-file key "$(dev sec-luks)" 2>/dev/null)
[ -n "$hdr" ] || hdr=$(cryptsetup luksDump --dump-master-key -q --key-file key "$(dev sec-luks)")
vkey=$(awk '/^(MK dump|Volume key):/ { on = 1; sub(/^[^:]*:/, ""); gsub(/[ \t]/, ""); printf "%s", $0; next }
	on && /^[ \t]/ { gsub(/[ \t]/, ""); printf "%s", $0; next } { on = 0 }' <<<"$hdr")
cipher=$(cryptsetup luksDump "$(dev sec-luks)" | awk '/cipher:/ { print $2; exit }')
offset=$(cryptsetup luksDump "$(dev sec-luks)" | awk '/offset:/ && /bytes/ { print $2 / 512; exit }')
thin=$(dmsetup info -c --noheadings -o major,minor "$P-sec-luks" | tr -d ' ')
table=$(dmsetup table --showkeys "$P-sec")
echo "luksDump: cipher $cipher offset $offset key ${#vkey} hex digits"
expect_eq "crypt table" "$(cut -d' ' -f4-8 <<<"$table")" "$cipher $vkey 0 $thin $offset"
not grep -q allow_discards <<<"$table"
must tpactivate --key-file key "$P" secd
check grep -q allow_discards <<<"$(dmsetup table "$P-secd")"

step "ext4 with checksummed files, locked and unlocked again"
must mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$(dev sec)"
mkdir -p mnt
must mount "$(dev sec)" mnt
must dd if=/dev/urandom of=mnt/a bs=1M count=8 status=none
# a plaintext marker the ciphertext must not show
perl -e 'print "TPTOOLS-PLAINTEXT-MARKER-0123456789\n" x 20000' >mnt/marker
mkdir mnt/dir
for i in $(seq 20); do head -c $((i * 1000)) /dev/urandom >"mnt/dir/f$i"; done
(cd mnt && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums
must umount mnt
must tpdeactivate "$P" sec
locked sec
must tpactivate --key-file key "$P" sec
unlocked sec
must fsck.ext4 -fn "$(dev sec)"
must mount -o ro "$(dev sec)" mnt
check bash -c "cd mnt && sha256sum --quiet -c ../sums"

step "the raw export is LUKS2 that cryptsetup opens: same files, same table, no plaintext"
must umount mnt
must tpdeactivate "$P"
must tpsend --format raw -o raw.img "$P/sec"
check cryptsetup isLuks raw.img
not grep -q TPTOOLS-PLAINTEXT-MARKER raw.img
must cryptsetup open --readonly --key-file key raw.img cmp-raw
expect_eq "optional args of the crypt table (cryptsetup's, ours)" \
	"$(dmsetup table cmp-raw | cut -d' ' -f9-)" "$(cut -d' ' -f9- <<<"$table")"
must fsck.ext4 -fn /dev/mapper/cmp-raw
must mount -o ro /dev/mapper/cmp-raw mnt
check bash -c "cd mnt && sha256sum --quiet -c ../sums"
must umount mnt
must cryptsetup close cmp-raw
rm -f raw.img
must tpactivate --key-file key "$P" sec secd plain
unlocked sec

step "the key directory: used only when private"
mkdir -p "$TPTOOLS_DIR/keys/$P"
cp key "$TPTOOLS_DIR/keys/$P/sec"
chmod 644 "$TPTOOLS_DIR/keys/$P/sec"
must tpdeactivate "$P" sec
tpactivate "$P" sec 2>err
expect_eq "a key file open to others: exit" "$?" 5
check grep -q "open to group or others (mode 0644); not used" err
locked sec
chmod 600 "$TPTOOLS_DIR/keys/$P/sec"
must tpactivate "$P" sec
unlocked sec

step "tpactivate --all: sec from the key directory, secd left locked, the others up"
must tpdeactivate "$P"
tpactivate --all >out 2>err
expect_eq "--all with a volume without key: exit" "$?" 5
cat out err
check grep -q "1 encrypted volume(s) left locked" out
unlocked sec
locked secd
check loaded "$P-plain"

step "a snapshot unlocks with its origin's key (directory and --key-file)"
must mount "$(dev sec)" mnt
must dd if=/dev/urandom of=mnt/b bs=1M count=2 conv=fsync status=none
(cd mnt && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums
# live snapshot of a mounted, unlocked volume: its crypt device frozen
must tvsnap -n snap1 "$P/sec"
must umount mnt
# no key file of its own: its origin's, which shares its header
must tpactivate "$P" snap1
unlocked snap1
must fsck.ext4 -fn "$(dev snap1)"
must tpdeactivate "$P" snap1
locked snap1
rm "$TPTOOLS_DIR/keys/$P/sec"
tpactivate "$P" snap1 2>err
expect_eq "a snapshot without any key: exit" "$?" 5
locked snap1
must tpactivate --key-file key "$P" snap1
unlocked snap1
must mount -o ro "$(dev snap1)" mnt
check bash -c "cd mnt && sha256sum --quiet -c ../sums"
must umount mnt

step "tvresize: the crypt device follows its thin device"
before=$(blockdev --getsize64 "$(dev sec)")
must tvresize -V 96M "$P/sec"
after=$(blockdev --getsize64 "$(dev sec)")
expect_eq "crypt device grew by" "$((after - before))" $((32 << 20))
expect_eq "thin device" "$(blockdev --getsize64 "$(dev sec-luks)")" $((96 << 20))
# a size that ends inside an encryption sector is refused (tvresize(8):
# exit 3 naming the nearest valid sizes), both devices as they were
ss=$(cryptsetup luksDump "$(dev sec-luks)" | awk '/sector:/ { print $2; exit }')
if [ "$ss" -gt 512 ]; then
	tvresize -V $((96 * 2048 + 4))s "$P/sec" && fail "tvresize inside a $ss-byte sector was taken"
	expect_eq "thin device after the refused resize" "$(blockdev --getsize64 "$(dev sec-luks)")" $((96 << 20))
	expect_eq "crypt device after the refused resize" "$(blockdev --getsize64 "$(dev sec)")" "$after"
fi
must resize2fs -f "$(dev sec)" >/dev/null 2>&1
must fsck.ext4 -fn "$(dev sec)"
must mount -o ro "$(dev sec)" mnt
check bash -c "cd mnt && sha256sum --quiet -c ../sums"
must umount mnt

step "discards: reach the pool through --allow-discards only"
must tpactivate --key-file key "$P" secd
must mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$(dev secd)"
for v in sec secd; do
	must mount "$(dev $v)" mnt
	must dd if=/dev/urandom of=mnt/fill bs=1M count=16 conv=fsync status=none
	sync
	m1=$(mapped "$P-$v-luks") u1=$(pool_used)
	rm mnt/fill
	sync
	fstrim -v mnt >trim.out 2>&1
	trc=$?
	sync
	m2=$(mapped "$P-$v-luks") u2=$(pool_used)
	echo "ENC DISCARD $v: fstrim rc $trc ($(cat trim.out)); mapped sectors $m1 -> $m2, pool blocks $u1 -> $u2"
	if [ "$v" = secd ]; then
		expect_eq "fstrim on secd" "$trc" 0
		[ "$m2" -lt "$m1" ] && [ "$u2" -lt "$u1" ] ||
			note_fail "secd: discards did not reach the pool ($m1 -> $m2, $u1 -> $u2)"
	else
		# nothing given back (ext4 may still map more meanwhile)
		[ "$m2" -ge "$m1" ] && [ "$u2" -ge "$u1" ] ||
			note_fail "sec: blocks given back without --allow-discards ($m1 -> $m2, $u1 -> $u2)"
	fi
	must umount mnt
done

step "fio: encrypted against plain, one run (printed, not asserted)"
# room in the 127 MiB pool: the snapshot goes, and fio writes 16 MiB to
# each volume (the discards above gave secd's blocks back), then reads it
must tpdeactivate "$P" snap1
must tvremove "$P/snap1"
if command -v fio >/dev/null; then
	bw() { # DEV RW: KiB/s
		fio --name=t --filename="$1" --rw="$2" --bs=1M --size=16M --direct=1 \
			--ioengine=psync --output-format=json 2>/dev/null |
			perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
				print $j->{jobs}[0]{$ARGV[0]}{bw}, "\n"' "$2"
	}
	for rw in write read; do
		e=$(bw "$(dev secd)" "$rw") p=$(bw "$(dev plain)" "$rw")
		echo "ENC FIO $rw: encrypted $e KiB/s, plain $p KiB/s, ratio $(awk -v e="$e" -v p="$p" 'BEGIN { if (p > 0) printf "%.2f", e / p; else print "n/a" }')"
	done
else
	echo "ENC FIO: no fio"
fi

step "SIGKILL between the thin device and the crypt device"
must tpdeactivate "$P" sec
rm -f pause
TP_TEST_PAUSE=unlock-thin-loaded TP_TEST_PAUSE_FILE=$PWD/pause \
	tpactivate --key-file key "$P" sec 2>killed.err &
pid=$!
if wait_file pause "$pid"; then
	kill -9 "$pid"
	wait "$pid"
	rm -f pause
	check loaded "$P-sec-luks"
	not loaded "$P-sec"
	must tpactivate --key-file key "$P" sec
	unlocked sec
	must tpdeactivate "$P" sec
else
	note_fail "tpactivate did not reach the pause: $(cat killed.err)"
fi
TP_TEST_PAUSE=unlock-thin-loaded TP_TEST_PAUSE_FILE=$PWD/pause \
	tpactivate --key-file key "$P" sec 2>killed.err &
pid=$!
if wait_file pause "$pid"; then
	kill -9 "$pid"
	wait "$pid"
	rm -f pause
	must tpdeactivate "$P" sec
	locked sec
else
	note_fail "tpactivate did not reach the pause: $(cat killed.err)"
fi
must tpactivate --key-file key "$P" sec
must fsck.ext4 -fn "$(dev sec)"

step "udev: /dev/$P/sec is the crypt device, the thin device has no link"
UDEVD=/lib/systemd/systemd-udevd
if [ -x "$UDEVD" ] && [ -f /lib/udev/rules.d/95-dm-notify.rules ]; then
	must tpdeactivate "$P"
	mkdir -p /run/udev/rules.d
	cp "$TP_SRC/udev/56-dm-tptools.rules" /run/udev/rules.d/
	must "$UDEVD" --daemon --resolve-names=never
	for ((i = 0; i < 100; i++)); do [ -S /run/udev/control ] && break; sleep 0.1; done
	(
		unset DM_DISABLE_UDEV
		must tpactivate --key-file key "$P" sec plain
	)
	for ((i = 0; i < 600; i++)); do [ -e /run/udev/queue ] || break; sleep 0.1; done
	expect_eq "/dev/$P/sec" "$(readlink -f /dev/$P/sec)" "$(readlink -f "$(dev sec)")"
	check test -e "/dev/$P/plain"
	not test -e "/dev/$P/sec-luks"
	ls -l "/dev/$P/" || true
	not bash -c "ls -l /dev/disk/by-uuid/ 2>/dev/null | grep -q \"$(basename "$(readlink -f "$(dev sec-luks)")")\$\""
	(
		unset DM_DISABLE_UDEV
		must tpdeactivate "$P"
	)
	# asked to exit (guest.sh stops one that stays, after the scenario)
	SYSTEMD_IGNORE_CHROOT=1 timeout 15 udevadm control --exit 2>/dev/null || true
	rm -rf /run/udev/rules.d
else
	echo "no systemd-udevd or dm rules: udev part skipped"
	must tpdeactivate "$P"
fi

step "pool inactive: nothing of it loaded, tpcheck clean"
expect_eq "devices left" "$(dmsetup ls | grep -c "^$P-")" 0
must tpcheck "$P"
finish
