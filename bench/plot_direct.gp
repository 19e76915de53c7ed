# Plots docs/perf/direct.dat (figures printed by bench_direct, CPU seconds; docs/performance.md,
# "When scfw is worth it"): the direct solve of Task 2 and scfw against the days of data T.
#
#   gnuplot bench/plot_direct.gp        # from the repository root -> docs/perf/direct.png
#
# Columns: 1 T, 2 one pass (group means), 3 pass + dual simplex (n = 200), 4 pass + barrier,
# 5 per-day LP (n = T) with the dual simplex, 6 scfw STORM K = 3000 whole run, 7 its best relative
# error, 8 scfw STORM time to 1e-1 relative error. "-": not measured.
if (!exists("datafile")) datafile = 'docs/perf/direct.dat'
if (!exists("outdir")) outdir = 'docs/perf'
set datafile missing '-'
set terminal png size 900,640
set output outdir.'/direct.png'
set logscale xy
set format y '10^{%L}'
set format x '10^{%L}'
set xlabel 'days of returns T (50 assets)'
set ylabel 'CPU seconds'
set key below
set grid
set xrange [500:2e6]
plot datafile using 1:3 with linespoints lw 2 title 'direct: one pass + Clp dual simplex (n = 200 groups, to the optimum)', \
     datafile using 1:4 with linespoints title 'direct: one pass + Clp barrier', \
     datafile using 1:2 with linespoints dt 2 title 'one pass over the data alone', \
     datafile using 1:5 with linespoints title 'per-day CVaR LP (n = T rows), Clp dual simplex', \
     datafile using 1:6 with points pt 7 ps 1.5 title 'scfw STORM, K = 3000 run (relative error 0.11-0.36: 1e-1 not reached)', \
     datafile using 1:8 with points pt 5 ps 1.5 title 'scfw STORM, time to relative error 1e-1 (K = 10^4 run)'
