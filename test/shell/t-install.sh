# SPDX-License-Identifier: GPL-2.0-or-later
# make install lays out everything under DESTDIR/PREFIX (binary, command
# links, the lease's programs in PREFIX/lib/tptools and nothing of them on
# PATH, man pages, udev rules, systemd units, bash completion), the units
# pass systemd-analyze verify, and make deb packages the same files with
# the Depends the binaries need (the fencer without libsanlock_client, the
# holder with it, as docs/ARCHITECTURE.md says), a machine-readable copyright naming the
# licence (GPL-2+), md5sums that match, and no lintian error or warning
# (when lintian is installed). (scripts/test-deb.sh installs the package
# in a bookworm chroot; it needs root and a cached chroot, so it is not
# part of this suite.)
stage=$PWD/stage
# install and deb use the release build (no test hooks, no sanitizer:
# the Makefile's RELEASE_BUILD, named after BUILD without -san, so the
# sanitizer run finds the main run's up to date); make compiles it only
# when it is missing or stale (t-release-build checks what is in it)
mk=(make -C "$TOP" -s --no-print-directory -j"$(nproc)" BUILD="$BUILD" SANITIZE="${TP_SANITIZE:-0}")
ok "${mk[@]}" install DESTDIR="$stage" PREFIX=/opt/tp
cmds=$(sed -n 's/^TP_COMMAND(\([a-z]*\),.*/\1/p' "$TOP/tools/commands.def")
[ -x "$stage/opt/tp/sbin/tp" ] || fail "no sbin/tp"
for c in $cmds; do
	[ "$(readlink "$stage/opt/tp/sbin/$c")" = tp ] || fail "sbin/$c is not a link to tp"
	[ -f "$stage/opt/tp/share/man/man8/$c.8" ] || fail "no man page for $c"
	[ "$(readlink "$stage/opt/tp/share/bash-completion/completions/$c")" = tp ] ||
		fail "no completion link for $c"
done
for m in tp.8 tptools.7 tp-metadata.5; do
	[ -f "$stage/opt/tp/share/man/man${m##*.}/$m" ] || fail "no $m"
done
[ -f "$stage/opt/tp/share/bash-completion/completions/tp" ] || fail "no completion"
# the lease's programs: private (PREFIX/lib/tptools), executable, not on PATH
for p in tp-lease-holder tp-lease-fence; do
	[ -x "$stage/opt/tp/lib/tptools/$p" ] || fail "no lib/tptools/$p"
	[ ! -e "$stage/opt/tp/sbin/$p" ] && [ ! -e "$stage/opt/tp/bin/$p" ] || fail "$p is on PATH"
done
# each records only the libraries it uses (the Makefile's --as-needed)
if have readelf; then
	needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
	needed "$stage/opt/tp/lib/tptools/tp-lease-holder" | grep -q '^libsanlock_client\.so' ||
		fail "tp-lease-holder does not link libsanlock_client"
	! needed "$stage/opt/tp/lib/tptools/tp-lease-fence" | grep -q '^libsanlock_client\.so' ||
		fail "tp-lease-fence links libsanlock_client"
	needed "$stage/opt/tp/sbin/tp" | grep -q '^libsanlock_client\.so' ||
		fail "tp does not link libsanlock_client"
fi
for r in 56-dm-tptools 60-tptools-member 69-tptools-autoactivate; do
	[ -f "$stage/lib/udev/rules.d/$r.rules" ] || fail "no udev rule $r"
done
units=$stage/lib/systemd/system
for u in tptools-activate.service tptools-autoactivate@.service tptools-monitor.service; do
	[ -f "$units/$u" ] || fail "no unit $u"
done
grep -q "^ExecStart=/opt/tp/sbin/tpmonitor$" "$units/tptools-monitor.service" ||
	fail "the monitor unit's ExecStart does not name PREFIX"
# PREFIX reaches the rules and the units
grep -q "^ExecStart=/opt/tp/sbin/tpactivate --all$" "$units/tptools-activate.service" ||
	fail "ExecStart does not name PREFIX"
grep -q "^ExecStop=/opt/tp/sbin/tpdeactivate --all$" "$units/tptools-activate.service" ||
	fail "ExecStop does not name PREFIX"
grep -q '/opt/tp/sbin/tp udev-probe' "$stage/lib/udev/rules.d/60-tptools-member.rules" ||
	fail "udev rule does not name PREFIX"
! grep -rq /usr/sbin/tp "$units" "$stage/lib/udev/rules.d" || fail "a /usr/sbin/tp path is left"
grep -q 'SYSTEMD_WANTS}+="tptools-autoactivate@$major:$minor.service"' \
	"$stage/lib/udev/rules.d/69-tptools-autoactivate.rules" || fail "no autoactivation hook"

