#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tvremove of a live pool's volume in bounded steps (tvremove(8) "Removal
# in steps"): discards of a bounded range through the volume's device, each
# committed by a flush, then the kernel's delete of the emptied device. The
# volume is a snapshot's origin: its chunks shared with the snapshot stay
# (the snapshot reads as before), those only it mapped go back to the
# pool; the other volume's data is unchanged; tpcheck clean afterwards.
# A removal opens its device once for all its steps; killed between two,
# the next tvremove finishes it. A volume ending inside a chunk is removed
# whole (its last chunk, which no discard covers, goes with the delete).
# The step is 2 MiB here (TP_TEST_REMOVE_STEP), so 16 MiB take 8 steps.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 2 -e
DATA=${disks[0]} META=${disks[1]}

step "pool rp, volumes a (16 MiB written), its snapshot s, b"
vm_live_pool rp "$DATA" "$META" 32M "a b" --chunk 64k --discards nopassdown
must dd if=/dev/urandom of=/dev/mapper/rp-a bs=1M count=16 oflag=direct status=none
must dd if=/dev/urandom of=/dev/mapper/rp-b bs=1M count=4 oflag=direct status=none
must tvsnap rp/a -n s
must tpactivate rp s
# a writes half of its chunks anew: those are its own, the rest shared
must dd if=/dev/urandom of=/dev/mapper/rp-a bs=1M count=8 oflag=direct status=none
s_sum=$(md5sum </dev/mapper/rp-s)
b_sum=$(md5sum </dev/mapper/rp-b)
# the pool's data in use, in bytes
used() { tpstatus --noheadings --units b -o pool_data_used rp | awk 'NF { sub(/b$/, "", $1); print $1; exit }'; }
used0=$(used)

step "tvremove -y rp/a in steps of 32 chunks"
TP_TEST_REMOVE_STEP=32 must tvremove -y --progress=json rp/a 2>progress.json
cat progress.json
# the discards gave back all 256 chunks a mapped before the delete
check grep -q '"done":256,"total":256,.*"final":true' progress.json
used1=$(used)
expect_eq "data freed (the 8 MiB only a mapped)" "$((used0 - used1))" "$((8 << 20))"
expect_eq "snapshot s unchanged" "$(md5sum </dev/mapper/rp-s)" "$s_sum"
expect_eq "volume b unchanged" "$(md5sum </dev/mapper/rp-b)" "$b_sum"
check test ! -e /dev/mapper/rp-a
not tpstatus rp/a

step "a removal keeps its device open across its steps; killed, the next tvremove ends it"
# b maps 64 chunks: steps of 8, paused before the 4th (24 chunks given back)
rm -f pause
TP_TEST_REMOVE_STEP=8 TP_TEST_PAUSE=remove-step=3 TP_TEST_PAUSE_FILE=$PWD/pause \
	tvremove -y rp/b 2>rmb.err &
pid=$!
wait_file pause "$pid" || note_fail "tvremove never reached remove-step=3"
# one open for the whole removal, not one a step (each close of a device
# open for writing is a udev change event and a probe)
expect_eq "rp-b's open count between two steps" \
	"$(dmsetup info -c --noheadings -o open rp-b | tr -d ' ')" 1
kill -KILL "$pid"
wait "$pid" 2>/dev/null
rm -f pause
cat rmb.err
check tvremove -y rp/b
check test ! -e /dev/mapper/rp-b
expect_eq "data in use once a and b are gone" "$(used)" "$((used1 - (4 << 20)))"

step "a volume ending inside a chunk: its last, partial chunk goes too"
# 1000 KiB: 15 whole chunks and 40 KiB of a 16th, all written (mapped); a
# discard cannot cover the last chunk, the delete gives it back
must tvcreate -V 1000K -n odd rp
must dd if=/dev/urandom of=/dev/mapper/rp-odd bs=8k count=125 oflag=direct status=none
used2=$(used)
TP_TEST_REMOVE_STEP=4 check tvremove -y rp/odd
check test ! -e /dev/mapper/rp-odd
expect_eq "data freed (16 chunks)" "$((used2 - $(used)))" "$((16 << 16))"

step "deactivated: tpcheck clean"
must tpdeactivate rp
check tpcheck rp
finish
