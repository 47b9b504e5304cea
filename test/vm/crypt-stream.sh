# SPDX-License-Identifier: GPL-2.0-or-later
# crypt-stream.sh - sourced by the scenario of encrypted volumes (issue 39,
# ". $TP_SRC/test/vm/crypt-stream.sh"): the check, on the real kernel, that
# tpsend of an encrypted volume carries no plaintext (tpsend.8, tp-stream.5).
# Offline there is no plaintext path into an encrypted volume, so only a
# scenario that writes through dm-crypt can check it.

# crypt_marker NAME: a line of plaintext no ciphertext holds by chance (random
# once per call), printed for the scenario to write into a
# file on the unlocked volume (many times over, so that it fills chunks)
crypt_marker() {
	printf 'tptools-plaintext-%s-%s\n' "$1" "$(head -c 21 /dev/urandom | od -An -tx1 | tr -d ' \n')"
}

# stream_lacks_plaintext STREAM PLAINDEV MARKER: MARKER is on PLAINDEV (the
# unlocked /dev/POOL/VOL, read after a sync: it was written, and grep finds
# it there) and nowhere in STREAM (a full or incremental tpsend of a read-only
# snapshot taken after the write, or its --format raw export); note_fail
# otherwise. Also that STREAM is an encrypted stream (version 2, bit 1) or
# a LUKS2 image, so that a plain stream of the wrong volume cannot pass.
stream_lacks_plaintext() {
	local stream=$1 dev=$2 marker=$3
	sync
	grep -qaF -- "$marker" "$dev" ||
		{ note_fail "$dev does not hold the marker (the check could not see it)"; return; }
	if [ "$(head -c 8 "$stream" | tr -d '\0')" = TPSTREAM ]; then
		[ "$(od -An -tu4 -j8 -N4 "$stream" | tr -d ' ')" = 2 ] &&
			[ $(($(od -An -tu4 -j12 -N4 "$stream") & 2)) = 2 ] ||
			{ note_fail "$stream is not an encrypted volume's stream"; return; }
	else
		cryptsetup isLuks "$stream" || { note_fail "$stream is neither a stream nor LUKS2"; return; }
	fi
	if grep -qaF -- "$marker" "$stream"; then
		note_fail "$stream carries plaintext the scenario wrote ($marker)"
	fi
}
