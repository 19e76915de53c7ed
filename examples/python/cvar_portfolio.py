"""A CVaR portfolio from a NumPy returns matrix, solved with scfw from Python (docs/python.md).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/cvar_portfolio.py [OUT.png]

Minimizes the conditional value at risk (alpha = 0.95) over 50 scenario groups of consecutive
days of the group's mean daily loss -r_t^T w, over long-only weights w (the simplex), in the
Rockafellar-Uryasev form with the VaR as the last variable: the paper's Task 2. The returns of
20 assets over 1500 days come from a Student-t factor model generated here with NumPy; use your
own T x A matrix in `returns` instead. Prints the largest weights and saves a figure of the
weights and of the generalized Frank-Wolfe gap against the iteration (matplotlib; set
MPLBACKEND=Agg where there is no display).
"""

import sys

import numpy as np

import scfw


def student_t_returns(days, assets, seed=7):
    """Daily returns: three common factors plus idiosyncratic noise, Student-t with 3 degrees of
    freedom (heavy tails), about 1 % daily volatility, a small positive drift."""
    rng = np.random.default_rng(seed)
    loadings = rng.normal(size=(assets, 3))
    factors = 0.006 * rng.standard_t(3, size=(days, 3)) / np.sqrt(3)
    noise = 0.008 * rng.standard_t(3, size=(days, assets)) / np.sqrt(3)
    drift = 0.0003 * rng.uniform(0.5, 1.5, size=assets)
    return drift + factors @ loadings.T / np.sqrt(3) + noise


def main(out_png):
    returns = student_t_returns(days=1500, assets=20)
    assets = ["asset %d" % (a + 1) for a in range(returns.shape[1])]
    # The oracle reads the matrix itself (one row a day, one column an asset), named "R" in the
    # problem and passed by data=: no file, and no copy of a float64 array.
    problem = {
        "name": "CVaR portfolio from NumPy returns",
        "oracle": {"plugin": "portfolio_returns", "array": "R", "prices": False, "groups": 50},
        "outer": {"plugin": "cvar_ru", "alpha": 0.95},
        "domain": {"plugin": "product", "factors": [
            {"plugin": "simplex", "dim": len(assets)},
            {"plugin": "box", "dim": 1, "lower": -1, "upper": 1}]},
        "tracker": {"plugin": "momentum", "value": "polyak"},
        "schedule": {"plugin": "nonconvex", "r": 2},
    }
    result = scfw.solve(problem, data={"R": returns}, iterations=3000, seed=1, report_every=100)

    weights, var = result.x[:-1], result.x[-1]
    print(result.message)
    print("CVaR_0.95 of the groups' mean daily loss %.5f, VaR %.5f, final gap %.3g" % (result.objective, var, result.gap))
    for a in np.argsort(weights)[::-1][:5]:
        print("  %-10s %.4f" % (result.x_names[a], weights[a]))
    print("weights sum to %.12f" % weights.sum())

    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(range(len(weights)), weights)
    left.set_xlabel("asset")
    left.set_ylabel("weight")
    left.set_title("weights (sum %.6f)" % weights.sum())
    right.loglog(result.trace["iteration"], result.trace["gap"], marker=".")
    right.set_xlabel("iteration")
    right.set_ylabel("generalized Frank-Wolfe gap")
    right.set_title(problem["name"])
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    print("wrote", out_png)
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cvar_portfolio.png")
