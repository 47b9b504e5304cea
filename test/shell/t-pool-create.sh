# tpcreate on image files: geometry from TPTOOLS_TOPOLOGY, --explain, the
# layout recorded, and thin_check on the metadata we wrote.

# 6-disk RAID6, 512K md chunk: stripe 2M
raid_geometry 524288 2097152
new_pool vault --chunk auto --explain
out_has "Full stripe 2 MiB"
out_has "chunk:       2 MiB"
out_has "zeroing:     off"
out_has "stale data"
out_has "data offset: 2 MiB"
out_has "Pool vault created"
ok tpstatus --noheadings --units b -o pool_chunk,pool_zero,pool_data_offset vault
read -r chunk zero off < out
[ "$chunk" = "2097152b" ] || fail "chunk $chunk"
[ "$zero" = no ] || fail "zero $zero"
[ $((off % 2097152)) = 0 ] && [ "$off" -ge 1048576 ] || fail "data offset $off"
thin_check_pool vault

# 7-disk RAID6, 512K chunk: stripe 2.5M (not a power of two)
raid_geometry 524288 2621440
new_pool r7 --explain
out_has "chunk:       2.50 MiB"
ok tpstatus --noheadings --units b -o pool_chunk,pool_data_offset r7
read -r chunk off < out
[ "$chunk" = "2621440b" ] || fail "r7 chunk $chunk"
[ $((off % 2621440)) = 0 ] || fail "r7 data offset $off not stripe aligned"
thin_check_pool r7

# alignment offset is added to the data offset
raid_geometry 65536 196608 4096
new_pool r5 --explain
ok tpstatus --noheadings --units b -o pool_chunk,pool_data_offset r5
read -r chunk off < out
[ $(( ${chunk%b} % 196608 )) = 0 ] && [ $(( ${chunk%b} % 65536 )) = 0 ] || fail "r5 chunk $chunk"
[ $(( (off - 4096) % 196608 )) = 0 ] || fail "r5 data offset $off"

# explicit chunk that does not fit the stripe: accepted with a warning naming the better value
raid_geometry 524288 2097152
new_pool odd --chunk 768k
err_has "warning"
err_has "2 MiB"
ok tpstatus --noheadings --units k -o pool_chunk odd
grep -q "768k" out || fail "explicit chunk not kept"

# explicit zeroing and when-full; no topology at all
unset TPTOOLS_TOPOLOGY
new_pool plain --zero y --when-full error --discards ignore
ok tpstatus --noheadings -o pool_zero,pool_when_full,pool_discards plain
grep -q "yes *error *ignore" out || fail "settings not kept: $(cat out)"
thin_check_pool plain

# the command table's aliases
image a.img 1G
image b.img 16M
ok tp create --data a.img --meta b.img viaalias
ok tp status viaalias
out_has viaalias
