# SPDX-License-Identifier: GPL-2.0-or-later
# t-remove-cut.sh - tvremove killed at every step of a removal (tvremove(8)
# "Removal in steps"), then run again on the same name: the re-run
# finishes the removal, or says the pool's last change removed the volume
# already, and exits 0; tpcheck is clean and the other volumes keep their
# data. A name the pool never had, or one removed before its last change,
# still fails with exit 5. tvremove --wipe run again after its wipe finishes
# the removal without wiping again.
new_pool p --chunk 64k
ok tvcreate -V 4M -n b p
write_chunks p b 0 8
b_sum=$(tpsend --format raw p/b | md5sum)

# rerun_done: tvremove -y p/a again finishes, and the pool is clean (its
# output in rerun.out, rerun.err); already_removed: it said so
already_removed() {
	grep -q "^Volume p/a was already removed (by the pool's last change)\.$" rerun.out ||
		{ cat rerun.out rerun.err >&2; fail "no 'already removed' line"; }
}
rerun_done() {
	ok tvremove -y p/a
	cp out rerun.out
	cp err rerun.err
	grep -q "^Volume p/a \(was already \)\?removed" out || { cat out err >&2; fail "no removal line"; }
	ok tpstatus p
	err_lacks "under way"
	out_lacks " a "
	ok tpcheck p
	[ "$(tpsend --format raw p/b | md5sum)" = "$b_sum" ] || fail "volume b's data changed"
}

# tpchange POOL without an option only shows the pool: it says a removal
# under way as tpstatus does, and writes nothing (a reader's open
# finishes none; the open of any change does)
ok tvcreate -V 4M -n a p
write_chunks p a 0 10
killed_at remove-step=0 env TP_TEST_REMOVE_STEP=4 tvremove -y p/a
sums ./*.img >before.sums
ok tpchange p
err_has "pool p: the removal of a is under way: it is no volume any more; 'tvremove p/a', or any change to the pool, finishes it"
out_has "^Pool p: activate y"
sums ./*.img | cmp -s - before.sums || fail "tpchange POOL wrote to the pool"
ok tpstatus p
err_has "pool p: the removal of a is under way"
rerun_done

# a volume that maps chunks: its first change, its steps, its emptied end
for pause in after-vg-commit after-apply remove-step=0 remove-step=2 remove-emptied; do
	ok tvcreate -V 4M -n a p
	write_chunks p a 0 10
	killed_at "$pause" env TP_TEST_REMOVE_STEP=4 tvremove -y p/a
	rerun_done
done

# its last change (the removal dropped from the VG, its thin device
# deleted), cut after the VG commit and after the delete: a first cut
# leaves the removal under way, the second tvremove finishes it at its
# open and is killed in that last change
for pause in after-vg-commit after-apply; do
	ok tvcreate -V 4M -n a p
	write_chunks p a 0 10
	killed_at remove-emptied env TP_TEST_REMOVE_STEP=4 tvremove -y p/a
	killed_at "$pause" tvremove -y p/a
	grep -q "finishing the interrupted removal of a" err || { cat err >&2; fail "not in the last change"; }
	rerun_done
	already_removed
	grep -q "transaction .* had been interrupted; it is now complete" rerun.err ||
		{ cat rerun.err >&2; fail "the re-run did not complete the cut transaction"; }
done

# a volume that maps nothing goes in one change: cut inside it
for pause in after-vg-commit after-apply; do
	ok tvcreate -V 4M -n a p
	killed_at "$pause" tvremove -y p/a
	rerun_done
	already_removed
done

# killed after its last commit, before its line: the re-run says so, once
# more too; a name the last change did not remove is still no volume
ok tvcreate -V 4M -n a p
write_chunks p a 0 3
ok tvremove -y p/a
out_has "Volume p/a removed."
rerun_done
already_removed
failed tvremove -y p/nosuch
err_has "pool p has no volume nosuch"
ok tvcreate -V 1M -n c p
failed tvremove -y p/a
err_has "pool p has no volume a"

# tvremove --wipe cut in its removal (after its wipe), run again: the
# removal is finished, nothing is wiped twice, exit 0
for pause in remove-step=1 remove-emptied; do
	ok tvcreate -V 4M -n w p
	write_chunks p w 0 10
	killed_at "$pause" env TP_TEST_REMOVE_STEP=4 tvremove -y --wipe p/w
	ok tvremove -y --wipe p/w
	out_has "^Volume p/w was wiped before its removal began\.$"
	grep -q "^Volume p/w \(was already \)\?removed" out || { cat out err >&2; fail "no removal line"; }
	ok tpcheck p
done

# tvremove --wipe of a name whose removal began WITHOUT --wipe (finished,
# or cut in its steps) claims no wipe: the removal is finished, the error
# says its chunks were not zeroed and names tptrim, exit 5 (tvremove(8)
# "Wiping"); the advice works. The removal record says whether a wipe
# came first: a volume removed in one change mapped nothing to wipe.
ok tvcreate -V 4M -n u p
write_chunks p u 0 10
ok tvremove -y p/u
failed tvremove -y --wipe p/u
out_has "^Volume p/u was already removed (by the pool's last change)\.$"
out_lacks "wiped"
err_has "volume p/u was not wiped: its removal began without --wipe"
err_has "run 'tptrim p'"
ok tvcreate -V 4M -n u p
write_chunks p u 0 10
killed_at remove-step=1 env TP_TEST_REMOVE_STEP=4 tvremove -y p/u
failed tvremove -y --wipe p/u
err_has "finishing the interrupted removal of u"
out_has "^Volume p/u removed\.$"
out_lacks "wiped"
err_has "volume p/u was not wiped: its removal began without --wipe"
ok tpcheck p
ok tptrim p
ok tvcreate -V 4M -n e p
ok tvremove -y p/e
ok tvremove -y --wipe p/e
out_has "^Volume p/e mapped no chunks when its removal began: there was nothing to wipe\.$"
# a wiped removal cut in its steps keeps 'wiped' in its record
ok tvcreate -V 4M -n w p
write_chunks p w 0 10
killed_at remove-step=1 env TP_TEST_REMOVE_STEP=4 tvremove -y --wipe p/w
grep -rqs "wiped *= *1" "$TPTOOLS_DIR" || fail "the removal record of w lacks wiped=1"
ok tvremove -y --wipe p/w
out_has "^Volume p/w was wiped before its removal began\.$"
ok tpcheck p
