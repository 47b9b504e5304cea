#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replication of an encrypted volume without its key (issue 39, tpsend(8),
# tprecv(8) "encrypted", tpactivate(8) "Encrypted volumes"), on the real
# kernel: an encrypted volume unlocked from the source host's key
# directory, ext4 with checksummed files and a plaintext marker
# (crypt_marker); a read-only snapshot s1 sent in full from the live pool,
# the stream an encrypted one that carries no byte of the marker; more
# writes with a second marker, snapshot s2, an incremental stream s1 -> s2
# checked the same way (and smaller than the full one). Both received into
# a second pool whose host configuration (a TPTOOLS_DIR of its own, no key
# directory, no key file entry) holds no key: the received volumes are
# encrypted, carry the source's LUKS2 uuid, and stay locked at tpactivate
# with one line each (exit 5); --key-file unlocks them there, fsck -n finds
# the ext4 clean and every file has the checksums written on the source.
# Then tvcreate --encrypt on the active pool (tvcreate(8) "Encrypted
# volumes"): unlocked at once with the key given, its header's uuid the
# VG's, ext4 across lock and unlock; killed with SIGKILL at each step
# (thin device made, header being written, header flushed) it is no volume,
# tpstatus names the unfinished receive and tprecv --abort drops it with
# its temporary device; SIGTERM while the header is written: exit 143 and
# nothing left; the name is free again after each.
. "$TP_SRC/test/vm/lib.sh"
. "$TP_SRC/test/vm/crypt-stream.sh"
vm_begin -n 4 -e -d mnt -k dm-crypt -k xts -k ext4
command -v cryptsetup >/dev/null || skip_scenario "no cryptsetup on the host"
P=vault B=bak
ETC1=$TPTOOLS_DIR ETC2=$PWD/etc2
mkdir -p "$ETC2"
# a cheap PBKDF: argon2id's default would take minutes under emulation
KDF=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)
printf 'replicated but never told' >key
chmod 600 key

dm_type() { dmsetup table "$1" 2>/dev/null | awk '{ print $3; exit }'; }
loaded() { dmsetup info "$1" >/dev/null 2>&1; }
# tpstatus FIELD of POOL/VOL
vfield() { tpstatus --noheadings -o "$1" "$2" | awk 'NF { print $1; exit }'; }
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# MARKER FILE: the marker line, many times over (fills whole chunks)
put_marker() { yes "$1" | head -n 20000 >"$2"; }

step "source: encrypted volume sec unlocked from the host's key directory"
must tpcreate --data "${disks[0]}" --meta "${disks[1]}" --chunk 64k "$P"
must tvcreate --encrypt --key-file key "${KDF[@]}" -V 64M -n sec "$P"
mkdir -p "$ETC1/keys/$P"
cp key "$ETC1/keys/$P/sec"
chmod 600 "$ETC1/keys/$P/sec"
must tpactivate "$P"
expect_eq "$P-sec" "$(dm_type "$P-sec")" crypt
expect_eq "$P-sec-luks" "$(dm_type "$P-sec-luks")" thin
uuid=$(vfield vol_luks_uuid "$P/sec")
[ -n "$uuid" ] && [ "$uuid" != - ] || note_fail "sec has no LUKS2 uuid in tpstatus ($uuid)"

step "ext4, checksummed files, plaintext marker 1; read-only snapshot s1"
must mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "/dev/mapper/$P-sec"
must mount "/dev/mapper/$P-sec" mnt
must dd if=/dev/urandom of=mnt/a bs=1M count=6 status=none
m1=$(crypt_marker s1)
put_marker "$m1" mnt/marker1
mkdir mnt/dir
for i in $(seq 12); do head -c $((i * 3000)) /dev/urandom >"mnt/dir/f$i"; done
sync
sums mnt >sums1
must tvsnap --readonly -n s1 "$P/sec"

