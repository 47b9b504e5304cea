#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel.sh - the Debian kernel the VM tests boot, for run.sh and boot.sh
# (sourced; bash).
#
#   vm_kernel_find      KDIR (TP_KERNEL_DIR, else by TP_KERNEL: 6.1 ->
#                       /var/cache/tptools/kernel, 6.12 -> .../kernel-6.12),
#                       KBASE (where lib/modules is: 6.12 has it under usr/),
#                       KVER, KIMG; false when there is no such kernel (also
#                       when TP_KERNEL names another version: VM_KERNEL_BAD=1)
#   vm_modfiles MOD...  the modules MOD need, /lib/modules/... paths in load
#                       order (dependencies first, each once)
#   vm_copy_modules DEST MOD...  those modules into DEST/lib/modules/KVER,
#                       unpacked (.ko.xz/.ko.zst -> .ko: busybox's insmod
#                       loads only plain .ko), with the index files and a
#                       depmod run there
#   vm_vmlinux WORK     prints the image to boot: the uncompressed vmlinux
#                       (PVH: no in-guest decompression under emulation),
#                       cached in WORK per kernel version, else KIMG
# shellcheck disable=SC2034 # VM_KERNEL_BAD: read by the scripts that source this
vm_kernel_find() {
	VM_KERNEL_BAD=0
	case ${TP_KERNEL:-6.1} in
	6.1) KDIR=${TP_KERNEL_DIR:-/var/cache/tptools/kernel} ;;
	6.12) KDIR=${TP_KERNEL_DIR:-/var/cache/tptools/kernel-6.12} ;;
	*) VM_KERNEL_BAD=1; return 1 ;;
	esac
	KBASE=$KDIR
	[ -d "$KBASE/lib/modules" ] || KBASE=$KDIR/usr
	KVER=$(ls -1 "$KBASE/lib/modules" 2>/dev/null | sort -V | tail -1)
	KIMG=$KDIR/boot/vmlinuz-$KVER
	[ -n "$KVER" ] && [ -f "$KIMG" ]
}

vm_modfiles() {
	local m
	for m in "$@"; do
		modprobe -C /dev/null -d "$KBASE" -S "$KVER" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | sed "s#^${KBASE%/}/*#/#" | awk '!seen[$0]++'
}

vm_copy_modules() {
	local dest=$1 f moddir=lib/modules/$KVER
	shift
	[ -s "$KBASE/$moddir/modules.dep" ] || depmod -b "$KBASE" "$KVER" || return 1
	vm_modfiles "$@" | while read -r f; do
		mkdir -p "$dest$(dirname "$f")"
		case $f in
		*.ko.xz) xz -dc "$KBASE$f" >"$dest${f%.xz}" ;;
		*.ko.zst) zstd -qdc "$KBASE$f" >"$dest${f%.zst}" ;;
		*) cp "$KBASE$f" "$dest$f" ;;
		esac
	done
	mkdir -p "$dest/$moddir"
	cp "$KBASE/$moddir"/modules.{order,builtin,builtin.modinfo} "$dest/$moddir/" 2>/dev/null
	sed -i -E 's/\.ko\.(xz|zst)$/.ko/' "$dest/$moddir/modules.order" 2>/dev/null
	depmod -b "$dest" "$KVER"
}

vm_vmlinux() {
	local vmlinux=$1/vmlinux-$KVER
	# 6.1's image is xz-compressed, 6.12's zstd: try each at its magic,
	# keep an ELF
	unpack_at() { # magic decompressor...
		local magic=$1 off
		shift
		command -v "$1" >/dev/null || return 1
		off=$(LC_ALL=C grep -m1 -obUaP "$magic" "$KIMG" 2>/dev/null | head -1 | cut -d: -f1)
		[ -n "$off" ] || return 1
		tail -c +$((off + 1)) "$KIMG" | "$@" >"$vmlinux.tmp" 2>/dev/null
		if [ "$(head -c 4 "$vmlinux.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			mv "$vmlinux.tmp" "$vmlinux"
		fi
		rm -f "$vmlinux.tmp"
		[ -s "$vmlinux" ]
	}
	[ -s "$vmlinux" ] || unpack_at '\xfd7zXZ\x00' xz -dc --single-stream ||
		unpack_at '\x28\xb5\x2f\xfd' zstd -qdc
	if [ -s "$vmlinux" ]; then echo "$vmlinux"; else echo "$KIMG"; fi
}
