# SPDX-License-Identifier: GPL-2.0-or-later
# gen.awk - generate thin_dump-style XML workloads for interop tests and
# benchmarks (no metadata involved: the XML itself is the input).
#
#   awk -v ndev=N -v blocks=B [-v seed=S] [-v share=P] [-v single=P] -f gen.awk
#
# N devices (ids with gaps), each mapping about B blocks in runs of 1..64
# with holes between some runs. A fraction SHARE (percent, default 30) of
# runs reuse the data blocks of the first device at the same origin, as a
# snapshot would; the rest get fresh data blocks. SINGLE percent (default
# 20) of runs are one block. Adjacent runs are never mergeable (different
# time or data not contiguous), so thin_dump of the restored metadata
# prints exactly this text back. Output is deterministic for one awk.
function rnd(n) { return int(rand() * n) }
BEGIN {
	if (ndev == "") ndev = 3
	if (blocks == "") blocks = 1000
	if (seed == "") seed = 1
	if (share == "") share = 30
	if (single == "") single = 20
	srand(seed)
	maxt = ndev + 2
	nr_data = ndev * (3 * blocks + 64) + 1024	# gaps: up to 2 per run
	printf "<superblock uuid=\"\" time=\"%d\" transaction=\"%d\" flags=\"0\" version=\"2\" data_block_size=\"128\" nr_data_blocks=\"%d\">\n", maxt, seed, nr_data
	next_free = 0
	for (d = 0; d < ndev; d++) {
		# one device's runs are built first: mapped_blocks precedes them
		n = 0; origin = rnd(16); mapped = 0; pdata = -2; ptime = -1; pend = -1
		while (mapped < blocks) {
			len = (rnd(100) < single) ? 1 : 1 + rnd(64)
			if (len > blocks - mapped) len = blocks - mapped
			if (d > 0 && rnd(100) < share && (origin in base) && (origin + len - 1) in base && base[origin + len - 1] == base[origin] + len - 1) {
				data = base[origin]
				t = btime[origin]
			} else {
				data = next_free
				next_free += len + rnd(3)
				t = rnd(maxt + 1)
			}
			if (origin == pend && data == pdata && t == ptime)
				t = (t + 1) % (maxt + 1)
			if (d == 0)
				for (i = 0; i < len; i++) { base[origin + i] = data + i; btime[origin + i] = t }
			ro[n] = origin; rd[n] = data; rl[n] = len; rt[n] = t; n++
			mapped += len
			pend = origin + len; pdata = data + len; ptime = t
			origin += len + (rnd(4) == 0 ? 1 + rnd(100) : 0)
		}
		printf "  <device dev_id=\"%d\" mapped_blocks=\"%d\" transaction=\"%d\" creation_time=\"%d\" snap_time=\"%d\">\n", d * 3 + 1, mapped, d, d, d + 1
		for (i = 0; i < n; i++) {
			if (rl[i] == 1)
				printf "    <single_mapping origin_block=\"%d\" data_block=\"%d\" time=\"%d\"/>\n", ro[i], rd[i], rt[i]
			else
				printf "    <range_mapping origin_begin=\"%d\" data_begin=\"%d\" length=\"%d\" time=\"%d\"/>\n", ro[i], rd[i], rl[i], rt[i]
		}
		print "  </device>"
	}
	# one empty device last
	printf "  <device dev_id=\"%d\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"0\" snap_time=\"0\">\n", ndev * 3 + 5
	print "  </device>"
	print "</superblock>"
	if (next_free > nr_data) { print "gen.awk: nr_data too small" > "/dev/stderr"; exit 1 }
}
