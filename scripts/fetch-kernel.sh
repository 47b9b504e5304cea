#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-kernel.sh - unpack a Debian kernel image package for the VM tests
# (test/vm/run.sh) and print the directory it went to.
#
#   scripts/fetch-kernel.sh [-q] 6.1|6.12
#     6.1    Debian 12 (bookworm) linux-image-amd64, from the host's apt, into
#            /var/cache/tptools/kernel (what scripts/install-deps.sh makes)
#     6.12   Debian 13 (trixie) linux-image-amd64, through apt inside the
#            trixie root of scripts/setup-reference.sh (made if missing),
#            into /var/cache/tptools/kernel-6.12
#     TP_KERNEL_DIR=dir   unpack there instead
#
# `apt-get download` + `dpkg-deb -x`: no kernel install, no initramfs hooks.
# Idempotent: a directory that already holds a vmlinuz is left alone.
# Exit: 0 ready, 2 could not be fetched (not root, no network); the
# message says why.
set -eu
quiet=0
[ "${1:-}" = "-q" ] && { quiet=1; shift; }
say() { [ "$quiet" = 1 ] || echo "fetch-kernel: $*" >&2; }
die() { echo "fetch-kernel: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd -P)

ver=${1:-}
case $ver in
6.1) kdir=${TP_KERNEL_DIR:-/var/cache/tptools/kernel} ;;
6.12) kdir=${TP_KERNEL_DIR:-/var/cache/tptools/kernel-$ver} ;;
*) die "usage: fetch-kernel.sh [-q] 6.1|6.12" ;;
esac

if ls "$kdir"/boot/vmlinuz-* >/dev/null 2>&1; then
	echo "$kdir"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "needs root to fetch the $ver kernel into $kdir"

# apt commands run on the host (6.1) or inside the trixie root (6.12)
run=()
if [ "$ver" = 6.12 ]; then
	root=${REF_ROOT:-/var/cache/tptools/trixie}
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		say "setting up the Debian 13 root $root"
		REF_ROOT=$root "$here"/setup-reference.sh -q >/dev/null ||
			die "no Debian 13 root (scripts/setup-reference.sh failed)"
	fi
	run=(chroot "$root")
fi

# linux-image-amd64 is a metapackage: find the real image package.
resolve() {
	"${run[@]}" apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1
}
real=$(resolve)
if [ -z "$real" ]; then
	"${run[@]}" apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
	real=$(resolve)
fi
[ -n "$real" ] || die "cannot resolve linux-image-amd64"
case $real in
linux-image-"$ver".*) ;;
*) die "linux-image-amd64 is $real, not a $ver kernel" ;;
esac

say "unpacking $real into $kdir"
if [ ${#run[@]} -gt 0 ]; then
	tmp=$(mktemp -d "$root/tmp/kernel.XXXXXX")
	chmod 755 "$tmp" # apt's _apt sandbox user writes here
	inside=/tmp/${tmp##*/}
	"${run[@]}" sh -c "cd $inside && apt-get download -qq $real" >/dev/null 2>&1 ||
		{ rm -rf "$tmp"; die "apt-get download $real failed"; }
else
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt's _apt sandbox user writes here
	(cd "$tmp" && apt-get download -qq "$real" >/dev/null 2>&1) ||
		{ rm -rf "$tmp"; die "apt-get download $real failed"; }
fi
rm -rf "$kdir.tmp"
mkdir -p "$kdir.tmp"
dpkg-deb -x "$tmp"/*.deb "$kdir.tmp" || { rm -rf "$tmp" "$kdir.tmp"; die "dpkg-deb -x failed"; }
rm -rf "$tmp" "$kdir"
mv "$kdir.tmp" "$kdir"
echo "$kdir"
