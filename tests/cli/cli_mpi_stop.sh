#!/usr/bin/env bash
# `mpirun -np 2 scfw run` stopped by a signal (docs/scaling.md, "Stopping a run over ranks"):
#   a signal to one rank (SIGTERM, SIGINT, SIGHUP): every rank stops after the same iteration,
#   rank 0 writes the trace, the solution and the summary once, they agree (the iteration, the
#   status, the objective), and the job exits 143 / 130 / 129 as one process does;
#   SIGTERM to mpirun (what a batch scheduler sends; mpirun passes SIGTERM on to every rank and
#   kills them a second later): the same files, agreeing;
#   a rank killed with SIGKILL: the job ends (no rank left waiting in a collective).
# Registered only in a build with MPI (SCFW_WITH_MPI).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.sh"
SCFW=$1

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

# 600 rows of 12 features shared out over the ranks; K so large that only a signal ends the run.
python3 - <<'PY'
import random
g = random.Random(11)
with open("data.svm", "w") as f:
    for r in range(600):
        feats = sorted(g.sample(range(1, 13), g.randint(1, 6)))
        f.write(g.choice(["-1", "+1"]) + " " + " ".join(f"{j}:{g.uniform(-2, 2):.6g}" for j in feats) + "\n")
PY
cat >p.json <<'JSON'
{ "name": "stop", "seed": 5, "iterations": 100000000,
  "oracle": { "plugin": "least_squares_tasks", "file": "data.svm", "tasks": 3, "features": 12, "batch": 20 },
  "outer": { "plugin": "max" },
  "domain": { "plugin": "l1_ball", "radius": 3 },
  "glmo": { "plugin": "dense_simplex" },
  "tracker": { "plugin": "momentum" },
  "schedule": { "plugin": "nonconvex", "r": 2 },
  "report": { "every": 50 } }
JSON

# start_job : mpirun in the background (MPIRUN_PID); waits until both ranks are iterating (the
# trace has its first row).
start_job() {
  rm -f t.csv s.json sum.json .out .err
  mpirun -q -np 2 "$SCFW" run p.json --trace t.csv --solution s.json --summary-json sum.json -q \
    >"$SCRATCH/.out" 2>"$SCRATCH/.err" &
  MPIRUN_PID=$!
  for _ in $(seq 600); do
    [[ -n "$(ls .t.csv.* t.csv 2>/dev/null)" ]] && [[ $(cat .t.csv.* t.csv 2>/dev/null | wc -l) -ge 3 ]] && break
    kill -0 $MPIRUN_PID 2>/dev/null || break
    sleep 0.1
  done
  sleep 0.5
}

# rank_pid R : the process id of rank R of the running job.
rank_pid() {
  local p
  for p in $(pgrep -P $MPIRUN_PID); do
    if tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo $p
      return
    fi
  done
  fail "no rank $1 under mpirun $MPIRUN_PID"
}

# wait_job : waits for mpirun (at most 120 s: a hang fails the test) and sets RC, OUT, ERR.
wait_job() {
  local waited=0
  while kill -0 $MPIRUN_PID 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    if [[ $waited -ge 600 ]]; then
      for p in $(pgrep -P $MPIRUN_PID); do kill -KILL $p 2>/dev/null || true; done
      kill -KILL $MPIRUN_PID 2>/dev/null || true
      fail "$1: the job did not end within 120 s of the signal"
    fi
  done
  set +e
  wait $MPIRUN_PID
  RC=$?
  set -e
  OUT=$(cat "$SCRATCH/.out")
  ERR=$(cat "$SCRATCH/.err")
}

# agree WHAT : the trace, the solution and the summary name the same last iteration, status
# "interrupted" and the same objective (f(y_K) summed over the ranks at that iteration).
agree() {
  python3 - "$1" <<'PY' || fail "$1: the outputs disagree (stderr: $ERR)"
import csv, json, sys
what = sys.argv[1]
rows = [r for r in csv.reader(l for l in open("t.csv") if not l.startswith("#"))]
head, last = rows[0], rows[-1]
sol, summ = json.load(open("s.json")), json.load(open("sum.json"))
it = int(last[head.index("iteration")])
assert summ["iterations"] == it == sol["iterations"], (summ["iterations"], it, sol["iterations"])
assert summ["status"] == "interrupted", summ["status"]
assert sol["status"] == f"interrupted after {it} of 100000000 iterations", sol["status"]
obj = float(last[head.index("objective")])
assert summ["objective"] == sol["objective"], (summ["objective"], sol["objective"])
assert abs(obj - sol["objective"]) <= 1e-12 * max(1, abs(obj)), (obj, sol["objective"])
PY
}

# --- A signal to one rank: every rank stops, the job exits as one process would ----------------
for case in "TERM 0 143" "TERM 1 143" "INT 1 130" "HUP 0 129"; do
  read -r sig rank code <<<"$case"
  start_job
  kill -$sig "$(rank_pid $rank)"
  wait_job "SIG$sig to rank $rank"
  expect_rc $code "SIG$sig to rank $rank"
  expect_stderr "scfw: interrupted by SIG$sig" "SIG$sig to rank $rank"
  agree "SIG$sig to rank $rank"
done

# --- SIGTERM to mpirun: it passes SIGTERM to the ranks, which stop after the same iteration ------
# (mpirun's own exit code is 1 whatever its ranks return: OpenMPI 4 sets it.)
start_job
kill -TERM $MPIRUN_PID
wait_job "SIGTERM to mpirun"
[[ $RC != 0 ]] || fail "SIGTERM to mpirun: exit code 0"
agree "SIGTERM to mpirun"

# --- A rank killed outright: the job ends, no rank waits for it ----------------------------------
start_job
kill -KILL "$(rank_pid 1)"
wait_job "SIGKILL to rank 1"
[[ $RC != 0 ]] || fail "SIGKILL to rank 1: exit code 0"

echo "mpi stop: the ranks stop together and write agreeing outputs once"
