# Plots the checkpoints bench_group_dro writes with --curves (docs/performance.md, "Group DRO"):
# the relative error in the worst-group loss against CPU seconds and against passes over the
# data, one line per method, for the data set of `rows` rows.
#
#   gnuplot -e "rows=10000000" bench/plot_group_dro.gp   # from the repository root
#
# Columns of the file: 1 rows, 2 method, 3 CPU seconds, 4 passes, 5 phi, 6 relative error.
if (!exists("datafile")) datafile = 'docs/perf/group_dro.dat'
if (!exists("outdir")) outdir = 'docs/perf'
if (!exists("rows")) rows = 10000000
if (!exists("methods")) methods = "scfw:taylor:100 gdro:100:1:0.1:avg cvar:100:3:avg fw"
set terminal png size 1200,520
set output sprintf('%s/group_dro_%d.png', outdir, rows)
set multiplot layout 1,2 title sprintf('worst-group logistic loss, %d rows, 10 groups (race x label), l1 ball', rows)
set logscale xy
set format y '10^{%L}'
set ylabel 'relative error in max_g f_g'
set key bottom left
set grid
set yrange [1e-4:1]
set xlabel 'CPU seconds'
plot for [m in methods] datafile using (($1 == rows && strcol(2) eq m) ? $3 : NaN):($6 > 1e-5 ? $6 : 1e-5) with lines lw 2 title m
set xlabel 'passes over the data'
plot for [m in methods] datafile using (($1 == rows && strcol(2) eq m) ? $4 : NaN):($6 > 1e-5 ? $6 : 1e-5) with lines lw 2 title m
unset multiplot
