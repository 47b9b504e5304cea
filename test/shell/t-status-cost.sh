# SPDX-License-Identifier: GPL-2.0-or-later
# tpstatus reads O(volumes) unless a field needs the mapping walk (issue
# 26, tpstatus(8) COST): the default columns, JSON and -o lists without
# vol_exclusive/vol_shared take each volume's mapped from the thin device
# details and never read a mapping tree below its root, so a damaged leaf
# only the walk reads leaves them working; -o, -O and -S naming
# exclusive or shared (and --format prometheus) walk, and trip over it.
# Mapped is the walk's count either way.
DATA_SIZE=64M META_SIZE=16M
new_pool p --chunk 64k
ok tvcreate -V 8M -n v p
write_chunks p v 0 20
ok tvsnap -n s p/v
write_chunks p s 0 5
ok tvcreate -V 8M -n w p
write_chunks p w 100 7
C=65536

# the default columns: no Exclusive/Shared; asked for, they are there
ok tpstatus p
grep -q "^Pool *Volume *Size *Mapped *Mapped% *Origin *$" out || fail "default columns: $(cat out)"
out_lacks "Exclusive"
out_lacks "Shared"
ok tpstatus -o +vol_exclusive,vol_shared p
grep -q "^Pool *Volume .*Origin *Exclusive *Shared *$" out || fail "+vol_exclusive: $(cat out)"

# the figures, mapped the same without and with the walk
rows() { tpstatus --noheadings --units b --nosuffix "$@" p | awk 'NF' | tr -s ' ' | sed 's/^ //; s/ $//'; }
[ "$(rows -o vol_name,vol_mapped)" = "v $((20 * C))
s $((20 * C))
w $((7 * C))" ] || fail "mapped from the details: $(rows -o vol_name,vol_mapped)"
[ "$(rows -o vol_name,vol_mapped,vol_exclusive,vol_shared)" = "v $((20 * C)) $((5 * C)) $((15 * C))
s $((20 * C)) $((5 * C)) $((15 * C))
w $((7 * C)) $((7 * C)) 0" ] || fail "walked: $(rows -o vol_name,vol_mapped,vol_exclusive,vol_shared)"
# names without vol_, all, -O and -S ask for the walk too
[ "$(rows -o vol_name,exclusive)" = "v $((5 * C))
s $((5 * C))
w $((7 * C))" ] || fail "-o exclusive: $(rows -o vol_name,exclusive)"
[ "$(rows -o vol_name -S 'vol_shared>0')" = "v
s" ] || fail "-S vol_shared: $(rows -o vol_name -S 'vol_shared>0')"
[ "$(rows -o vol_name -O -exclusive,vol_name)" = "w
s
v" ] || fail "-O exclusive: $(rows -o vol_name -O -exclusive,vol_name)"
ok tpstatus --noheadings -o vol_all p
[ "$(awk 'NF' out | wc -l)" = 3 ] || fail "vol_all: $(cat out)"

# JSON: every key but vol_exclusive and vol_shared by default, they when asked
if have python3; then
	keys() { python3 -c 'import json, sys
v = [t for t in json.load(sys.stdin)["report"] if "volume" in t][0]["volume"][0]
print(" ".join(sorted(v)))'; }
	k=$(tpstatus --json p | keys)
	[ "$k" = "vol_activation_skip vol_attr vol_content_uuid vol_created vol_dev_id vol_encrypted vol_luks_uuid vol_mapped vol_mapped_percent vol_name vol_origin vol_pool vol_read_only vol_size vol_unlocked" ] ||
		fail "JSON default keys: $k"
	k=$(tpstatus --json -o +vol_exclusive,vol_shared p | keys)
	case " $k " in *" vol_exclusive "*" vol_shared "*) ;; *) fail "JSON +vol_exclusive: $k" ;; esac
	k=$(tpstatus --json -o vol_all p | keys)
	case " $k " in *" vol_exclusive "*" vol_shared "*) ;; *) fail "JSON vol_all: $k" ;; esac
fi
ok tpstatus --format prometheus p
out_has "^tptools_volume_exclusive_bytes{pool=\"p\",volume=\"v\"} $((5 * C))$"

# a leaf of w's mapping tree zeroed (w's one leaf is its root, which the
# device-details read does not open): only the walk reads it
save_area p area.bin
read -r leaf _ _ < <(tp-damage area.bin find "$(vol_dev_id p w)" 100)
[ -n "$leaf" ] || fail "tp-damage find"
ok tp-damage area.bin zero "$leaf"
load_area p area.bin
expect_rc 2 tpcheck p
ok tpstatus p
[ "$(rows -o vol_name,vol_mapped)" = "v $((20 * C))
s $((20 * C))
w $((7 * C))" ] || fail "mapped after the damage: $(rows -o vol_name,vol_mapped)"
ok tpstatus --json p
ok tpstatus -o +vol_mapped_percent,vol_dev_id,vol_attr p
failed tpstatus -o +vol_exclusive p
err_has "cannot read its allocation"
err_has "tpcheck p"
failed tpstatus -o vol_name,shared p
failed tpstatus -o vol_name -S 'vol_exclusive>0' p
failed tpstatus -o vol_name -O vol_shared p
failed tpstatus --json -o +vol_shared p
failed tpstatus -o vol_all p
# prometheus walks: the pool is down, its settings still there
failed tpstatus --format prometheus p
out_has '^tptools_pool_up{pool="p"} 0$'
