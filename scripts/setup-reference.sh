#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# setup-reference.sh - make thin-provisioning-tools 1.1.0 (Debian 13's Rust
# rewrite, what users now compare with) runnable on this Debian 12 host,
# beside the 0.9.0 that Debian 12 ships, and print the directory of its
# commands.
#
#   scripts/setup-reference.sh [-q]
#     REF_ROOT=dir   where the trixie system goes
#                    (default /var/cache/tptools/trixie)
#
# The first run bootstraps a minimal Debian 13 system (debootstrap
# --variant=minbase trixie, about half a minute) and installs
# thin-provisioning-tools into it (a few seconds); later runs reuse it.
# It then writes one small wrapper per command into $REF_ROOT.bin/
# (thin_check, thin_dump, thin_restore, thin_repair, thin_delta,
# thin_metadata_size, thin_ls, thin_metadata_pack, thin_metadata_unpack,
# thin_rmap) that runs the trixie binary through the
# trixie dynamic loader and libraries. So the commands take host paths
# as they are (no chroot, no bind mounts) and run next to the host's
# 0.9.0 in one script. Prints that directory on stdout.
#
# Exit: 0 ready, 2 could not be set up (no network, no debootstrap, not
# root); the message says why. Tests skip the 1.1.0 checks then, and say so.
set -eu
quiet=0
[ "${1:-}" = "-q" ] && quiet=1
root=${REF_ROOT:-/var/cache/tptools/trixie}
bin=$root.bin
say() { [ "$quiet" = 1 ] || echo "setup-reference: $*" >&2; }
die() { echo "setup-reference: $*" >&2; exit 2; }

loader=$root/lib64/ld-linux-x86-64.so.2
tool=$root/usr/sbin/pdata_tools
libs=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu

if [ ! -x "$tool" ]; then
	[ "$(id -u)" = 0 ] || die "needs root to bootstrap $root"
	if ! command -v debootstrap >/dev/null; then
		say "installing debootstrap"
		apt-get install -y debootstrap >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get install -y debootstrap >/dev/null 2>&1; } ||
			die "cannot install debootstrap (apt-get failed)"
	fi
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		say "bootstrapping Debian 13 (trixie) into $root"
		rm -rf "$root.tmp"
		mkdir -p "$(dirname "$root")"
		debootstrap --variant=minbase trixie "$root.tmp" >"$root.log" 2>&1 ||
			die "debootstrap trixie failed; see $root.log"
		rm -rf "$root"
		mv "$root.tmp" "$root"
	fi
	say "installing thin-provisioning-tools into $root"
	chroot "$root" apt-get install -y thin-provisioning-tools >>"$root.log" 2>&1 ||
		{ chroot "$root" apt-get update >>"$root.log" 2>&1 &&
		  chroot "$root" apt-get install -y thin-provisioning-tools >>"$root.log" 2>&1; } ||
		die "apt-get install thin-provisioning-tools failed in $root; see $root.log"
fi
[ -x "$loader" ] || die "$root has no $loader"

mkdir -p "$bin"
for cmd in thin_check thin_dump thin_restore thin_repair thin_delta thin_metadata_size thin_ls \
	thin_metadata_pack thin_metadata_unpack thin_rmap; do
	cat >"$bin/$cmd.tmp" <<EOF
#!/bin/sh
# $cmd from thin-provisioning-tools in $root (made by scripts/setup-reference.sh)
exec "$loader" --library-path "$libs" --argv0 $cmd "$tool" "\$@"
EOF
	chmod +x "$bin/$cmd.tmp"
	mv "$bin/$cmd.tmp" "$bin/$cmd"
done
version=$("$bin/thin_check" --version 2>/dev/null) || die "the wrapper in $bin does not run"
say "thin-provisioning-tools $version ready in $bin"
echo "$bin"
