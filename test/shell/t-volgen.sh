# SPDX-License-Identifier: GPL-2.0-or-later
# t-volgen.sh - the benchmark's pool builder (test/tools/tp-volgen.c,
# scripts/bench-volumes.sh) writes what tvcreate and tvsnap write: a pool
# it fills reads back as one filled by tvcreate/tvsnap (tpstatus --json and
# tpdump the same but for names, uuids, paths, times and transaction ids),
# in one VG commit with one backup and one thin commit, checks clean
# (tpcheck, thin_check), and takes the next tvcreate/tvsnap/tvremove as a
# pool of its own would. What does not fit the VG area, a name taken and
# bad usage are refused with nothing written.
new_pool a
ok tvcreate -V 1G -n v0 a
ok tvcreate -V 1G -n v1 a
ok tvcreate -V 1G -n v2 a
ok tvsnap -n v3 a/v0
ok tvsnap -n v4 a/v1
new_pool b
n=$(ls "$(backup_dir b)" | wc -l)
ok tp-volgen --prefix v --size 1G --snapshots 2 b 5
[ "$(ls "$(backup_dir b)" | wc -l)" = $((n + 1)) ] || fail "tp-volgen wrote no backup, or more than one"
ok tp-vgtool slots b-data.img b-meta.img
out_has "newest=2 "	# tpcreate's commit and ONE more

# what differs by nature: the pool's name, uuid and devices, creation
# times, and the transaction ids (five commits against one)
norm_json() {
	tpstatus --json "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["report"]
skip = ("pool_name", "pool_uuid", "pool_data_dev", "pool_devices", "pool_meta_dev",
        "pool_transaction_id", "vol_pool", "vol_created")
for part in r:
    for kind, rows in part.items():
        for row in rows:
            print(kind, sorted((k, v) for k, v in row.items() if k not in skip))'
}
norm_json a >a.json
norm_json b >b.json
[ "$(grep -c '^volume' b.json)" = 5 ] || { cat b.json >&2; fail "tpstatus does not list 5 volumes"; }
grep -q "'vol_origin', 'v1'" b.json || fail "v4 is not a snapshot of v1"
diff a.json b.json >&2 || fail "tpstatus --json of the built pool differs from tvcreate/tvsnap's"
ok tpdump a
sed 's/ transaction="[0-9]*"//' out >a.xml
ok tpdump b
sed 's/ transaction="[0-9]*"//' out >b.xml
diff a.xml b.xml >&2 || fail "the thin metadata differs from tvcreate/tvsnap's"
ok tpcheck b
thin_check_pool b

# the built pool takes the next changes as its own
ok tvcreate -V 1G -n w b
ok tvsnap -n w1 b/v3
ok tvremove b/v2
ok tvrename b/v1 x
ok tpcheck b
ok tpstatus b/x

# added beside volumes it has: ids and names go on from there
ok tp-volgen --prefix n --snapshots 3 b 10
ok tpstatus --noheadings -o vol_name,vol_dev_id,vol_origin b/n0 b/n9
out_has "n0 *7 *$"
out_has "n9 *16 *n2"
ok tpcheck b

# refused, nothing written: a name taken, more than the VG area holds
# (1 MiB: about 5,000 volumes), bad usage
unchanged 5 tp-volgen --prefix v b 3
err_has "already has a volume named v0"
unchanged 5 tp-volgen --prefix big b 6000
err_has "more than the [0-9]* bytes a slot of its VG area holds"
unchanged 3 tp-volgen --snapshots 4 b 4
unchanged 3 tp-volgen --prefix 'a b' b 2
unchanged 3 tp-volgen b 100001
unchanged 3 tp-volgen b
ok tpcheck b
