# SPDX-License-Identifier: GPL-2.0-or-later
# Pools owned by one host (tptools(7) SHARED STORAGE): a pool created on a
# host with a system id records it; on another host it is foreign: every
# writer, every reader of its metadata or data and tpactivate refuse with
# exit 5, naming the owner and the hand-over, with the devices
# byte-for-byte unchanged; tpactivate --all passes it by; tpchange
# --systemid hands it over from its owner, --foreign --force takes it from
# a host that is gone; a pool without an owner stays anyone's.
conf=$TPTOOLS_DIR/tptools.conf
host() { printf 'global {\n\tsystem_id = "%s"\n}\n' "$1" >"$conf"; }
DATA_SIZE=64M META_SIZE=16M

# a pool of no owner (host without an id): anyone's
new_pool old --chunk 64k
host hostB
ok tvcreate -V 64M -n v old
ok tpchange --activate n old
out_lacks "owner"
grep -q system_id "$(backup_dir old)"/*.vg && fail "an owner recorded by a host without an id"

host hostA
new_pool p --chunk 64k
grep -q 'system_id="hostA"' "$(ls "$(backup_dir p)"/*.vg | tail -1)" ||
	fail "tpcreate recorded no owner"
ok tvcreate -V 64M -n v p
ok tvsnap -n s p/v
dd if=/dev/urandom of=blob bs=64k count=4 2>/dev/null
ok tpchange p
out_has 'owner "hostA"'

# host B: foreign
host hostB
for cmd in "tvcreate -V 64M -n w p" "tvsnap -n t p/v" "tvremove -y p/s" "tvresize -V 128M p/v" \
	   "tvrename p/v v2" "tvrollback --to s p/v" "tvchange --activate n p/v" \
	   "tpchange --warn 50 p" "tpchange --systemid hostB p" "tprename p q" "tpremove -y p" \
	   "tpextend p" "tpactivate p" "tpdeactivate p" "tpcheck p" "tprepair p" \
	   "tpsend p/v" "tpdiff p/v p/s"; do
	# shellcheck disable=SC2086
	unchanged 5 $cmd
	err_has 'belongs to the host whose system id is "hostA"'
	err_has "tpchange --systemid hostB p"
	# no raw strerror after it ("Object is remote")
	err_lacks "remote"
done
# the readers are told to run on the owner
for cmd in "tpcheck p" "tpsend p/v" "tpdiff p/v p/s" "tpdump p" "tprmap --region 0..9 p"; do
	# shellcheck disable=SC2086
	unchanged 5 $cmd
	err_has "nothing was read beyond its labels and VG, nothing changed. Run the command on that host"
	[ "$(grep -c 'error:' err)" = 1 ] || { cat err >&2; fail "'$cmd': more than the owner's message"; }
done
expect_rc 5 tpcheck --json p
python3 -c 'import json,sys; d=json.load(open("out")); sys.exit(not (d["exit_code"] == 5 and len(d["messages"]) == 1 and "hostA" in d["messages"][0]))' ||
	fail "tpcheck --json of a foreign pool: $(cat out)"
unchanged 5 tprecv p <blob
# listed, marked
ok tpstatus
out_has "^ *p "
ok tpstatus -o pool_name,pool_system_id,pool_attr p
out_has "hostA .*-f$"
ok tpstatus --format prometheus p
out_has '^tptools_pool_info{pool="p",.*system_id="hostA"} 1$'
out_has '^tptools_pool_up{pool="p"} 1$'
# boot and udev pass it by, without an error
ok tpactivate --all
out_has "Pool p: skipped (another host owns it"
ok tpactivate --auto p
out_has "skipped"
# the take-over needs both words and --systemid
usage_error tpchange --foreign p
usage_error tpchange --force --systemid hostB p
unchanged 3 tpchange --foreign --systemid hostB p

# hand-over from the owner
host hostA
ok tpchange --systemid hostB p
out_has 'owner "hostB" (was "hostA")'
unchanged 5 tvcreate -V 64M -n w p
host hostB
ok tvcreate -V 64M -n w p
# a host that is gone: hostC takes it, said in a warning
host hostC
unchanged 5 tvcreate -V 64M -n x p
sums ./*.img >sums.before
expect_rc 5 tpchange --systemid hostC --foreign --force p </dev/null
err_has "not taken over"
sums ./*.img >sums.after
cmp -s sums.before sums.after || fail "a refused take-over changed a device"
ok tpchange -y --systemid hostC --foreign --force p
err_has 'taken over from the host whose system id is "hostB"'
ok tvcreate -V 64M -n x p
ok tpcheck p
# to no owner
ok tpchange --systemid "" p
out_has "owner none (was \"hostC\")"
rm "$conf"
ok tvcreate -V 64M -n y p
# bad ids refused
unchanged 3 tpchange --systemid "two words" p
