# SPDX-License-Identifier: GPL-2.0-or-later
# plot-throughput.gp - ratio to the raw device per block size and
# configuration, one panel per workload kind (scripts/bench-throughput.sh).
#   gnuplot -c scripts/plot-throughput.gp PREFIX OUT.png TITLE
# PREFIX-sw.dat, PREFIX-rw.dat, PREFIX-rd.dat: a header "workload C1 lo hi
# C2 lo hi ...", then one row per workload: label, then median min max of
# the ratio for each configuration (NaN where not measured).
prefix = ARG1
set terminal pngcairo size 1500,520 font "sans,10"
set output ARG2
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.6]   # larger spreads are clipped: the CSV has them
set ytics 0.1
set grid ytics
set key below horizontal font ",9"
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 front
set multiplot layout 1,3 title sprintf("%s: throughput as a ratio of the raw device (median, min-max bars)", ARG3)
# one colour per configuration in every panel
colours = "|linear:#7f7f7f|tp-fresh:#1f77b4|tp-prov:#17becf|tp-snap:#9ecae1|lvm-fresh:#d62728|lvm-prov:#ff9896|field-fresh:#ff7f0e|field-prov:#ffbb78|"
colour(n) = (i = strstrt(colours, "|" . n . ":"), i > 0 ? substr(colours, i + strlen(n) + 2, i + strlen(n) + 8) : "#000000")
titles = "sw rw rd"
names = "'sequential O\\_DIRECT writes (bs)' 'random O\\_DIRECT writes (bs)' 'reads'"
do for [p = 1:3] {
	f = sprintf("%s-%s.dat", prefix, word(titles, p))
	n = int(system(sprintf("test -s %s && head -1 %s | wc -w || echo 1", f, f)))
	rows = int(system(sprintf("test -s %s && tail -n +2 %s | wc -l || echo 0", f, f)))
	set title word(names, p)
	if (rows > 0 && n > 1) {
		plot for [c = 0:(n - 1) / 3 - 1] f using (column(2 + 3 * c)):(column(3 + 3 * c)):(column(4 + 3 * c)):xtic(1) title columnhead(2 + 3 * c) \
			lc rgb colour(word(system("head -1 " . f), 2 + 3 * c))
	} else {
		unset key
		plot [0:1] NaN notitle
		set key
	}
}
unset multiplot
