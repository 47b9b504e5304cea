#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkdeb.sh - build the tptools Debian package with dpkg-deb (make deb).
#
# Stages `make install PREFIX=/usr` (the release build, without the test
# hooks: the Makefile's TESTHOOKS) into $BUILD/deb/stage, strips the
# binaries (tp and the lease's programs in /usr/lib/tptools), compresses
# the manual pages, adds /usr/share/doc/tptools, a DEBIAN/control whose
# Depends dpkg-shlibdeps computes from the binaries (libdevmapper1.02.1,
# libblkid1, libudev1, libpopt0, libexpat1, libsanlock-client1, libcryptsetup12,
# libc6),
# and maintainer scripts that reload the udev rules and systemd and enable
# tptools-activate.service the way debhelper does. Prints the .deb's path.
# Environment: BUILD (build dir, default build), VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
VERSION=${VERSION:-$(cat VERSION)}
arch=$(dpkg --print-architecture)
out=$BUILD/deb
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$PWD/$stage" PREFIX=/usr >/dev/null

bins=("$stage/usr/sbin/tp" "$stage"/usr/lib/tptools/tp-lease-*)
[ ${#bins[@]} = 3 ] && [ -x "${bins[2]}" ] ||
	{ echo "mkdeb: make install put no lease programs in /usr/lib/tptools" >&2; exit 1; }
strip --strip-unneeded --remove-section=.comment --remove-section=.note "${bins[@]}"
gzip -9n "$stage"/usr/share/man/man*/*
doc=$stage/usr/share/doc/tptools
install -d "$doc"
cat >"$doc/copyright" <<'EOT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tptools
Comment: Built from the tptools source tree by scripts/mkdeb.sh. Every file
 of the package (the binary, its manual pages, udev rules, systemd units and
 bash completion) comes from that tree, under its licence (the tree's
 LICENSE file; each source file carries an SPDX-License-Identifier line).

Files: *
Copyright: 2026 the tptools authors
License: GPL-2+

License: GPL-2+
 This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License as published by the Free
 Software Foundation; either version 2 of the License, or (at your option)
 any later version.
 .
 This program is distributed in the hope that it will be useful, but
 WITHOUT ANY WARRANTY; without even the implied warranty of MERCHANTABILITY
 or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public License for
 more details.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
EOT
printf 'tptools (%s) unstable; urgency=medium\n\n  * Package built by scripts/mkdeb.sh.\n\n -- tptools maintainers <maintainers@tptools.invalid>  %s\n' \
	"$VERSION" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" |
	gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc"/*

# Depends from the binaries' shared libraries
shl=$(mktemp -d)
trap 'rm -rf "$shl"' EXIT
mkdir -p "$shl/debian"
printf 'Source: tptools\n\nPackage: tptools\nArchitecture: any\n' >"$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O "${bins[@]/#/$OLDPWD/}" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "mkdeb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# loaded when needed (lib/base/cryptsetup_dl.c), so no binary names it
depends="$depends, libcryptsetup12"


size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOT
Package: tptools
Version: $VERSION
Architecture: $arch
Maintainer: tptools maintainers <maintainers@tptools.invalid>
Installed-Size: $size
Depends: $depends
Recommends: udev, thin-provisioning-tools
Suggests: sanlock
Section: admin
Priority: optional
Homepage: https://tptools.invalid/
Description: thin-provisioned pools and volumes on device-mapper
 tptools manages thin pools (a data device and a metadata device) and
 thin volumes with snapshots through the kernel's dm-thin targets: one
 multi-call binary, tp, with commands tpcreate, tvcreate, tvsnap,
 tpactivate, tpstatus, tpcheck, tprepair and more.
 .
 The package brings udev rules (/dev/POOL/VOLUME links, pool devices
 marked as taken, activation when a pool's last device appears), a
 systemd unit that activates the pools at boot and deactivates them at
 shutdown, one that runs tpmonitor (thresholds, autoextension), and bash
 completion.
EOT

cat >"$stage/DEBIAN/postinst" <<'EOT'
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] ||
   [ "$1" = abort-remove ]; then
	if command -v deb-systemd-helper >/dev/null; then
		for u in tptools-activate.service tptools-monitor.service; do
			deb-systemd-helper unmask $u >/dev/null || true
			if deb-systemd-helper --quiet was-enabled $u; then
				deb-systemd-helper enable $u >/dev/null || true
			else
				deb-systemd-helper update-state $u >/dev/null || true
			fi
		done
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
	fi
	if [ -S /run/udev/control ] && command -v udevadm >/dev/null; then
		udevadm control --reload-rules || true
	fi
fi
EOT
cat >"$stage/DEBIAN/postrm" <<'EOT'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
	fi
	if [ -S /run/udev/control ] && command -v udevadm >/dev/null; then
		udevadm control --reload-rules || true
	fi
fi
if [ "$1" = purge ] && command -v deb-systemd-helper >/dev/null; then
	deb-systemd-helper purge tptools-activate.service tptools-monitor.service \
		>/dev/null || true
fi
EOT
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"

# DEBIAN/md5sums, as dpkg --verify and debsums read it
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"

deb=$out/tptools_${VERSION}_$arch.deb
fakeroot dpkg-deb --build -Zxz "$stage" "$deb" >/dev/null
echo "$deb"
