# SPDX-License-Identifier: GPL-2.0-or-later
# Only block devices and image files are devices (tptools(7), DEVICE
# KINDS): a FIFO, a directory, a character device (/dev/null) or a socket
# given wherever a command takes a device is refused at once, exit 3, with
# an error naming the path and its kind, before any wait (a FIFO's open
# would block until a writer came); every image stays byte-for-byte
# unchanged. Each command runs under `timeout 10`: a hang fails as 124.
# A VG backup given to tprepair --restorefile must be a regular file.
DATA_SIZE=64M META_SIZE=8M new_pool vault
ok tvcreate -V 64M -n www vault
ok tpdump -o vault.xml vault
read -r off len < <(meta_area vault)
image spare-data.img 64M
image spare-meta.img 8M
save_area vault area.img
mkfifo fifo
mkdir dir
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
[ -S sock ] || fail "no socket made"

for f in ./*.img; do cp --sparse=always "$f" "$f.orig"; done
# same: every image byte-for-byte as it was at the start
same() {
	local f
	for f in ./*.img; do
		cmp -s "$f" "$f.orig" || fail "$* changed $f"
	done
}

# kinds PATH KIND: every command that takes a device, given PATH
kinds() {
	local path=$1 kind=$2 cmd
	local -a cmds=(
		"tpcreate --data $path --meta spare-meta.img other"
		"tpcreate --data spare-data.img --meta $path other"
		"tpstatus --devices $path,vault-meta.img vault"
		"tpstatus --devices vault-data.img,$path vault"
		"tpdump $path"
		"tprmap --region 0..9 $path"
		"tprmap --region 0..9 --devices vault-data.img,$path vault"
		"tpdiff --snap1 0 --snap2 0 $path"
		"tpdiff --devices vault-data.img,$path vault/www vault/www"
		"tpcheck --metadata $path"
		"tpcheck --devices vault-data.img,$path vault"
		"tprestore -i vault.xml -o $path"
		"tprestore -i vault.xml -o $path --offset $off --size $len"
		"tprepair --metadata $path -o area.img"
		"tprepair --metadata area.img -o $path"
		"tprepair --devices vault-data.img,$path vault"
		"tprepair --devices $path,vault-meta.img vault"
		"tpextend --devices vault-data.img,$path vault"
		"tpextend --metadata-size auto --devices vault-data.img,$path vault"
		"tvcreate --devices vault-data.img,$path -V 1G -n x vault"
		"tpremove -y --devices $path,vault-meta.img vault"
		"tpextend --data $path vault"
		"tpextend --test --data $path vault"
		"tpchange --meta-mirror $path vault"
		"tpchange --meta-replace $path vault"
	)
	for cmd in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		expect_rc 3 timeout 10 $cmd
		same "'$cmd'"
		err_has "$path is $kind, not a block device or image file"
		# said once, not once per look at the path
		[ "$(grep -c "is $kind, not a block device" err)" = 1 ] ||
			{ cat err >&2; fail "'$cmd' repeated the refusal"; }
	done
}
kinds fifo "a FIFO"
kinds dir "a directory"
kinds sock "a socket"
kinds /dev/null "a character device"
# a VG backup (tprepair --restorefile) must be a regular file too
for k in "fifo:a FIFO" "dir:a directory" "/dev/null:a character device"; do
	expect_rc 3 timeout 10 tprepair vault --restorefile "${k%%:*}" \
		--devices vault-data.img,vault-meta.img
	err_has "the backup ${k%%:*} is ${k#*:}, not a VG metadata backup file"
	same "tprepair --restorefile ${k%%:*}"
done
# JSON reports the refusal with its exit code
expect_rc 3 timeout 10 tpcheck --json --metadata fifo
out_has '"exit_code": 3'
out_has 'fifo is a FIFO'

# the pool itself was never touched, and still works
ok tpcheck vault
ok tpdump vault
cmp -s out vault.xml || fail "the pool's metadata changed"
# XML streams still go through pipes
tpdump vault | tprestore -i - -o spare-meta.img || fail "tpdump | tprestore failed"
ok tpdump spare-meta.img
cmp -s out vault.xml || fail "the piped restore differs"
