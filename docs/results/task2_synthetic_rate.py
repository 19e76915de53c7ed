"""The Task 2 synthetic rate plot over the two compare runs of docs/results.md (K = 1000 and 3000
from experiments/task2_synthetic.json, K = 10000 from experiments/task2_synthetic_K10000.json):
the means of both summary.csv files, the least-squares slopes of log10(mean gap) on log10(K)
over the three K, and compare's own gnuplot script of the first run with those data and lines.

    python3 docs/results/task2_synthetic_rate.py      # from the repository root, after both runs
    # -> docs/results/task2_synthetic_rate.{png,svg}; prints the slopes
"""
import csv
import math
import os
import re
import subprocess
import tempfile

RUNS = ["build/results/task2_synthetic", "build/results/task2_synthetic_K10000"]
OUT = "docs/results/task2_synthetic_rate"

rows, order = {}, []
for run in RUNS:
    for r in csv.DictReader(open(os.path.join(run, "summary.csv"))):
        m = r["method"]
        if m not in rows:
            rows[m] = []
            order.append(m)
        rows[m].append((int(r["K"]), float(r["final_gap_mean"]), float(r["best_gap_mean"])))


def fit(points):
    xs = [math.log10(k) for k, _ in points]
    ys = [math.log10(v) for _, v in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


tmp = tempfile.mkdtemp()
dat = os.path.join(tmp, "rate.dat")
slopes = {}
with open(dat, "w") as out:
    for m in order:
        pts = sorted(rows[m])
        out.write("# %s\n" % m)
        for k, f, b in pts:
            out.write("%d %r %r\n" % (k, f, b))
        out.write("\n\n")
        sf, icf = fit([(k, f) for k, f, _ in pts])
        sb, _ = fit([(k, b) for k, _, b in pts])
        slopes[m] = (sf, sb, icf)
for m in order:
    print("%s: final %.3f, best %.3f" % (m, slopes[m][0], slopes[m][1]))

src = open(os.path.join(RUNS[0], "plot", "rate.png.gp")).read()
src = re.sub(r'"[^"]*/plot/rate\.dat"', '"%s"' % dat, src)
# The three budgets on the x axis, each labelled; the y axis fitted to all of them by gnuplot.
src = re.sub(r"set xrange \[[^\]]*\]", "set xrange [1000:10000]", src)
src = re.sub(r"set xtics \([^\n]*\)", 'set xtics ("1000" 1000, "3000" 3000, "10000" 10000)', src)
src = re.sub(r"set yrange \[[^\]]*\]", "set autoscale y", src)
src = re.sub(r"set ytics \([^\n]*\)", "set ytics autofreq", src)
src = src.replace("set format y '%g'", "set format y '10^{%L}'")
src = src.replace('"gap against K (mean over seeds)"',
                  '"gap against K (mean over 10 seeds; K = 10000 from the second file)"')
lines, i = [], -1
for line in src.split("\n"):
    if "index" in line and 'title "' in line:
        i += 1
        m = order[i]
        line = re.sub(r'title "[^"]*"', 'title "%s (final slope %.2f, best %.2f)"' % (m, slopes[m][0], slopes[m][1]), line)
    if line.strip().startswith("10**("):
        line = re.sub(r"10\*\*\([^)]*\)\*x\*\*\([^)]*\)", "10**(%r)*x**(%r)" % (slopes[order[i]][2], slopes[order[i]][0]), line)
    lines.append(line)
body = "\n".join(lines).split("\n", 2)[2]  # without compare's terminal and output lines
for ext, terminal in (("png", "set terminal pngcairo size 900,600 font 'Helvetica,11'"),
                      ("svg", "set terminal svg size 720,480 dynamic font 'Helvetica,12'")):
    script = os.path.join(tmp, "rate.%s.gp" % ext)
    open(script, "w").write('%s\nset output "%s.%s"\n%s' % (terminal, OUT, ext, body))
    subprocess.run(["gnuplot", script], check=True)
