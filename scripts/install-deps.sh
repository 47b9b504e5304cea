#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install-deps.sh - install every Debian 12 package tptools needs to build,
# test and run its real-kernel VM tests. Idempotent: skips what is present.
#
#   TP_KERNEL_DIR   where Debian 12's kernel image is unpacked for the VM tests
#                   (default /var/cache/tptools/kernel); unset, Debian 13's
#                   goes to /var/cache/tptools/kernel-6.12 too (through the
#                   trixie root below): scripts/fetch-kernel.sh does both.
#   TP_NO_VM=1      skip the VM packages and the kernel images.
#   TP_PROMTOOL_DIR where promtool (the Prometheus text format's linter and rule
#                   tester, for test/shell/t-prometheus.sh) is unpacked from Debian's
#                   prometheus package (default /var/cache/tptools/promtool): not
#                   installed, which would also start a Prometheus server.
#   TP_NO_REF=1     skip thin-provisioning-tools 1.1.0 (scripts/setup-reference.sh:
#                   a minimal Debian 13 under /var/cache/tptools/trixie, for the
#                   interop tests and benchmarks against the current generation).
set -euo pipefail

BUILD_PKGS="build-essential pkg-config libdevmapper-dev libblkid-dev libudev-dev libpopt-dev
  libcunit1-dev libexpat1-dev libsanlock-dev libcryptsetup-dev"
TEST_PKGS="thin-provisioning-tools xz-utils python3 man-db clang libclang-rt-14-dev strace lintian
  inotify-tools cryptsetup-bin"
VM_PKGS="qemu-system-x86 busybox-static sanlock mdadm cpio kmod zstd dmsetup util-linux e2fsprogs fio debootstrap lvm2
  gnuplot-nox"
KDIR=${TP_KERNEL_DIR:-/var/cache/tptools/kernel}

want=()
pkgs="$BUILD_PKGS $TEST_PKGS"
[ "${TP_NO_VM:-0}" = 1 ] || pkgs="$pkgs $VM_PKGS"
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || want+=("$p")
done

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	apt-get update -qq
	updated=1
}

if [ ${#want[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: missing packages (${want[*]}); run as root" >&2
		exit 1
	fi
	echo "install-deps: installing ${want[*]}"
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" \
		>/dev/null
fi

# promtool: `apt-get download` + `dpkg-deb -x`, only the one binary
PROMTOOL_DIR=${TP_PROMTOOL_DIR:-/var/cache/tptools/promtool}
if ! command -v promtool >/dev/null && [ ! -x "$PROMTOOL_DIR/promtool" ] && [ "$(id -u)" = 0 ]; then
	apt_update
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) &&
	   dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x" &&
	   install -D -m 0755 "$tmp/x/usr/bin/promtool" "$PROMTOOL_DIR/promtool"; then
		echo "install-deps: promtool unpacked into $PROMTOOL_DIR"
	else
		echo "install-deps: promtool is not unpacked; t-prometheus skips its promtool checks"
	fi
	rm -rf "$tmp"
fi

if [ "${TP_NO_VM:-0}" != 1 ]; then
	# Debian 12's kernel (6.1) is needed; Debian 13's (6.12), the VM tests'
	# second kernel, is skipped by them when it could not be fetched
	TP_KERNEL_DIR=$KDIR "$(dirname "$0")"/fetch-kernel.sh 6.1 >/dev/null || exit 1
	if [ -z "${TP_KERNEL_DIR:-}" ] && [ "${TP_NO_REF:-0}" != 1 ]; then
		"$(dirname "$0")"/fetch-kernel.sh 6.12 >/dev/null ||
			echo "install-deps: Debian 13's kernel is not unpacked; the VM tests will skip it"
	fi
fi
if [ "${TP_NO_REF:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
	"$(dirname "$0")"/setup-reference.sh -q >/dev/null ||
		echo "install-deps: thin-provisioning-tools 1.1.0 is not set up; the checks against it will be skipped"
fi
exit 0
