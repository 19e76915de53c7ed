"""Least-squares fit of log(total us per iteration) = c + a log n + b log A over the rows of
bench/task2_scaling.sh's table that finished (and, separately, over the rows one GLMO solved).

    python3 bench/fit_task2_scaling.py docs/perf/task2_scaling.dat
"""
import math
import sys


def fit(rows):
    # Normal equations for [1, log n, log A].
    X = [[1.0, math.log(n), math.log(a)] for n, a, _ in rows]
    y = [math.log(t) for _, _, t in rows]
    k = 3
    ata = [[sum(X[r][i] * X[r][j] for r in range(len(X))) for j in range(k)] for i in range(k)]
    aty = [sum(X[r][i] * y[r] for r in range(len(X))) for i in range(k)]
    # Gaussian elimination.
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(ata[r][c]))
        ata[c], ata[p] = ata[p], ata[c]
        aty[c], aty[p] = aty[p], aty[c]
        for r in range(c + 1, k):
            f = ata[r][c] / ata[c][c]
            for j in range(c, k):
                ata[r][j] -= f * ata[c][j]
            aty[r] -= f * aty[c]
    beta = [0.0] * k
    for c in reversed(range(k)):
        beta[c] = (aty[c] - sum(ata[c][j] * beta[j] for j in range(c + 1, k))) / ata[c][c]
    return beta


rows, by_glmo = [], {}
for line in open(sys.argv[1]):
    if line.startswith('#'):
        continue
    f = line.split()
    if len(f) < 8 or f[7] == '-':
        continue
    n, a, t = int(f[0]), int(f[1]), float(f[7])
    rows.append((n, a, t))
    by_glmo.setdefault(f[3], []).append((n, a, t))
if len(rows) >= 3:
    c, en, ea = fit(rows)
    print(f"all {len(rows)} finished rows: total ~ n^{en:.2f} A^{ea:.2f}")
for g, r in by_glmo.items():
    ns, As = {n for n, _, _ in r}, {a for _, a, _ in r}
    if len(r) >= 3 and len(ns) >= 2 and len(As) >= 2:
        c, en, ea = fit(r)
        print(f"{g} ({len(r)} rows): total ~ n^{en:.2f} A^{ea:.2f}")
    elif len(r) >= 2 and len(ns) >= 2 and len(As) == 1:
        # n only.
        pts = sorted(r)
        xs = [math.log(n) for n, _, _ in pts]
        ys = [math.log(t) for _, _, t in pts]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        en = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"{g} ({len(r)} rows, A = {pts[0][1]}): total ~ n^{en:.2f}")
