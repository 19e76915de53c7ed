# Plots the table written by bench_scaling --out FILE: microseconds per iteration against d.
#
#   build/bin/bench_scaling --repeats 3 --out docs/perf/scaling.dat
#   gnuplot bench/plot_scaling.gp            # from the repository root
#   gnuplot -e "datafile='x.dat'; outdir='out'" bench/plot_scaling.gp
#
# Writes OUTDIR/scaling.png (pngcairo, or png when cairo is missing) and OUTDIR/scaling.svg.
# Columns: 1 d, 2 m, 3 mode (auto|clp), 4 GLMO used, 5 iterations, 6 oracle, 7 tracker, 8 GLMO,
# 9 update, 10 total (us per iteration), 11 simplex iterations per solve, 12 setup seconds.
# Needs awk (each series is the rows of one m and one mode, selected with awk so lines join).

if (!exists("datafile")) datafile = 'docs/perf/scaling.dat'
if (!exists("outdir")) outdir = 'docs/perf'

series(M, MODE) = sprintf("< awk '!/^#/ && $2 == %d && $3 == \"%s\"' '%s'", M, MODE, datafile)

do for [fmt in "png svg"] {
  if (fmt eq "png") {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
      set terminal pngcairo size 1400,560 enhanced font 'Sans,10'
    } else {
      set terminal png size 1400,560
    }
  } else {
    set terminal svg size 1400,560 enhanced font 'Sans,10' background rgb 'white'
  }
  set output outdir.'/scaling.'.fmt

  set multiplot layout 1,2 title 'scfw, synthetic Task 1 (batch 1, 200 rows per task, l1 ball radius 5, K = 2000 steps): time per iteration' font ',11'
  set logscale xy
  set grid xtics ytics mxtics mytics lc rgb '#dddddd'
  set xlabel 'dimension d'
  set ylabel 'microseconds per iteration'
  set xrange [70:14000]
  set format y '10^{%L}'
  set key top left box opaque font ',9'

  set title 'total (oracle + tracker + GLMO + update)'
  plot series(10, 'auto') using 1:10 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'm = 10, automatic GLMO (dense\_simplex at d = 100, clp above)', \
       series(10, 'clp') using 1:10 with linespoints lw 2 pt 5 dt 2 lc rgb '#1f77b4' title 'm = 10, clp', \
       series(100, 'auto') using 1:10 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'm = 100, automatic GLMO (clp: over 100 rows)', \
       series(100, 'clp') using 1:10 with linespoints lw 2 pt 5 dt 2 lc rgb '#d62728' title 'm = 100, clp'

  set title 'by phase, automatic GLMO'
  plot series(10, 'auto') using 1:8 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GLMO, m = 10', \
       series(10, 'auto') using 1:($6 + $7) with linespoints lw 2 pt 9 dt 3 lc rgb '#1f77b4' title 'oracle + tracker, m = 10', \
       series(100, 'auto') using 1:8 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'GLMO, m = 100', \
       series(100, 'auto') using 1:($6 + $7) with linespoints lw 2 pt 9 dt 3 lc rgb '#d62728' title 'oracle + tracker, m = 100'
  unset multiplot
  set output
}
