# SPDX-License-Identifier: GPL-2.0-or-later
# tvsnap says what copies cost on a pool's first snapshot when its chunks
# are large (>= 512 KiB), once: not on later snapshots, not with -q, not
# on pools with small chunks.
raid_geometry 512k 2m
new_pool big --profile throughput
ok tvcreate -V 1G -n a big
ok tvsnap big/a -n s1
out_has "Snapshot big/s1 of a created."
out_has "Note: pool big has 2 MiB chunks: the first write to each chunk a and s1 share copies the whole 2 MiB"
out_has "profile balanced"
ok tvsnap big/a -n s2
out_lacks "Note:"
ok tvsnap big/s1 -n s3
out_lacks "Note:"

# the default profile: 64 KiB chunks, nothing to say
new_pool small
ok tvcreate -V 1G -n a small
ok tvsnap small/a -n s1
out_lacks "Note:"

# -q: nothing at all; the next snapshot is no longer the first
unset TPTOOLS_TOPOLOGY
new_pool quiet --chunk 512k
ok tvcreate -V 1G -n a quiet
ok tvsnap -q quiet/a -n s1
[ ! -s out ] || fail "tvsnap -q printed: $(cat out)"
ok tvsnap quiet/a -n s2
out_lacks "Note:"
