#!/usr/bin/env python3
"""Writes the seed corpus of the checkpoint fuzz target (tests/fuzz/corpus/checkpoint/).

  tests/fuzz/make_checkpoint_corpus.py SCFW OUT_DIR

A checkpoint of every example (its oracle, outer function, domain, GLMO and tracker, on a small
synthetic data set so that a seed stays a few KB and the target composes it quickly), and one
of every plugin that saves state: the GLMOs dense_simplex, scenario_dual, clp, column_generation
(over a polytope, whose LMO saves state too) and max_l1, the nuclear_ball and polytope domains,
a product domain. Each run: 30 iterations, a report every 10, the checkpoint at 20.
"""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")

SMALL_TASKS = {"tasks": 3, "dim": 6, "rows_per_task": 20, "sparsity": 3}
# Per example: the synthetic sizes (and what must agree with them) made small.
SHRINK = {
    "cvar_portfolio": lambda d: (d["oracle"].update(groups=6), d["oracle"]["synthetic"].update(assets=5, days=60),
                                 d["domain"]["factors"][0].update(dim=5)),
    "matrix_completion": lambda d: (d["oracle"].update(groups=4), d["oracle"]["synthetic"].update(rows=6, cols=5, rank=2, density=0.5),
                                    d["domain"].update(rows=6, cols=5)),
}


def tasks(**extra):
    return {"plugin": "least_squares_tasks", "batch": 1, "synthetic": dict(SMALL_TASKS, seed=1, **extra)}


# A polytope in R^6: the box [-1, 1]^6 cut by sum x <= 3.
A, b = [], []
for sign in (1, -1):
    for i in range(6):
        A += [sign if i == j else 0 for j in range(6)]
        b.append(1)
A += [1] * 6
b.append(3)
PLUGINS = {
    "glmo_dense_simplex": {"oracle": tasks(), "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 2},
                           "glmo": {"plugin": "dense_simplex"}},
    "glmo_clp": {"oracle": tasks(), "outer": {"plugin": "norm", "p": "1"}, "domain": {"plugin": "box", "lower": -1, "upper": 1},
                 "glmo": {"plugin": "clp"}},
    "glmo_max_l1": {"oracle": tasks(), "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 5},
                    "glmo": {"plugin": "max_l1"}},
    "glmo_column_generation_polytope": {"oracle": tasks(), "outer": {"plugin": "max"},
                                        "domain": {"plugin": "polytope", "A": A, "b": b},
                                        "glmo": {"plugin": "column_generation"}},
    "glmo_scenario_dual_product": {
        "oracle": {"plugin": "portfolio_returns", "groups": 8, "batch": 1, "synthetic": {"assets": 4, "days": 40, "seed": 1}},
        "outer": {"plugin": "cvar_ru", "alpha": 0.9},
        "domain": {"plugin": "product", "factors": [{"plugin": "simplex", "dim": 4},
                                                    {"plugin": "box", "dim": 1, "lower": -1, "upper": 1}]},
        "glmo": {"plugin": "scenario_dual", "min_row_ratio": 1, "kernels": "portable"}},
    "domain_polytope_clp": {"oracle": tasks(), "outer": {"plugin": "max"}, "domain": {"plugin": "polytope", "A": A, "b": b},
                            "glmo": {"plugin": "clp"}},
}


def main(scfw, out):
    os.makedirs(out, exist_ok=True)
    problems = {}
    for f in sorted(os.listdir(EXAMPLES)):
        if not f.endswith(".json"):
            continue
        name = f[:-5]
        d = json.load(open(os.path.join(EXAMPLES, f)))
        if name in SHRINK:
            SHRINK[name](d)
        elif "synthetic" not in d["oracle"]:
            # An example over a data file (group_dro_a9a reads the shared a9a): no small
            # synthetic form, and a seed must not depend on a file outside the repository.
            print("example_" + name, "skipped: reads", d["oracle"].get("file"))
            continue
        else:
            d["oracle"]["synthetic"].update(SMALL_TASKS)
        problems["example_" + name] = d
    for name, blocks in PLUGINS.items():
        problems["plugin_" + name] = dict(blocks, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        for name, d in problems.items():
            d["iterations"] = 30
            d["report"] = {"every": 10}
            d.pop("name", None)
            problem = os.path.join(tmp, name + ".json")
            json.dump(d, open(problem, "w"), indent=1)
            ck = os.path.join(out, name + ".ckpt")
            subprocess.run([scfw, "run", problem, "--checkpoint", ck, "--checkpoint-every", "20"], check=True,
                           stdout=subprocess.DEVNULL)
            print(name, os.path.getsize(ck))


main(sys.argv[1], sys.argv[2])