step "full tpsend of s1: an encrypted stream without the plaintext"
must tpsend -o full.stream "$P/s1"
stream_lacks_plaintext full.stream "/dev/mapper/$P-sec" "$m1"
echo "full stream: $(stat -c %s full.stream) bytes"

step "more writes, plaintext marker 2, snapshot s2; incremental s1 -> s2"
must dd if=/dev/urandom of=mnt/a bs=1M count=1 seek=2 conv=notrunc status=none
m2=$(crypt_marker s2)
put_marker "$m2" mnt/marker2
must dd if=/dev/urandom of=mnt/c bs=1M count=3 status=none
rm mnt/dir/f3
sync
sums mnt >sums2
must tvsnap --readonly -n s2 "$P/sec"
must tpsend --from s1 -o inc.stream "$P/s2"
stream_lacks_plaintext inc.stream "/dev/mapper/$P-sec" "$m2"
not grep -qaF -- "$m1" inc.stream
full=$(stat -c %s full.stream) inc=$(stat -c %s inc.stream)
echo "incremental stream: $inc bytes (full: $full)"
[ "$inc" -lt "$full" ] || note_fail "the incremental stream ($inc) is not smaller than the full one ($full)"
must umount mnt

step "second pool $B, host configuration without any key: receive both"
export TPTOOLS_DIR=$ETC2
must tpcreate --data "${disks[2]}" --meta "${disks[3]}" --chunk 64k "$B"
check test ! -e "$ETC2/keys"
not grep -qs key "$ETC2/tptools.conf"
must tprecv -i full.stream "$B"
must tprecv -i inc.stream "$B"
for v in s1 s2; do
	expect_eq "$B/$v vol_encrypted" "$(vfield vol_encrypted "$B/$v")" yes
	expect_eq "$B/$v LUKS2 uuid (the source's)" "$(vfield vol_luks_uuid "$B/$v")" "$uuid"
done

step "tpactivate $B without a key: s1 and s2 left locked, one line each"
tpactivate "$B" >out 2>err
expect_eq "tpactivate without keys: exit" "$?" 5
cat out err
expect_eq "lines on stderr" "$(grep -c . err)" 2
expect_eq "lines naming a locked volume" "$(grep -c 'left locked: unlock it with' err)" 2
check grep -q "'tpactivate --key-file FILE $B s1'" err
check grep -q "'tpactivate --key-file FILE $B s2'" err
check grep -q "2 encrypted volume(s) left locked" out
check loaded "$B-tpool"
for v in s1 s2; do
	if loaded "$B-$v" || loaded "$B-$v-luks"; then note_fail "$B/$v is not locked"; fi
	expect_eq "$B/$v vol_unlocked" "$(vfield vol_unlocked "$B/$v")" no
done

