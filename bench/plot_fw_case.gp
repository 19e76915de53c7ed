# Plots the traces of bench_projected_subgradient --trace (docs/results.md, "The case for
# Frank-Wolfe on the nuclear ball"): relative accuracy against CPU seconds, log-log, one curve a
# method, the two target accuracies 1e-1 and 1e-2 as lines.
#
#   gnuplot bench/plot_fw_case.gp                     # from the repository root
#   gnuplot -e "name='fw_case_1e4'; ymin=1e-16; scfw_label='scfw, Variant I (K = 1000)'; keypos='center left'; svd_step=1180; title='Synthetic 10^4 x 10^4 completion, 10^6 entries, 20 groups, radius 10^4'" bench/plot_fw_case.gp
#
# Reads those of DIR/NAME_fw.dat, DIR/NAME_scfw.dat, DIR/NAME_subgradient_exact.dat and
# DIR/NAME_subgradient.dat that exist (columns: iteration, CPU seconds, wall seconds, objective,
# relative accuracy; the row of iteration 0, at 0 s, is left out of a log axis). Writes
# DIR/NAME.png.

if (!exists("dir")) dir = 'docs/perf'
if (!exists("name")) name = 'fw_case_movielens'
if (!exists("ymin")) ymin = 1e-5
if (!exists("scfw_label")) scfw_label = 'scfw, STORM (K = 1000)'
if (!exists("keypos")) keypos = 'bottom left'
if (!exists("title")) title = 'Task 3, full MovieLens-100K (943 x 1682, 45 groups, radius 2187)'

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 900,560 enhanced font 'Sans,10'
} else {
  set terminal png size 900,560
}
set output dir.'/'.name.'.png'
set title title font ',11'
set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set xlabel 'CPU seconds (data loading and composition not counted)'
set ylabel 'relative accuracy (F(X) - F_{ref}) / (F(X_0) - F_{ref})'
set format y '10^{%L}'
set format x '10^{%L}'
set yrange [ymin:2]
eval('set key '.keypos.' box opaque font ",9"')
# svd_step (optional): the CPU seconds of one projection at this size, drawn as a vertical line.
if (exists("svd_step")) {
  set arrow from first svd_step, graph 0 to first svd_step, graph 1 nohead lw 2 dt 2 lc rgb '#d62728'
  set label sprintf('one full-SVD projection (extrapolated): %.0f s', svd_step) at first svd_step, graph 0.55 right offset -1,0 tc rgb '#d62728' font ',9'
  set xrange [1:2 * svd_step]
}
set arrow from graph 0, first 0.1 to graph 1, first 0.1 nohead dt 3 lc rgb '#888888'
set arrow from graph 0, first 0.01 to graph 1, first 0.01 nohead dt 3 lc rgb '#888888'
file(m) = dir.'/'.name.'_'.m.'.dat'
has(m) = system('test -f '.file(m).' && echo 1 || echo 0') eq "1"
x(c) = (c > 0 ? c : 1/0)
plot (has('fw') ? file('fw') : '/dev/null') using (x($2)):5 with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'deterministic FW, exact passes (GLMO: column generation)', \
     (has('scfw') ? file('scfw') : '/dev/null') using (x($2)):5 with lines lw 2 lc rgb '#1f77b4' title scfw_label, \
     (has('subgradient_exact') ? file('subgradient_exact') : '/dev/null') using (x($2)):5 with linespoints lw 2 pt 4 ps 0.5 dt 2 lc rgb '#ff7f0e' title (has('subgradient_exact') ? 'projected subgradient, exact subgradient (full SVD a step)' : ''), \
     (has('subgradient') ? file('subgradient') : '/dev/null') using (x($2)):5 with linespoints lw 2 pt 5 ps 0.5 lc rgb '#d62728' title (has('subgradient') ? 'projected stochastic subgradient (full SVD a step)' : '')
