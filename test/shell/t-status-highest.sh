# SPDX-License-Identifier: GPL-2.0-or-later
# vol_highest_mapped (tpstatus(8)): the end of the highest chunk a volume
# maps, 0 for a volume that maps nothing; the mapping walk finds it, so it
# is one of the walk's fields (-o, -O, -S, JSON, Prometheus); it equals
# thin_ls's HIGHEST_BLOCK + 1 chunks (1.1.0, from thin-provisioning-tools).
DATA_SIZE=64M META_SIZE=16M
new_pool p --chunk 64k
ok tvcreate -V 16M -n v p
write_chunks p v 0 20
ok tvsnap -n s p/v
write_chunks p s 30 5
ok tvcreate -V 16M -n w p
write_chunks p w 100 7
ok tvcreate -V 16M -n e p
C=65536

rows() { tpstatus --noheadings --units b --nosuffix "$@" p | awk 'NF' | tr -s ' ' | sed 's/^ //; s/ $//'; }
want="v $((20 * C))
s $((35 * C))
w $((107 * C))
e 0"
[ "$(rows -o vol_name,vol_highest_mapped)" = "$want" ] ||
	fail "vol_highest_mapped: $(rows -o vol_name,vol_highest_mapped)"
[ "$(rows -o vol_name,highest_mapped)" = "$want" ] || fail "highest_mapped without vol_"
[ "$(rows -o vol_name -S "vol_highest_mapped>1900k")" = "s
w" ] || fail "-S vol_highest_mapped: $(rows -o vol_name -S "vol_highest_mapped>1900k")"
[ "$(rows -o vol_name -O -vol_highest_mapped)" = "w
s
v
e" ] || fail "-O vol_highest_mapped: $(rows -o vol_name -O -vol_highest_mapped)"
ok tpstatus -o +vol_highest_mapped p
grep -q "^Pool *Volume .*Origin *Highest *$" out || fail "+vol_highest_mapped heading: $(cat out)"
# not a default column (the walk is O(mapped blocks))
ok tpstatus p
out_lacks "Highest"

if have python3; then
	ok tpstatus --json -o vol_name,vol_highest_mapped --units b --nosuffix p
	python3 - out "$C" <<'PY' || fail "JSON vol_highest_mapped: $(cat out)"
import json, sys
c = int(sys.argv[2])
vols = [t for t in json.load(open(sys.argv[1]))["report"] if "volume" in t][0]["volume"]
got = {v["vol_name"]: int(v["vol_highest_mapped"]) for v in vols}
assert got == {"v": 20 * c, "s": 35 * c, "w": 107 * c, "e": 0}, got
PY
fi
ok tpstatus --format prometheus p
out_has "^tptools_volume_highest_mapped_bytes{pool=\"p\",volume=\"s\"} $((35 * C))$"
out_has "^tptools_volume_highest_mapped_bytes{pool=\"p\",volume=\"e\"} 0$"

# thin_ls 1.1.0's HIGHEST_BLOCK of the same metadata, one chunk less
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
if [ -x "$ref/thin_ls" ]; then
	save_area p area.img
	"$ref/thin_ls" --no-headers -o DEV,HIGHEST_BLOCK area.img >ls.txt || fail "thin_ls failed"
	for vol in v s w; do
		id=$(vol_dev_id p $vol)
		hb=$(awk -v d="$id" '$1 == d { print $2 }' ls.txt)
		[ -n "$hb" ] || fail "thin_ls lists no device $id: $(cat ls.txt)"
		[ "$(vol_field p $vol vol_highest_mapped --units b --nosuffix)" = $(((hb + 1) * C)) ] ||
			fail "$vol: not thin_ls's HIGHEST_BLOCK $hb + 1 chunks"
	done
else
	echo "thin-provisioning-tools 1.1.0 not set up: thin_ls comparison skipped"
fi
