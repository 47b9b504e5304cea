# SPDX-License-Identifier: GPL-2.0-or-later
# Shared pools (tptools(7) SHARED STORAGE) on a host without a sanlock
# daemon, on image files: tpcreate --lock-type sanlock and tpchange
# --lock-type sanlock refuse before anything is written (exit 5, naming
# sanlock.service), tpchange says when the metadata device has no room
# for a lease area; a shared pool (made with the test hook that leaves its
# lease area unwritten) is refused by every writer and by tpactivate
# (exit 5) with the images byte-for-byte unchanged: without a host id,
# naming global/host_id; with one, naming the sanlock daemon; readers list
# it with its lock type and an unknown lease owner; the kill path asks only
# a running tp-lease-holder of its pool to end. The leases themselves
# are proved between two kernels (test/vm/s2-lease.sh, s2-failover.sh).
conf=$TPTOOLS_DIR/tptools.conf
DATA_SIZE=64M META_SIZE=16M
[ -S /run/sanlock/sanlock.sock ] && skip "a sanlock daemon runs on this host"

# tpcreate: no daemon, nothing written
image s-data.img 64M
image s-meta.img 16M
unchanged 5 tpcreate --data s-data.img --meta s-meta.img --lock-type sanlock s
err_has "sanlock daemon does not answer"
err_has "systemctl start sanlock"
[ -z "$(tp-vgtool label s-meta.img 2>/dev/null)" ] || fail "a label was written"
unchanged 3 tpcreate --data s-data.img --meta s-meta.img --lock-type dlm s
err_has "takes none or sanlock"
ok tpcreate --test --data s-data.img --meta s-meta.img --lock-type sanlock s
out_has "lease area: *sanlock, at 1048576 on the metadata device (2097152 bytes), io_timeout 10 s"
out_has "active at 3145728"

# tpchange: a metadata device without room, then one with room
new_pool full --chunk 64k
unchanged 5 tpchange --lock-type sanlock full
err_has "has no 2 MiB free outside its VG area"
err_has "grow the device by 2 MiB"
new_pool roomy --chunk 64k --metadata-size 2M
unchanged 5 tpchange --lock-type sanlock roomy
err_has "sanlock daemon does not answer"
ok tpchange roomy
out_lacks "lock type"