step "unlocked with --key-file: fsck -n clean, the source's checksums"
must tpactivate --key-file key "$B" s1 s2
for v in s1 s2; do
	expect_eq "$B-$v" "$(dm_type "$B-$v")" crypt
	expect_eq "$B-$v-luks" "$(dm_type "$B-$v-luks")" thin
	expect_eq "$B/$v vol_unlocked" "$(vfield vol_unlocked "$B/$v")" yes
	must fsck.ext4 -fn "/dev/mapper/$B-$v"
	must mount -o ro,noload "/dev/mapper/$B-$v" mnt
	n=${v#s}
	expect_eq "$B/$v files against the source at $v" "$(sums mnt)" "$(cat "sums$n")"
	must umount mnt
done
check grep -qaF -- "$m2" "/dev/mapper/$B-s2"
not grep -qaF -- "$m2" "/dev/mapper/$B-s1"

step "live tvcreate --encrypt on the active pool $P: made, unlocked with the key given"
export TPTOOLS_DIR=$ETC1
must tvcreate --encrypt --key-file key "${KDF[@]}" -V 32M -n live "$P"
expect_eq "$P-live" "$(dm_type "$P-live")" crypt
expect_eq "$P-live-luks" "$(dm_type "$P-live-luks")" thin
expect_eq "$P/live vol_unlocked" "$(vfield vol_unlocked "$P/live")" yes
expect_eq "$P/live LUKS2 uuid (the header's)" "$(vfield vol_luks_uuid "$P/live")" \
	"$(cryptsetup luksUUID "/dev/mapper/$P-live-luks")"
check cryptsetup open --test-passphrase --key-file key "/dev/mapper/$P-live-luks"
not dmsetup ls | grep -q tprecv
must mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "/dev/mapper/$P-live"
must mount "/dev/mapper/$P-live" mnt
must dd if=/dev/urandom of=mnt/x bs=1M count=4 status=none
sums mnt >sums.live
must umount mnt
must tpdeactivate "$P" live
must tpactivate --key-file key "$P" live
must fsck.ext4 -fn "/dev/mapper/$P-live"
must mount -o ro "/dev/mapper/$P-live" mnt
expect_eq "$P/live files after lock and unlock" "$(sums mnt)" "$(cat sums.live)"
must umount mnt

step "live tvcreate --encrypt killed at each step: no volume; tprecv --abort drops what is left"
for pause in fill-begun crypt-live-format fill-done; do
	rm -f pause
	TP_TEST_PAUSE=$pause TP_TEST_PAUSE_FILE=$PWD/pause \
		tvcreate --encrypt --key-file key "${KDF[@]}" -V 32M -n cut "$P" 2>cut.err &
	pid=$!
	if ! wait_file pause "$pid"; then
		note_fail "tvcreate did not reach $pause: $(cat cut.err)"
		continue
	fi
	kill -9 "$pid"
	wait "$pid"
	rm -f pause
	not bash -c "tpstatus --noheadings -o vol_name $P 2>/dev/null | awk '{ print \$1 }' | grep -qx cut"
	tpstatus "$P" >/dev/null 2>st.err
	check grep -q "cut" st.err
	not loaded "$P-cut"
	must tprecv --abort cut "$P"
	expect_eq "killed at $pause: temporary devices left" "$(dmsetup ls | grep -c tprecv)" 0
	tpstatus "$P" >/dev/null 2>st.err
	not grep -q "cut" st.err
done
# a signal waits for the header, then what was made is dropped
rm -f pause
TP_TEST_PAUSE=crypt-live-format TP_TEST_PAUSE_FILE=$PWD/pause \
	tvcreate --encrypt --key-file key "${KDF[@]}" -V 32M -n cut "$P" 2>cut.err &
pid=$!
if wait_file pause "$pid"; then
	kill -TERM "$pid"
	sleep 1
	rm -f pause
	wait "$pid"
	expect_eq "SIGTERM while the header is written: exit" "$?" 143
	cat cut.err
	check grep -q "what was written is dropped" cut.err
	tpstatus "$P" >/dev/null 2>st.err
	not grep -q "cut" st.err
	expect_eq "after SIGTERM: temporary devices left" "$(dmsetup ls | grep -c tprecv)" 0
else
	note_fail "tvcreate did not reach crypt-live-format: $(cat cut.err)"
fi
must tvcreate --encrypt --key-file key "${KDF[@]}" -V 32M -n cut "$P"
expect_eq "$P/cut vol_unlocked" "$(vfield vol_unlocked "$P/cut")" yes
must tpdeactivate "$P" cut
must tvremove -y "$P/cut"

step "both pools deactivated, tpcheck clean"
export TPTOOLS_DIR=$ETC2
must tpdeactivate "$B"
must tpcheck "$B"
export TPTOOLS_DIR=$ETC1
must tpdeactivate "$P"
must tpcheck "$P"
expect_eq "devices left" "$(dmsetup ls | grep -c -e "^$P-" -e "^$B-")" 0
finish
