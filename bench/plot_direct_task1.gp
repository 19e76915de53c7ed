# Plots docs/perf/direct_task1.dat (figures printed by bench_direct_task1, CPU seconds;
# docs/performance.md, "When scfw is worth it", "Task 1"): Task 1 solved directly (one pass for
# the moments + Ipopt on the epigraph QCQP) and by scfw, time to a relative accuracy in phi,
# against the rows per task N.
#
#   gnuplot bench/plot_direct_task1.gp        # from the repository root -> docs/perf/direct_task1.png
#
# Columns: 1 N, 2 one pass (moments), 3 pass + Ipopt to the optimum (tol 1e-12), 4 pass + Ipopt
# to 1e-2, 5 pass + Ipopt to 1e-3, 6 scfw best time to 1e-2 (first iterate there), 7 scfw best
# time to 1e-2 (staying there), 8 scfw best time to 1e-3 (first iterate), 9 scfw best time to
# 1e-3 (staying there). "-": not measured or not reached.
if (!exists("datafile")) datafile = 'docs/perf/direct_task1.dat'
if (!exists("outdir")) outdir = 'docs/perf'
set datafile missing '-'
set terminal png size 900,640
set output outdir.'/direct_task1.png'
set logscale xy
set format y '10^{%L}'
set format x '10^{%L}'
set xlabel 'rows per task N (m = 10 tasks, d = 100)'
set ylabel 'CPU seconds'
set key below
set grid
set xrange [500:2e6]
set yrange [5e-3:300]
plot datafile using 1:3 with linespoints lw 2 title 'direct: one pass + Ipopt, to the optimum', \
     datafile using 1:4 with linespoints title 'direct: one pass + Ipopt, to 1e-2', \
     datafile using 1:5 with linespoints title 'direct: one pass + Ipopt, to 1e-3', \
     datafile using 1:2 with linespoints dt 2 title 'one pass over the data alone (the moments)', \
     datafile using 1:6 with points pt 7 ps 1.5 title 'scfw, best time to 1e-2 (first iterate there)', \
     datafile using 1:7 with points pt 5 ps 1.5 title 'scfw, best time to 1e-2 (staying there)', \
     datafile using 1:8 with points pt 9 ps 1.5 title 'scfw, best time to 1e-3 (first iterate there)', \
     datafile using 1:9 with points pt 11 ps 1.5 title 'scfw, best time to 1e-3 (staying there)'
