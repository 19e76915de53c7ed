# gnuplot docs/perf/sparse_sweep.gp (from the repository root): docs/perf/sparse_sweep.png from
# docs/perf/sparse_sweep.dat (bench/sparse_sweep.sh 1000 10000 100000 1000000).
set terminal pngcairo size 1000,420
set output "docs/perf/sparse_sweep.png"
set multiplot layout 1,2 title "Task 1, synthetic sparse data (10 tasks x 200 rows, 50 non-zeros a row), 200 iterations"
set logscale xy
set xlabel "d"
set key top left
set ylabel "microseconds per iteration"
plot "< grep ' sparse ' docs/perf/sparse_sweep.dat" using 1:4 with linespoints title "sparse Jacobian, compact atoms", \
     "< grep ' dense ' docs/perf/sparse_sweep.dat" using 1:4 with linespoints title "dense Jacobian"
set ylabel "max resident (MB)"
plot "< grep ' sparse ' docs/perf/sparse_sweep.dat" using 1:($5/1000) with linespoints title "sparse Jacobian, compact atoms", \
     "< grep ' dense ' docs/perf/sparse_sweep.dat" using 1:($5/1000) with linespoints title "dense Jacobian"
unset multiplot
