#!/usr/bin/env bash
# `scfw run --checkpoint` / `--resume` (docs/checkpoint.md). For every example in examples/ at 120
# iterations with a report every 20: the run that wrote a checkpoint at iteration 70 and the run
# resumed from it give the uninterrupted run's trace (every column but seconds; the rows after 70
# that the first run wrote are replaced, not duplicated) and its summary (status, objective,
# gaps, GLMO and oracle call counts). Then the refusals, word for word.
SCFW=$1
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"

strip_seconds() { cut -d, -f1-4,6- "$1"; }
# The summary lines that do not carry times.
counts() { grep -E '^(status|objective|gap|GLMO|oracle calls|note) |simplex iterations per solve' <<<"$1"; }

for file in "$SOURCE"/examples/*.json; do
  name=$(basename "$file" .json)
  sed -E 's/"report": \{[^}]*\}/"report": { "every": 20 }/' "$file" >"$name.json"
  grep -q '"every": 20' "$name.json" || fail "$name: could not set the report interval"

  run "$SCFW" run "$name.json" --iterations 120 --trace whole.csv
  expect_rc 0 "$name: uninterrupted run"
  whole=$(counts "$OUT")

  run "$SCFW" run "$name.json" --iterations 120 --trace part.csv --checkpoint ck/$name.ckpt --checkpoint-every 70
  expect_rc 0 "$name: run with --checkpoint"
  expect_contains "$OUT" "checkpoint      ck/$name.ckpt written 1 time" "$name: the summary names the checkpoint"
  [[ -f ck/$name.ckpt && -z "$(find ck -name ".$name.ckpt.*")" ]] || fail "$name: no ck/$name.ckpt, or a temporary left behind"
  [[ "$(sed -n 1p ck/$name.ckpt)" == "scfw-checkpoint 1" ]] || fail "$name: checkpoint header"

  run "$SCFW" run "$name.json" --iterations 120 --trace part.csv --resume ck/$name.ckpt
  expect_rc 0 "$name: resumed run"
  expect_contains "$OUT" "resumed         from ck/$name.ckpt at iteration 70" "$name: the summary says resumed"
  [[ "$(counts "$OUT")" == "$whole" ]] || fail "$name: the resumed summary differs:
$(counts "$OUT")
--- uninterrupted:
$whole"
  if ! diff <(strip_seconds part.csv) <(strip_seconds whole.csv) >diff.txt; then
    fail "$name: the resumed trace differs from the uninterrupted one:
$(head -n 20 diff.txt)"
  fi
  [[ $(wc -l <part.csv) == 7 ]] || fail "$name: the resumed trace has $(wc -l <part.csv) lines, expected a header and 6 rows"
done

# A resumed run that checkpoints again continues the same trace and counts.
write_problem p.json '{ "plugin": "max" }' 100 '{ "every": 10 }'
run "$SCFW" run p.json --trace whole.csv
expect_rc 0 "small problem, uninterrupted"
run "$SCFW" run p.json --trace t.csv --checkpoint a.ckpt --checkpoint-every 40
run "$SCFW" run p.json --trace t.csv --resume a.ckpt --checkpoint b.ckpt --checkpoint-every 45
expect_rc 0 "resume and checkpoint again"
expect_contains "$OUT" "resumed         from a.ckpt at iteration 80" "resumed from the last periodic checkpoint"
run "$SCFW" run p.json --trace t2.csv --iterations 100 --resume b.ckpt
expect_rc 0 "resume from a checkpoint written by a resumed run"
diff <(strip_seconds t.csv) <(strip_seconds whole.csv) >/dev/null || fail "trace after resume + checkpoint differs"
diff <(strip_seconds t2.csv) <(strip_seconds whole.csv) >/dev/null || fail "trace from the second checkpoint differs"

# Refusals: one line naming what differs, exit 2.
run "$SCFW" run p.json --seed 4 --resume a.ckpt
expect_rc 2 "another seed"
expect_stderr "error: a.ckpt: checkpoint: problem differs (seed)" "another seed"
run "$SCFW" run p.json --iterations 200 --resume a.ckpt
expect_rc 2 "another K"
expect_stderr "error: a.ckpt: checkpoint: problem differs (iterations)" "another K"
run "$SCFW" run p.json --resume a.ckpt --start whole.csv
expect_rc 2 "--start with --resume"
expect_contains "$ERR" "scfw run: --start and --resume: a resumed run continues from its checkpoint; give one of them" \
  "--start with --resume is a usage error"
sed 's/"radius": 2/"radius": 3/' p.json >q.json
run "$SCFW" run q.json --resume a.ckpt
expect_rc 2 "another domain"
expect_stderr "error: a.ckpt: checkpoint: problem differs (domain)" "another domain"
version=$("$SCFW" --version | cut -d' ' -f2)
sed "2s/.*/scfw 0.0.1/" a.ckpt >old.ckpt
run "$SCFW" run p.json --resume old.ckpt
expect_rc 2 "another scfw version"
expect_stderr "error: old.ckpt: checkpoint: scfw version 0.0.1 in the checkpoint, $version running" "another scfw version"
momentum=$(grep '^plugin tracker momentum .* momentum$' a.ckpt | cut -d' ' -f4)
sed -E 's/^plugin tracker momentum [^ ]+ momentum$/plugin tracker momentum 0.0.1 momentum/' a.ckpt >plug.ckpt
run "$SCFW" run p.json --resume plug.ckpt
expect_rc 2 "another plugin version"
expect_stderr "error: plug.ckpt: checkpoint: plugin tracker momentum version 0.0.1 in the checkpoint, $momentum loaded" \
  "another plugin version"
head -c 200 a.ckpt >cut.ckpt
run "$SCFW" run p.json --resume cut.ckpt
expect_rc 2 "a truncated checkpoint"
expect_stderr "error: cut.ckpt: truncated checkpoint (no end line)" "a truncated checkpoint"
run "$SCFW" run p.json --resume p.json
expect_rc 2 "not a checkpoint"
expect_stderr "error: p.json: not an scfw checkpoint" "not a checkpoint"
run "$SCFW" run p.json --checkpoint-every 10
expect_rc 2 "--checkpoint-every alone"
expect_contains "$ERR" "scfw run: --checkpoint-every: needs --checkpoint FILE" "--checkpoint-every alone"
run "$SCFW" run p.json --checkpoint c.ckpt --checkpoint-every 0
expect_rc 2 "--checkpoint-every 0"
expect_contains "$ERR" "scfw run: --checkpoint-every: expected an integer >= 1, got '0'" "--checkpoint-every 0"
mkdir -p blocked && chmod 555 blocked
if [[ ! -w blocked ]]; then  # (root ignores the mode)
  run "$SCFW" run p.json --checkpoint blocked/c.ckpt --checkpoint-every 10
  expect_rc 1 "an unwritable checkpoint"
  expect_contains "$ERR" "error: iteration 10 (checkpoint): blocked/c.ckpt: cannot write the checkpoint (Permission denied)" "an unwritable checkpoint"
fi
echo "checkpoint: every example resumes bit for bit; refusals name what differs"
