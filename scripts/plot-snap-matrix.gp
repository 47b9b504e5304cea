# SPDX-License-Identifier: GPL-2.0-or-later
# plot-snap-matrix.gp - the criterion score per array of tpcreate's
# profiles and LVM's configurations (scripts/bench-snap-matrix.sh).
#   gnuplot -c scripts/plot-snap-matrix.gp SCORES.dat SCORES-FRESH.dat OUT.png
# Each .dat: a header "array balanced throughput snapshots lvm lvmperf",
# then one row per array (result set): the scores (NaN where not measured).
# A label ending in "(old)" is a result set that ran before PRETOUCH.
set terminal pngcairo size 1500,560 font "sans,10"
set output ARG3
set style data histogram
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.05]
set ytics 0.1
set grid ytics
set key below horizontal font ",9"
set xtics rotate by 20 right font ",8"
colours = "#1f77b4 #ff7f0e #2ca02c #d62728 #ff9896"
set multiplot layout 1,2 title "Criterion score (worst ratio to the best pool per workload; higher is better); (old): ran before PRETOUCH"
set title "all workloads (fresh, provisioned, after a snapshot)"
plot for [c = 2:6] ARG1 using c:xtic(1) title columnhead(c) lc rgb word(colours, c - 1)
set title "without the after-snapshot workloads"
plot for [c = 2:6] ARG2 using c:xtic(1) title columnhead(c) lc rgb word(colours, c - 1)
unset multiplot