# a shared pool (its lease area left unwritten: no daemon here)
printf 'global {\n\tsystem_id = "hostA"\n\tsanlock_io_timeout = 3\n}\n' >"$conf"
TP_TEST_LEASE_UNFORMATTED=1 ok tpcreate --data s-data.img --meta s-meta.img --lock-type sanlock --chunk 64k s
vg=$(ls "$(backup_dir s)"/*.vg | tail -1)
grep -q 'type="sanlock"' "$vg" || fail "the VG records no lock: $(cat "$vg")"
grep -q 'offset=1048576' "$vg" || fail "the lease area is not at 1 MiB"
grep -q 'io_timeout=3' "$vg" || fail "the VG records not the configured io_timeout"
grep -q 'system_id' "$vg" && fail "a shared pool records an owner"
uuid=$(tp-vgtool label s-meta.img | sed -n 's/^pool_uuid=//p')
grep -q "name=\"tp-$uuid\"" "$vg" || fail "the lease is not named after the pool's uuid"
ok tpstatus -o pool_name,pool_lock_type,pool_lease_owner s
out_has "s *sanlock *?"
ok tpstatus -o pool_name,pool_lock_type,pool_lease_owner full
out_has "full *none *-"
writers=("tvcreate -V 16M -n v s" "tpchange --warn 50 s" "tpchange --lock-type none s"
	 "tpextend s" "tprename s q" "tpremove -y s" "tpactivate s" "tprepair s")
for cmd in "${writers[@]}"; do
	# shellcheck disable=SC2086
	unchanged 5 $cmd
	err_has "this host has no sanlock host id"
	err_has "global { host_id = N }"
done
printf 'global {\n\tsystem_id = "hostB"\n\thost_id = 2\n}\n' >"$conf"
ok tpconfig global/host_id
out_has "^2$"
for cmd in "${writers[@]}"; do
	# shellcheck disable=SC2086
	unchanged 5 $cmd
	err_has "sanlock daemon does not answer"
done
# readers need no lease
ok tpcheck s
ok tpstatus s

# ---- the lease's programs of their own (tp-lease-holder, tp-lease-fence) ----
# tpactivate finds the holder in PREFIX/lib/tptools, beside the sbin (or
# bin) directory of the tp it runs (this build's: $BUILD/lib/tptools), runs it, and the
# holder finds its kill path beside itself: with the test hook that skips
# joining the lockspace, it is the holder's refusal (no sanlock daemon:
# ENOTCONN on its pipe) that tpactivate reports, naming the program
case $BUILD in /*) bdir=$BUILD ;; *) bdir=$TOP/$BUILD ;; esac
progs=$(cd "$bdir/lib/tptools" && pwd -P) || fail "no $BUILD/lib/tptools"
TP_TEST_LEASE_NO_JOIN=1 unchanged 5 tpactivate s
err_has "the lease holder ($progs/tp-lease-holder) could not take its sanlock lease: Transport endpoint is not connected"
# a tp elsewhere (an installed layout: PREFIX/sbin/tp, PREFIX/lib/tptools)
# runs the programs of its own prefix, and says which one is missing
mkdir -p alt/sbin alt/lib/tptools
cp "$bdir/bin/tp" alt/sbin/tp
ln -s tp alt/sbin/tpactivate
alt=$(cd alt && pwd -P)
TP_TEST_LEASE_NO_JOIN=1 unchanged 5 alt/sbin/tpactivate s
err_has "the lease's program $alt/lib/tptools/tp-lease-holder cannot be run (No such file or directory)"
err_has "reinstall it"
cp "$progs/tp-lease-holder" alt/lib/tptools/
TP_TEST_LEASE_NO_JOIN=1 unchanged 5 alt/sbin/tpactivate s
err_has "the lease's program $alt/lib/tptools/tp-lease-fence cannot be run (No such file or directory)"
cp "$progs/tp-lease-fence" alt/lib/tptools/
TP_TEST_LEASE_NO_JOIN=1 unchanged 5 alt/sbin/tpactivate s
err_has "the lease holder ($alt/lib/tptools/tp-lease-holder) could not take its sanlock lease: Transport endpoint is not connected"
# the holder alone, as tpactivate runs it: it answers on its descriptor
# (no daemon: "err 107", ENOTCONN) after finding its kill path
expect_rc 5 "$progs/tp-lease-holder" s "$uuid" "$PWD/s-meta.img" 1048576 3 3>answer
grep -qx "err 107" answer || fail "the holder answered '$(cat answer)', not err 107"
rm alt/lib/tptools/tp-lease-fence
expect_rc 5 alt/lib/tptools/tp-lease-holder s "$uuid" "$PWD/s-meta.img" 1048576 3 3>answer
grep -qx "err 2" answer || fail "the holder without its kill path answered '$(cat answer)', not err 2"
# bad arguments: exit 3, a usage naming who runs them, nothing done
expect_rc 3 "$progs/tp-lease-holder"
err_has "^Usage: tp-lease-holder POOL UUID DEVICE OFFSET FD$"
err_has "tpactivate starts it"
expect_rc 3 "$progs/tp-lease-holder" s "$uuid" "$PWD/s-meta.img" 1048576 9
err_has "'9' is not an open descriptor"
expect_rc 3 "$progs/tp-lease-holder" s not-a-uuid "$PWD/s-meta.img" 1048576 3 3>answer
err_has "'not-a-uuid' is not a pool uuid"
expect_rc 3 "$progs/tp-lease-holder" s "$uuid" "$PWD/s-meta.img" 1M 3 3>answer
err_has "'1M' is not a byte offset"
expect_rc 3 "$progs/tp-lease-fence" "$uuid" s
err_has "tp-lease-fence takes UUID POOL HOLDER_PID: no pool was fenced"
err_has "^Usage: tp-lease-fence UUID POOL HOLDER_PID$"
expect_rc 3 "$progs/tp-lease-fence" "$uuid" 'a/b' 1
err_has "'a/b' is not a pool name"
expect_rc 3 "$progs/tp-lease-fence" "$uuid" s -1
err_has "'-1' is not the holder's process id"
# the kill path stops the pool's holder only: a pid that is not a running
# tp-lease-holder with this pool's name and uuid (given by hand, or reused
# after the holder ended) is left alone, with a line saying so, and the
# fence is done all the same (the test hook keeps its lines out of the
# system log and the kernel's log; there is no device-mapper here, so there
# is nothing to switch). A process ended by the fencer's SIGTERM is waited
# for with status 143; one the test kills itself with SIGKILL, 137.
export TP_TEST_LEASE_LOG=stderr-only
fence_victim() { # PID: the kill path run on it, then PID ended; its status in $st
	expect_rc 0 "$progs/tp-lease-fence" "$uuid" s "$1"
	err_has "pool s lost its sanlock lease"
	err_has "pool s: 0 device(s) switched to the error target, 0 removed"
	kill -KILL "$1" 2>/dev/null || :
	st=0
	wait "$1" 2>/dev/null || st=$?
}
sleep 300 &
fence_victim $!
[ "$st" = 137 ] || fail "the kill path signalled an unrelated sleep (status $st)"
err_has "pool s: process $! is not its lease holder (.*): there is no holder to stop"
# a stand-in holder: a copy of bash named tp-lease-holder, run with the
# holder's arguments (its script is the file named like the pool), which
# says it runs (on the fifo "up") and then waits on the fifo "hold"
mkdir fake
cp "$(command -v bash)" fake/tp-lease-holder
mkfifo up hold
printf 'echo up >up\nread -r _ <hold\n' >s
cp s other
start_fake() { # POOL: the stand-in holder of POOL started, its pid in $fake
	fake/tp-lease-holder "$1" "$uuid" "$PWD/s-meta.img" 1048576 3 &
	fake=$!
	read -r _ <up
}
start_fake other
fence_victim "$fake"
[ "$st" = 137 ] || fail "the kill path signalled the holder of another pool (status $st)"
err_has "process $fake is not its lease holder (it is a tp-lease-holder of another pool)"
fake/tp-lease-holder s &
fake=$!
read -r _ <up
fence_victim "$fake"
[ "$st" = 137 ] || fail "the kill path signalled a tp-lease-holder with other arguments (status $st)"
err_has "process $fake is not its lease holder (it is a tp-lease-holder run with other arguments"
start_fake s
fence_victim "$fake"
[ "$st" = 143 ] || fail "the kill path did not ask the pool's holder to end (status $st)"
err_lacks "not its lease holder"
# a holder whose program an upgrade replaced meanwhile (" (deleted)")
start_fake s
rm fake/tp-lease-holder
fence_victim "$fake"
[ "$st" = 143 ] || fail "the kill path did not ask a holder of a replaced program to end"
err_lacks "not its lease holder"
# a process gone: nothing to stop, the fence done
sleep 0 &
gone=$!
wait $gone || :
expect_rc 0 "$progs/tp-lease-fence" "$uuid" s $gone
err_has "pool s: 0 device(s) switched to the error target, 0 removed"
err_has "process $gone is not its lease holder (no such process)"
unset TP_TEST_LEASE_LOG
# they are no hidden commands of tp any more
for c in __lease-holder __lease-fence; do
	expect_rc 3 tp $c
	err_has "unknown command '$c'"
done
