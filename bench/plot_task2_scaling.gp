# Plots the table written by bench/task2_scaling.sh: microseconds per Task 2 iteration against
# the number of scenario groups n, one line per number of assets A (log-log).
#
#   bench/task2_scaling.sh > docs/perf/task2_scaling.dat     # from the repository root
#   gnuplot bench/plot_task2_scaling.gp                      # -> docs/perf/task2_scaling.png
#
# Columns: 1 n, 2 A, 3 iterations, 4 GLMO chosen, 5 oracle, 6 tracker, 7 GLMO, 8 total (us per
# iteration), 9 simplex iterations per solve, 10 load average. Rows that timed out have "-".
if (!exists("datafile")) datafile = 'docs/perf/task2_scaling.dat'
if (!exists("outdir")) outdir = 'docs/perf'
series(A) = sprintf("< awk '!/^#/ && $2 == %d && $8 != \"-\"' '%s'", A, datafile)
set terminal png size 900,560
set output outdir.'/task2_scaling.png'
set logscale xy
set xlabel 'scenario groups n'
set ylabel 'microseconds per iteration (first 100 iterations, Variant II)'
set key top left
set grid
plot series(50) using 1:8 with linespoints title 'A = 50 assets', \
     series(200) using 1:8 with linespoints title 'A = 200 assets', \
     series(500) using 1:8 with linespoints title 'A = 500 assets'
