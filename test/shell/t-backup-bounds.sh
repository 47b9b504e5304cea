# SPDX-License-Identifier: GPL-2.0-or-later
# The host's VG backups are bounded (issue 40; tptools.conf(5) backup):
# the newest backup/keep of a pool (default 50), fewer when they would take
# more than backup/max_size (default 64M), the newest 3 always; the oldest
# go first, the ones left are the pool's newest commits, and tprepair
# --list-backups and --restorefile work with what is left.
DATA_SIZE=64M META_SIZE=16M
conf=$TPTOOLS_DIR/tptools.conf
new_pool p
for i in $(seq 1 12); do ok tvcreate -q -V 8M -n v$i p; done
dir=$(ls -d "$TPTOOLS_DIR"/backup/*/)
count() { find "$dir" -name '*.vg' | wc -l; }
newest() { find "$dir" -name '*.vg' | sort | tail -n1; }
[ "$(count)" -ge 13 ] || fail "expected a backup per commit, found $(count)"

# backup/keep
printf 'backup {\n\tkeep = 5\n}\n' >"$conf"
ok tvcreate -q -V 8M -n k1 p
[ "$(count)" = 5 ] || fail "backup/keep 5 kept $(count)"
seqs=$(find "$dir" -name '*.vg' | sort | sed 's|.*/0*||; s|\.vg||' | tr '\n' ' ')
last=$(basename "$(newest)" .vg | sed 's/^0*//')
[ "$seqs" = "$((last - 4)) $((last - 3)) $((last - 2)) $((last - 1)) $last " ] ||
	fail "the kept backups are not the newest five: $seqs"

# backup/max_size: fewer than keep, the newest 3 always
size=$(stat -c %s "$(newest)")
printf 'backup {\n\tkeep = 50\n\tmax_size = "%dB"\n}\n' $((size * 4 + size / 2)) >"$conf"
ok tvcreate -q -V 8M -n m1 p
ok tvcreate -q -V 8M -n m2 p
[ "$(count)" = 4 ] || fail "max_size of 4.5 backups kept $(count)"
printf 'backup {\n\tmax_size = "1B"\n}\n' >"$conf"
ok tvcreate -q -V 8M -n m3 p
[ "$(count)" = 3 ] || fail "max_size below one backup kept $(count), not the newest 3"

# what is left is usable
ok tprepair --list-backups p
out_has "$(basename "$(newest)")"
ok tprepair -y p --restorefile "$(newest)"
ok tpstatus p
out_has m3

# a bad value is refused by name before anything is written
printf 'backup {\n\tmax_size = "lots"\n}\n' >"$conf"
unchanged 3 tvcreate -q -V 8M -n bad p
err_has "backup/max_size"
