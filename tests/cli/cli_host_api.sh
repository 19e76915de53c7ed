#!/usr/bin/env bash
# A host application's path: install scfw into a prefix, build examples/host as its own CMake
# project with find_package(scfw) and scfw::core, and run it. Its results are checked against
# the installed `scfw run` on the same problems (objective and gap to the printed digits, the
# iteration its callback stops at) and its y_K against phi computed here from the data files.
SCFW=$1 BUILD=$2 SOURCE=$3 CMAKE=${4:-cmake}
source "$(dirname "$0")/lib.sh"

prefix=$SCRATCH/prefix
"$CMAKE" --install "$BUILD" --prefix "$prefix" >install.log 2>&1 || fail "cmake --install failed:
$(tail -n 20 install.log)"
for f in include/scfw/host.hpp include/scfw/core/problem.hpp include/scfw/core/report.hpp \
         lib/libscfw_core.so lib/cmake/scfw/scfwTargets.cmake; do
  [[ -e "$prefix/$f" ]] || fail "the install has no $f"
done
# The internal headers (core/internal) stay in the source tree: examples/host builds without them.
for f in "$SOURCE"/core/internal/scfw/core/*.hpp; do
  [[ ! -e "$prefix/include/scfw/core/$(basename "$f")" ]] || fail "the install has the internal header $(basename "$f")"
done

"$CMAKE" -S "$SOURCE/examples/host" -B host-build -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >configure.log 2>&1 || fail "configuring examples/host failed:
$(tail -n 30 configure.log)"
"$CMAKE" --build host-build >build.log 2>&1 || fail "building examples/host failed:
$(tail -n 30 build.log)"
host=$SCRATCH/host-build/scfw_host
[[ -x "$host" ]] || fail "no host-build/scfw_host"
scfw=$prefix/bin/scfw

# line KEY TEXT: the rest of the line of TEXT that starts with KEY.
line() { sed -n "s/^$1//p" <<<"$2" | head -n 1; }

# --- 1. The built-in problem (a JSON value composed in code), with no environment variable: the
# host finds every installed plugin beside the installed libscfw_core.so.
n_plugins=$("$scfw" plugins --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
run "$host"
expect_rc 0 "scfw_host (built-in problem)"
[[ -z "$ERR" ]] || fail "scfw_host: unexpected stderr: $ERR"
first=$(head -n 1 <<<"$OUT")
[[ "$first" == "plugins: $n_plugins from $(realpath "$prefix")/lib/scfw/plugins" ]] || fail "scfw_host's plugins: $first"
host_out=$OUT

run "$host" --print-problem
expect_rc 0 "scfw_host --print-problem"
printf '%s\n' "$OUT" >builtin.json
run "$scfw" run builtin.json
expect_rc 0 "scfw run builtin.json"
scfw_out=$OUT

obj=$(line "objective       phi(y_K) = " "$scfw_out")
gap=$(line "gap             final " "$scfw_out" | cut -d, -f1)
[[ -n "$obj" && -n "$gap" ]] || fail "scfw run builtin.json: no objective or gap in:
$scfw_out"
[[ $(line "objective: " "$host_out") == "$obj" ]] || fail "built-in problem: objective differs from scfw run's $obj:
$host_out"
[[ $(line "gap: " "$host_out") == "$gap" ]] || fail "built-in problem: gap differs from scfw run's $gap:
$host_out"
[[ $(line "status: " "$host_out") == "iteration limit" ]] || fail "built-in problem: status:
$host_out"
[[ $(line "iterations: " "$host_out") == "400" ]] || fail "built-in problem: iterations:
$host_out"
# Its callback printed the 8 reports (every 50 of 400 iterations).
[[ $(grep -c '^  iteration ' <<<"$host_out") == 8 ]] || fail "built-in problem: expected 8 report lines:
$host_out"

# --- 2. A problem file on data written here: y_K from the host gives, computed independently,
# the objective `scfw run` printed.
python3 - <<'PY'
# Three tasks of 12, 15 and 9 rows on 6 features, from a fixed linear congruential sequence.
state = 12345
def rnd():
    global state
    state = (1103515245 * state + 12345) % 2**31
    return state / 2**31 * 2 - 1
for t, rows in enumerate([12, 15, 9]):
    with open(f"t{t}.svm", "w") as f:
        for _ in range(rows):
            a = [round(rnd(), 3) for _ in range(6)]
            b = round(sum((k + 1) * 0.3 * v for k, v in enumerate(a)) + (t + 1) * 0.2 * rnd(), 3)
            f.write(f"{b} " + " ".join(f"{k + 1}:{v}" for k, v in enumerate(a) if v != 0) + "\n")
PY
cat >ls.json <<'JSON'
{
  "seed": 5,
  "iterations": 300,
  "oracle": { "plugin": "least_squares_tasks", "files": "t0.svm, t1.svm, t2.svm", "features": 6 },
  "outer": { "plugin": "max" },
  "domain": { "plugin": "l1_ball", "radius": 1.5 },
  "tracker": { "plugin": "momentum", "value": "taylor" },
  "schedule": { "plugin": "nonconvex", "r": 2 },
  "report": { "every": 20 }
}
JSON
run "$scfw" run ls.json --trace full.csv
expect_rc 0 "scfw run ls.json"
obj=$(line "objective       phi(y_K) = " "$OUT")
run "$host" ls.json --y-out y.txt
expect_rc 0 "scfw_host ls.json"
[[ $(line "objective: " "$OUT") == "$obj" ]] || fail "ls.json: the host's objective differs from scfw run's $obj:
$OUT"
[[ $(wc -l <y.txt) == 6 ]] || fail "y.txt: expected 6 lines, got $(wc -l <y.txt)"
python3 - "$obj" <<'PY' || fail "ls.json: y_K does not give scfw run's objective"
import math, sys
printed = sys.argv[1]
y = [float(v) for v in open("y.txt")]
assert sum(abs(v) for v in y) <= 1.5 * (1 + 1e-12), f"y_K leaves the l1 ball: {y}"
phi = -math.inf
for t in range(3):
    rows = [line.split() for line in open(f"t{t}.svm")]
    total = 0.0
    for r in rows:
        a = [0.0] * 6
        for tok in r[1:]:
            k, v = tok.split(":")
            a[int(k) - 1] = float(v)
        total += (sum(ai * yi for ai, yi in zip(a, y)) - float(r[0])) ** 2
    phi = max(phi, total / (2 * len(rows)))
# %.10g: the printed value is within half a unit of its 10th significant digit.
half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(float(printed)))) - 9)
if abs(phi - float(printed)) > half_unit * (1 + 1e-6):
    sys.exit(f"phi(y_K) = {phi!r} from y.txt, scfw run printed {printed}")
PY

# --- 3. The host's callback stops the run: at the first report with gap <= eps, where the run
# without it (full.csv) and `scfw run --gap-tolerance` agree. eps is just above the 5th report's gap.
eps=$(awk -F, 'NR == 6 { printf "%.12g", $3 * (1 + 1e-9) }' full.csv)
stop=$(awk -F, -v eps="$eps" 'NR > 1 && $3 + 0 <= eps + 0 { print $1; exit }' full.csv)
[[ -n "$stop" && "$stop" -le 100 ]] || fail "no report with gap <= $eps in full.csv"
run "$scfw" run ls.json --gap-tolerance "$eps"
expect_rc 0 "scfw run --gap-tolerance $eps"
expect_contains "$OUT" "gap tolerance reached" "scfw run --gap-tolerance"
expect_contains "$OUT" " after $stop of 300 iterations" "scfw run --gap-tolerance"
obj=$(line "objective       phi(y_K) = " "$OUT")
run "$host" ls.json --gap "$eps"
expect_rc 0 "scfw_host ls.json --gap $eps"
[[ $(line "status: " "$OUT") == "stopped" ]] || fail "scfw_host --gap: status:
$OUT"
[[ $(line "iterations: " "$OUT") == "$stop" ]] || fail "scfw_host --gap: expected to stop after $stop iterations:
$OUT"
expect_contains "$OUT" "message: stopped (gap " "scfw_host --gap"
expect_contains "$OUT" "at iteration $stop) after $stop of 300 iterations" "scfw_host --gap"
[[ $(line "objective: " "$OUT") == "$obj" ]] || fail "scfw_host --gap: objective differs from scfw run's $obj:
$OUT"

# --- 4. Bad input: the composer's one line, exit code 2, nothing solved.
sed 's/"radius": 1.5/"radius": -1/' ls.json >bad.json
run "$host" bad.json --y-out bad_y.txt
expect_rc 2 "scfw_host bad.json"
expect_stderr "error: bad.json: /domain/radius: expected a number in (0, 1e10], got -1" "scfw_host bad.json"
[[ ! -e bad_y.txt ]] || fail "scfw_host bad.json wrote bad_y.txt"
echo "cli_host_api: ok"
