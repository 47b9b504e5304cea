# SPDX-License-Identifier: GPL-2.0-or-later
# The layers as docs/ARCHITECTURE.md draws them, for the tools: tools/ include only
# lib/pool, lib/base and tools headers, and the lib/pool headers they
# include name no metadata/ or kernel/ header (lib/pool's own types).
cd "$TOP"
bad=$(grep -Hn '^#include "' tools/*.c tools/*.h |
	grep -v '"lib/pool/\|"lib/base/\|"tools/' || true)
[ -z "$bad" ] || fail "tools include a lower layer: $bad"
for h in $(grep -h '^#include "lib/pool/' tools/*.c tools/*.h | sed 's/.*"\(.*\)"/\1/' | sort -u); do
	bad=$(grep -Hn '^#include "\(metadata\|kernel\)/' "$h" || true)
	[ -z "$bad" ] || fail "$h (included by tools) includes a lower layer: $bad"
done
