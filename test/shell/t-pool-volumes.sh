# SPDX-License-Identifier: GPL-2.0-or-later
# Volumes: create, over-provisioning, snapshots of snapshots, remove, and
# thin_check after every step.
raid_geometry 524288 2097152
new_pool vault
thin_check_pool vault

ok tvcreate -V 1G -n www vault
out_has "Volume vault/www created (1 GiB)"
thin_check_pool vault
ok tvcreate -V 100G -n db vault
err_has "exceeds the size of pool vault"
thin_check_pool vault
ok tvsnap vault/www -n www-mon
thin_check_pool vault
ok tvsnap vault/www-mon -n www-mon-2
ok tvsnap vault/www-mon-2 -n www-mon-3
thin_check_pool vault

ok tpstatus --noheadings -o vol_name,vol_origin,vol_dev_id vault
grep -q "^www-mon-3 *www-mon-2 *4" out || fail "snapshot of snapshot: $(cat out)"
ok tpstatus --noheadings -o pool_transaction_id,pool_volumes vault
read -r tid nvol < out
[ "$tid" = 5 ] && [ "$nvol" = 5 ] || fail "tid $tid volumes $nvol"

# sizes are rounded up to sectors; default unit is MiB
ok tvcreate -V 1000 -n small vault
ok tvcreate -V 1s -n tiny vault
ok tpstatus --noheadings --units b -o vol_name,vol_size vault
grep -q "^small *1048576000b" out || fail "default unit: $(cat out)"
grep -q "^tiny *512b" out || fail "sector unit"

# removing an origin asks first: without a terminal and -y it is refused
failed tvremove vault/www-mon </dev/null
err_has "refusing to ask a question without a terminal"
err_has "it is the origin of www-mon-2"
# every snapshot is named, in the pool's order
ok tvsnap -n small-a vault/small
ok tvsnap -n small-b vault/small
failed tvremove vault/small </dev/null
err_has "it is the origin of small-a, small-b"
ok tvremove vault/small-a vault/small-b
ok tpstatus --noheadings -o vol_name vault
out_has "^www-mon "
# removal keeps snapshots (their origin is forgotten, and said so)
ok tvremove -y vault/www-mon
out_has "removed; www-mon-2 no longer records it as origin"
thin_check_pool vault
ok tpstatus --noheadings -o vol_name,vol_origin vault
grep -q "^www-mon-2 *$" out || fail "origin not cleared: $(cat out)"
ok tvremove vault/small vault/tiny
thin_check_pool vault

# JSON has the metadata area for external tools
ok tpstatus --json vault
out_has '"pool_meta_offset":"'
out_has '"pool_meta_length":"'
python3 -c 'import json,sys; d=json.load(open("out")); assert d["report"][0]["pool"][0]["pool_name"]=="vault"; assert len(d["report"][1]["volume"])==4' ||
	fail "tpstatus --json is not the documented JSON"

# tpdump POOL dumps the active area exactly as thin_dump does
thin_check_pool vault
ok tpdump vault
cp out tpdump.xml
thin_dump area.img >thin_dump.xml
cmp -s tpdump.xml thin_dump.xml || { diff tpdump.xml thin_dump.xml | head; fail "tpdump POOL != thin_dump"; }
usage_error tpdump --offset 4096 vault
failed tpdump nosuchpool

# tpremove asks unless --yes; without a terminal it refuses
failed tpremove vault </dev/null
ok tpstatus vault
ok tpremove --yes vault
failed tpstatus vault
err_has "not found"
# the devices are free again (no tptools label): a new pool can be made
ok tpcreate --data vault-data.img --meta vault-meta.img vault2
