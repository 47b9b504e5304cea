# SPDX-License-Identifier: GPL-2.0-or-later
# A change a command reports done is on the devices. A writer's read keeps
# the checkpoint text of the slot its commit appends a record to (the
# writer's memo, metadata/vg/mda.c); when that checkpoint's bytes change on
# the devices between the read and the commit (here: damaged while tpchange
# waits at its test pause), the commit must not append a record to them
# (the record would not read back: the change lost, silently), it writes a
# checkpoint as it did before the memo: the change is on the devices and
# the pool is clean. (A hostile trial of issue 40: the memo's text is
# trusted by its seqno, length and crc, the bytes on disk are not read.)
new_pool vault
for n in 1 2 3 4 5 6 7; do ok tvcreate -V 1G -n "a$n" vault; done
ok tp-vgtool slots vault-data.img vault-meta.img
out_has "vault-meta.img slot 0 valid 7"
out_has "vault-meta.img slot 1 valid 8"

rm -f pause
env TP_TEST_PAUSE=settings-prepared TP_TEST_PAUSE_FILE="$PWD/pause" \
	tpchange --warn=70 vault >cout 2>cerr &
pid=$!
wait_until "$pid" test -e pause || { cat cerr >&2; fail "tpchange never reached settings-prepared"; }
# slot 0 (beside the newest copy, where seqno 9 goes) damaged on both devices
ok tp-vgtool damage vault-meta.img 0 text
ok tp-vgtool damage vault-data.img 0 text
rm -f pause
rc=0
wait "$pid" || rc=$?
[ $rc = 0 ] || { cat cout cerr >&2; fail "tpchange exits $rc"; }
grep -q "warn at 70%" cout || { cat cout >&2; fail "tpchange does not say the new setting"; }

# what tpchange said it did is what the pool holds
ok tp-vgtool slots vault-data.img vault-meta.img
out_has "newest=9 "
ok tpchange vault
out_has "warn at 70%"
ok tpcheck vault
out_has "vault: clean"
