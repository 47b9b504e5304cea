#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkbootroot.sh - the Debian 12 root the boot test (test/vm/boot.sh) boots:
# `debootstrap --variant=minbase bookworm` with systemd as init, udev,
# mdadm, e2fsprogs, kmod, dmsetup and the package's Depends, made once
# into /var/cache/tptools/bootroot (network, a few minutes) and reused
# offline after that. Prints the directory.
#
#   scripts/mkbootroot.sh [PACKAGE.deb]
#
# With a package, its Depends (dpkg-deb -f DEB Depends) are part of the
# root: a cached root that lacks one of them, or any other package named
# here, is built again (so a new Depends is picked up). Remove the
# directory to refresh it. The boot test installs the package itself, in
# a copy of this root, with dpkg.
# Environment: TP_BOOTROOT (the directory), MIRROR (default
# http://deb.debian.org/debian).
# Exit: 0 ready; 2 it could not be made (not root, no debootstrap, no
# network: the message says why; see the log next to the directory).
set -euo pipefail
ROOT=${TP_BOOTROOT:-/var/cache/tptools/bootroot}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
deb=${1:-}
die() { echo "mkbootroot: $*" >&2; exit 2; }

# what the booted system needs: systemd as PID 1 (systemd-sysv), udev,
# md arrays, ext4, module loading, dm rules; procps for the test's pgrep
pkgs=(systemd systemd-sysv udev mdadm e2fsprogs kmod dmsetup util-linux procps)
if [ -n "$deb" ]; then
	[ -f "$deb" ] || die "no package $deb"
	mapfile -t -O ${#pkgs[@]} pkgs < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' |
		sed 's/(.*//; s/|.*//; s/ //g' | grep .)
fi

# every wanted package installed in the cached root?
complete() {
	local p
	[ -x "$ROOT/lib/systemd/systemd" ] || return 1
	for p in "${pkgs[@]}"; do
		chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || return 1
	done
}
if complete; then
	echo "$ROOT"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "needs root to debootstrap $ROOT"
command -v debootstrap >/dev/null || die "debootstrap is not installed"
log=$ROOT.log
mkdir -p "$(dirname "$ROOT")"
rm -rf "$ROOT.new"
echo "mkbootroot: debootstrap bookworm into $ROOT (once; log $log)" >&2
include=$(IFS=,; echo "${pkgs[*]}")
debootstrap --variant=minbase --include="$include" bookworm "$ROOT.new" "$MIRROR" >"$log" 2>&1 ||
	{ rm -rf "$ROOT.new"; die "debootstrap failed (no network?); see $log"; }
# no downloaded packages in the image the test copies every run
rm -f "$ROOT.new"/var/cache/apt/archives/*.deb
rm -rf "$ROOT"
mv "$ROOT.new" "$ROOT"
complete || die "$ROOT lacks some of ${pkgs[*]}; see $log"
echo "$ROOT"