# systemd-analyze verify: the units with their programs pointing at this build
if have systemd-analyze; then
	mkdir v
	for u in "$units"/*.service; do
		sed "s|/opt/tp/sbin/|$TOP/$BUILD/bin/|g" "$u" >"v/${u##*/}"
	done
	cp "v/tptools-autoactivate@.service" "v/tptools-autoactivate@loop0.service"
	for u in tptools-activate.service tptools-autoactivate@.service \
		tptools-autoactivate@loop0.service tptools-monitor.service; do
		systemd-analyze verify --man=no "v/$u" >verify.out 2>&1 ||
			{ cat verify.out >&2; fail "systemd-analyze verify $u"; }
		[ ! -s verify.out ] || { cat verify.out >&2; fail "systemd-analyze verify $u warns"; }
	done
	# the boot unit's ordering: after udev settles, before local-fs-pre,
	# stopped at shutdown (after the filesystems are unmounted: reverse order)
	a=v/tptools-activate.service
	grep -q '^After=.*systemd-udev-settle.service' $a || fail "not after udev settle"
	grep -q '^Before=local-fs-pre.target' $a || fail "not before local-fs-pre"
	grep -q '^Conflicts=shutdown.target' $a || fail "not stopped at shutdown"
	grep -q '^DefaultDependencies=no' $a || fail "default dependencies (after sysinit)"
	# the units that run tpactivate --all/--auto end in bounded time, above
	# its wait for pool locks (activate/lock_wait, default 60 s)
	for u in tptools-activate.service tptools-activate-shared.service \
		 tptools-autoactivate@.service; do
		grep -q '^TimeoutStartSec=5min$' "v/$u" || fail "$u: no TimeoutStartSec above the lock wait"
	done
	"$TOP/$BUILD/bin/tpconfig" activate/lock_wait | grep -qx '60' ||
		fail "activate/lock_wait's default is no longer the 60 s the units allow for"
fi

# the package: same files, Depends from the binary
have dpkg-deb && have dpkg-shlibdeps && have fakeroot || skip "dpkg-dev/fakeroot missing"
ok "${mk[@]}" deb
deb=$(tail -1 out)
case $deb in /*) ;; *) deb=$TOP/$deb ;; esac
dpkg-deb -f "$deb" Depends >depends
# libcryptsetup is loaded when an encrypted volume needs it, not at every
# command's start (lib/base/cryptsetup_dl.c): no binary names it, the
# package depends on it all the same
! readelf -d "$TOP/$BUILD/bin/tp" 2>/dev/null | grep -q libcryptsetup ||
	fail "tp is linked against libcryptsetup: every command pays its load"
for lib in libdevmapper1.02.1 libblkid1 libudev1 libpopt0 libexpat1 libsanlock-client1 \
	   libcryptsetup12; do
	grep -q "$lib" depends || { cat depends >&2; fail "Depends lacks $lib"; }
done
dpkg-deb -c "$deb" >contents
for f in ./usr/sbin/tp ./usr/sbin/tvsnap ./lib/systemd/system/tptools-activate.service \
	./lib/systemd/system/tptools-monitor.service ./usr/sbin/tpmonitor \
	./lib/udev/rules.d/69-tptools-autoactivate.rules ./usr/share/man/man8/tvchange.8.gz \
	./usr/share/bash-completion/completions/tvsnap ./usr/share/doc/tptools/copyright \
	./usr/lib/tptools/tp-lease-holder ./usr/lib/tptools/tp-lease-fence; do
	grep -q " $f\( \|$\)" contents || { cat contents >&2; fail "package lacks $f"; }
done
# its copyright file: Debian's machine-readable format, the tree's licence
rm -rf debx; dpkg-deb -x "$deb" debx
# the lease's programs, stripped as tp is, mode 0755
for p in tp-lease-holder tp-lease-fence; do
	[ "$(stat -c %a "debx/usr/lib/tptools/$p")" = 755 ] || fail "$p is not mode 0755 in the package"
	! file "debx/usr/lib/tptools/$p" 2>/dev/null | grep -q "not stripped" ||
		fail "$p is not stripped in the package"
done
c=debx/usr/share/doc/tptools/copyright
head -1 "$c" | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/$' ||
	fail "copyright is not in the machine-readable format"
grep -q '^License: GPL-2+$' "$c" || fail "copyright names no GPL-2+ licence"
grep -q '/usr/share/common-licenses/GPL-2' "$c" || fail "copyright does not point to the GPL's text"
! grep -qi 'no license' "$c" || fail "copyright still says no license"
# the package's md5sums cover its files
dpkg-deb -e "$deb" debc
(cd debx && md5sum -c --quiet ../debc/md5sums) || fail "DEBIAN/md5sums does not match the files"
# lintian (when installed: install-deps.sh brings it) finds no error or warning
if have lintian; then
	lintian --tag-display-limit 0 "$deb" >lint 2>&1 || true
	! grep -E '^[EW]: ' lint || fail "lintian: $(grep -cE '^[EW]: ' lint) errors or warnings"
fi
