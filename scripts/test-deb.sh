#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-deb.sh - the Debian package in a fresh Debian 12 (bookworm) chroot:
# it installs with apt pulling its Depends from the chroot's own cache (no
# network), `tp --version` and the lease programs' --version run, the
# files are where make install puts them, and `apt-get purge` leaves none
# of them behind.
#
# The chroot is made once with `debootstrap --variant=minbase bookworm`
# (network, ~30 s) into /var/cache/tptools/bookworm, with the package's
# dependencies downloaded into its apt cache; every run then works on a
# fresh copy of it, offline. Remove that directory to refresh it.
# Usage: scripts/test-deb.sh [PACKAGE.deb]   (default: make deb). Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${TPTOOLS_DEB_CHROOT:-/var/cache/tptools/bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
deb=${1:-}
[ "$(id -u)" = 0 ] || { echo "test-deb: needs root (chroot)" >&2; exit 2; }
[ -n "$deb" ] || deb=$(make -s --no-print-directory deb)
[ -f "$deb" ] || { echo "test-deb: no package $deb" >&2; exit 2; }
version=$(dpkg-deb -f "$deb" Version)
# the package names of Depends, without versions
mapfile -t deps < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//; s/ //g' |
	grep .)

step() { echo "== $*"; }
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }

if [ ! -x "$CACHE/usr/bin/apt-get" ]; then
	step "debootstrap --variant=minbase bookworm $CACHE (once)"
	command -v debootstrap >/dev/null || fail "debootstrap is not installed"
	rm -rf "$CACHE.new"
	mkdir -p "$(dirname "$CACHE")"
	debootstrap --variant=minbase bookworm "$CACHE.new" "$MIRROR" >"$CACHE.log" 2>&1 ||
		fail "debootstrap failed; see $CACHE.log"
	cp /etc/resolv.conf "$CACHE.new/etc/resolv.conf"
	chroot "$CACHE.new" apt-get update -q >>"$CACHE.log" 2>&1 ||
		fail "apt-get update in the chroot failed; see $CACHE.log"
	chroot "$CACHE.new" apt-get install -q -y --download-only "${deps[@]}" >>"$CACHE.log" 2>&1 ||
		fail "downloading ${deps[*]} failed; see $CACHE.log"
	mv "$CACHE.new" "$CACHE"
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/tp-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
step "fresh copy of the chroot in $root"
cp -a "$CACHE/." "$root"
cp "$deb" "$root/tmp/tptools.deb"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }

for d in "${deps[@]}"; do
	[ "$d" = libc6 ] && continue
	! in_root dpkg -s "$d" >/dev/null 2>&1 || echo "   ($d is in the chroot already)"
done

# dpkg -i leaves it unconfigured for want of its Depends, which apt then
# pulls from the cache (apt-get install of a local .deb with --no-download
# trips over an apt bug: "Pathname to install is not absolute").
step "dpkg -i tptools.deb; apt-get -f install (offline, Depends only)"
in_root dpkg -i /tmp/tptools.deb >"$work/install.log" 2>&1 || true
in_root apt-get -f install -q -y --no-download --no-install-recommends >>"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "install failed (remove $CACHE if the Depends changed)"; }
in_root dpkg -s tptools 2>/dev/null | grep -q '^Status: install ok installed' ||
	{ cat "$work/install.log"; fail "tptools is not installed"; }
for d in "${deps[@]}"; do
	in_root dpkg -s "$d" 2>/dev/null | grep -q '^Status: install ok installed' ||
		fail "dependency $d was not installed"
done

step "tp --version"
got=$(in_root tp --version) || fail "tp --version failed"
[ "$got" = "tptools $version" ] || fail "tp --version printed '$got'"
in_root tvsnap --help >/dev/null || fail "tvsnap --help failed"
# the lease's programs run with what the package pulled in (their libraries)
for p in tp-lease-holder tp-lease-fence; do
	got=$(in_root /usr/lib/tptools/$p --version) || fail "$p --version failed"
	[ "$got" = "$p (tptools) $version" ] || fail "$p --version printed '$got'"
done
for f in /usr/sbin/tp /usr/sbin/tpactivate /usr/share/man/man8/tpcreate.8.gz \
	/lib/udev/rules.d/60-tptools-member.rules /lib/udev/rules.d/69-tptools-autoactivate.rules \
	/lib/systemd/system/tptools-activate.service \
	/lib/systemd/system/tptools-autoactivate@.service \
	/usr/share/bash-completion/completions/tvsnap /usr/share/doc/tptools/copyright \
	/usr/lib/tptools/tp-lease-holder /usr/lib/tptools/tp-lease-fence; do
	[ -e "$root$f" ] || fail "$f is not installed"
done
in_root dpkg -L tptools >"$work/files"

step "apt-get purge tptools"
in_root apt-get purge -q -y tptools >"$work/purge.log" 2>&1 ||
	{ cat "$work/purge.log"; fail "purge failed"; }
! in_root dpkg -s tptools >/dev/null 2>&1 || fail "dpkg still knows tptools after the purge"
while read -r f; do
	[ -d "$root$f" ] && continue
	if [ -e "$root$f" ] || [ -L "$root$f" ]; then
		fail "$f is left after the purge"
	fi
done <"$work/files"
step "ok: tptools $version installs, runs and purges cleanly in bookworm"
