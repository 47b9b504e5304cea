# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input of every kind: a clear error, exit 3 (command line) or 5
# (failed), and every device byte-for-byte unchanged.
image d.img 24M
image m.img 8M
image small.img 512K
image tiny-meta.img 1M
image fs.img 8M
mkfs.ext4 -q -F fs.img

# tpcreate
unchanged 5 tpcreate --data nosuch.img --meta m.img p
unchanged 5 tpcreate --data d.img --meta nosuch.img p
unchanged 3 tpcreate --data d.img --meta d.img p
ln -s d.img link.lnk
unchanged 3 tpcreate --data d.img --meta link.lnk p
unchanged 5 tpcreate --data small.img --meta m.img p
unchanged 5 tpcreate --data d.img --meta tiny-meta.img p
unchanged 5 tpcreate --data fs.img --meta m.img p
err_has "ext4"
err_has "force"
unchanged 5 tpcreate --data d.img --meta fs.img p
unchanged 3 tpcreate --data /dev/null --meta m.img p
for bad in "a/b" "-x" "." ".." "$(printf 'x%.0s' $(seq 65))" "sp ace" "t\$ab"; do
	unchanged 3 tpcreate --data d.img --meta m.img -- "$bad"
done
unchanged 3 tpcreate --data d.img --meta m.img ""
unchanged 3 tpcreate --meta m.img p
unchanged 3 tpcreate --data d.img --meta m.img
unchanged 3 tpcreate --data d.img --meta m.img p q
unchanged 3 tpcreate --data d.img --meta m.img --chunk 0 p
unchanged 3 tpcreate --data d.img --meta m.img --chunk 100k p
unchanged 3 tpcreate --data d.img --meta m.img --chunk 2G p
unchanged 3 tpcreate --data d.img --meta m.img --chunk 12Q p
unchanged 3 tpcreate --data d.img --meta m.img --chunk -64k p
unchanged 3 tpcreate --data d.img --meta m.img --metadata-size 20G p
unchanged 3 tpcreate --data d.img --meta m.img --metadata-size 0 p
unchanged 3 tpcreate --data d.img --meta m.img --zero maybe p
unchanged 3 tpcreate --data d.img --meta m.img --when-full never p
unchanged 3 tpcreate --data d.img --meta m.img --discards some p
unchanged 3 tpcreate --data d.img --meta m.img --no-such-option p
TPTOOLS_TOPOLOGY="min_io=banana" unchanged 3 tpcreate --data d.img --meta m.img p

# a pool to aim the volume commands at
ok tpcreate --data d.img --meta m.img vault
ok tvcreate -V 1G -n www vault
unchanged 5 tpcreate --data d.img --meta m.img other
err_has "vault"
image d2.img 24M
image m2.img 8M
unchanged 5 tpcreate --data d2.img --meta m2.img vault
err_has "already exists"

# tvcreate
for size in 12Q -5G 99999999999P "" 0 abc 1.5.5G 9E; do
	unchanged 3 tvcreate -V "$size" -n x vault
done
unchanged 3 tvcreate -V 1G vault
unchanged 3 tvcreate -n x vault
unchanged 3 tvcreate -V 1G -n x
unchanged 3 tvcreate -V 1G -n "a/b" vault
unchanged 3 tvcreate -V 1G -n "-x" vault
unchanged 3 tvcreate -V 1G -n tpool vault
unchanged 3 tvsnap vault/www -n tmeta
unchanged 5 tvcreate -V 1G -n www vault
err_has "already has a volume named www"
unchanged 5 tvcreate -V 1G -n x nosuchpool
err_has "not found"
unchanged 3 tvcreate -V 1G -n x "bad/pool"

# tvsnap
unchanged 5 tvsnap vault/nosuch -n s
unchanged 5 tvsnap vault/www -n www
unchanged 3 tvsnap vault -n s
unchanged 3 tvsnap vault/ -n s
unchanged 3 tvsnap /www -n s
unchanged 3 tvsnap vault/www
unchanged 3 tvsnap vault/www -n "a b"
unchanged 5 tvsnap nosuch/www -n s

# tvremove, tpremove, tpstatus
unchanged 5 tvremove vault/nosuch
unchanged 5 tvremove nosuch/www
unchanged 3 tvremove vault
unchanged 3 tvremove
unchanged 5 tpremove nosuch
unchanged 3 tpremove
unchanged 5 tpstatus nosuch
unchanged 3 tpstatus --units x vault
unchanged 3 tpstatus -o no_such_field vault
unchanged 3 tpstatus --devices d.img vault
thin_check_pool vault

# Volume names valid for tptools whose dm name ("POOL-VOLUME", '-'
# doubled) would pass device-mapper's 127 bytes: refused at creation
long=$(printf 'p%.0s' $(seq 64))
image long-d.img 24M
image long-m.img 8M
ok tpcreate --data long-d.img --meta long-m.img "$long"
v62=$(printf 'v%.0s' $(seq 62))
v63=${v62}v
ok tvcreate -V 1M -n "$v62" "$long"	# 64 + 1 + 62 = 127: fits
unchanged 3 tvcreate -V 1M -n "$v63" "$long"
err_has "invalid volume name '$v63': in pool $long its device-mapper name"
err_has "would be 128 bytes, over the kernel's limit of 127; choose a name of at most 62 bytes"
unchanged 3 tvcreate -V 1M -n "${v62%v}-" "$long"	# the '-' counts twice
err_has "would be 128 bytes"
unchanged 3 tvsnap "$long/$v62" -n "$v63"
err_has "over the kernel's limit of 127"
unchanged 3 tvsnap --readonly "$long/$v62" -n "$v63"
unchanged 3 tvrename "$long/$v62" "$v63"
err_has "over the kernel's limit of 127"
ok tvsnap "$long/$v62" -n s
ok tvrename "$long/s" "${v62%v}s"
