#!/usr/bin/env bash
# `scfw run --checkpoint` / `--resume` (docs/checkpoint.md). For every example in examples/ at 120
# iterations with a report every 20: the run that wrote a checkpoint at iteration 70 and the run
# resumed from it give the uninterrupted run's trace (every column but seconds; the rows after 70
# that the first run wrote are replaced, not duplicated) and its summary (status, objective,
# gaps, GLMO and oracle call counts). Then the refusals, word for word. Under the sanitizer job
# (SCFW_SANITIZED, .ci/sanitize.sh) the runs are 60 iterations with the checkpoint at 35: the same
# paths (a checkpoint between two reports, rows after it replaced), a third of the work (the two
# matrix_completion examples take 16 s a run of 120 iterations there against 0.5 s here).
SCFW=$1
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
EDIT="python3 $(cd "$(dirname "$0")" && pwd)/ck_edit.py"

# The summary lines that do not carry times.
counts() { grep -E '^(status|objective|gap|GLMO|oracle calls|note) |simplex iterations per solve' <<<"$1"; }

K=120 AT=70
[[ -n ${SCFW_SANITIZED:-} ]] && K=60 AT=35

# An example without its shared data (lib.sh, example_or_skip) is skipped, named, and the test
# exits with SKIP_CODE after all its other checks.
for file in "$SOURCE"/examples/*.json; do
  name=$(basename "$file" .json)
  example_or_skip "$file" || continue
  sed -E 's/"report": \{[^}]*\}/"report": { "every": 20 }/' "$PROBLEM" >"$name.json"
  grep -q '"every": 20' "$name.json" || fail "$name: could not set the report interval"

  run "$SCFW" run "$name.json" --iterations $K --trace whole.csv
  expect_rc 0 "$name: uninterrupted run"
  whole=$(counts "$OUT")

  run "$SCFW" run "$name.json" --iterations $K --trace part.csv --checkpoint ck/$name.ckpt --checkpoint-every $AT
  expect_rc 0 "$name: run with --checkpoint"
  expect_contains "$OUT" "checkpoint      ck/$name.ckpt written 1 time" "$name: the summary names the checkpoint"
  [[ -f ck/$name.ckpt && -z "$(find ck -name ".$name.ckpt.*")" ]] || fail "$name: no ck/$name.ckpt, or a temporary left behind"
  [[ "$(sed -n 1p ck/$name.ckpt)" == "scfw-checkpoint 2" ]] || fail "$name: checkpoint header"

  run "$SCFW" run "$name.json" --iterations $K --trace part.csv --resume ck/$name.ckpt
  expect_rc 0 "$name: resumed run"
  expect_contains "$OUT" "resumed         from ck/$name.ckpt at iteration $AT" "$name: the summary says resumed"
  [[ "$(counts "$OUT")" == "$whole" ]] || fail "$name: the resumed summary differs:
$(counts "$OUT")
--- uninterrupted:
$whole"
  if ! diff <(strip_seconds part.csv) <(strip_seconds whole.csv) >diff.txt; then
    fail "$name: the resumed trace differs from the uninterrupted one:
$(head -n 20 diff.txt)"
  fi
  [[ $(wc -l <part.csv) == $((K / 20 + 1)) ]] || fail "$name: the resumed trace has $(wc -l <part.csv) lines, expected a header and $((K / 20)) rows"
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
check "another seed" 2 "error: a.ckpt: checkpoint: problem differs (seed)" "$SCFW" run p.json --seed 4 --resume a.ckpt
check "another K" 2 "error: a.ckpt: checkpoint: problem differs (iterations)" "$SCFW" run p.json --iterations 200 --resume a.ckpt
run "$SCFW" run p.json --resume a.ckpt --start whole.csv
expect_rc 2 "--start with --resume"
expect_contains "$ERR" "scfw run: --start and --resume: a resumed run continues from its checkpoint; give one of them" \
  "--start with --resume is a usage error"
sed 's/"radius": 2/"radius": 3/' p.json >q.json
check "another domain" 2 "error: a.ckpt: checkpoint: problem differs (domain)" "$SCFW" run q.json --resume a.ckpt
version=$("$SCFW" --version | cut -d' ' -f2)
sed "2s/.*/scfw 0.0.1/" a.ckpt >old.ckpt
$EDIT seal old.ckpt
check "another scfw version" 2 "error: old.ckpt: checkpoint: scfw version 0.0.1 in the checkpoint, $version running" "$SCFW" run p.json --resume old.ckpt
momentum=$(grep '^plugin tracker momentum .* momentum$' a.ckpt | cut -d' ' -f4)
sed -E 's/^plugin tracker momentum [^ ]+ momentum$/plugin tracker momentum 0.0.1 momentum/' a.ckpt >plug.ckpt
$EDIT seal plug.ckpt
run "$SCFW" run p.json --resume plug.ckpt
expect_rc 2 "another plugin version"
expect_stderr "error: plug.ckpt: checkpoint: plugin tracker momentum version 0.0.1 in the checkpoint, $momentum loaded" \
  "another plugin version"
head -c 200 a.ckpt >cut.ckpt
check "a truncated checkpoint" 2 "error: cut.ckpt: truncated checkpoint (no end line)" "$SCFW" run p.json --resume cut.ckpt
check "not a checkpoint" 2 "error: p.json: not an scfw checkpoint" "$SCFW" run p.json --resume p.json

# Damage: the checksum (over everything before its line) is checked before anything is read;
# behind a right checksum every block is checked against its declared count.
run "$SCFW" run p.json --iterations 200 --checkpoint k.ckpt --checkpoint-every 180
expect_rc 0 "a checkpoint at 180"
sum=$($EDIT checksum k.ckpt)
digit=$(grep '^y f64' k.ckpt | cut -d' ' -f4 | cut -c6)
$EDIT set k.ckpt flip.ckpt y 5 "$([[ $digit == 0 ]] && echo 1 || echo 0)"
run "$SCFW" run p.json --iterations 200 --resume flip.ckpt
expect_rc 2 "a flipped hex digit of y"
expect_stderr "error: flip.ckpt: checkpoint is damaged: checksum $sum recorded, $($EDIT checksum flip.ckpt) computed over its contents" \
  "a flipped hex digit of y"
[[ "$(grep '^iteration ' k.ckpt)" == "iteration i64 1 b400000000000000" ]] || fail "the iteration block of k.ckpt"
$EDIT set k.ckpt iter.ckpt iteration 0 64
run "$SCFW" run p.json --iterations 200 --resume iter.ckpt
expect_rc 2 "the iteration edited from 180 to 100"
expect_stderr "error: iter.ckpt: checkpoint is damaged: checksum $sum recorded, $($EDIT checksum iter.ckpt) computed over its contents" \
  "the iteration edited from 180 to 100"
$EDIT cut k.ckpt short.ckpt y 16 seal
check "a truncated block" 2 "error: short.ckpt: block y: 20 f64 values declared, 8 bytes follow" "$SCFW" run p.json --iterations 200 --resume short.ckpt
$EDIT cut k.ckpt none.ckpt y 0
sed -i -E 's/^(y f64 20 )$/\1-/' none.ckpt
$EDIT seal none.ckpt
check "a count with no bytes behind it" 2 "error: none.ckpt: block y: 20 f64 values declared, 0 bytes follow" "$SCFW" run p.json --iterations 200 --resume none.ckpt
sed '1s/.*/scfw-checkpoint 1/' k.ckpt >v1.ckpt
run "$SCFW" run p.json --iterations 200 --resume v1.ckpt
expect_rc 2 "a format 1 checkpoint"
expect_stderr "error: v1.ckpt: checkpoint format 1 (an earlier scfw, without a checksum) is not resumed; run again from the start to write a format 2 checkpoint" \
  "a format 1 checkpoint"

# A data file that differs at resume (the same problem file in another folder, beside another
# data file of the same name): refused, naming it.
mkdir -p A B
for i in 0 1 2 3 4 5; do
  for sign in 1 -1; do row=(0 0 0 0 0 0); row[$i]=$sign; echo "$(IFS=,; echo "${row[*]}"),1"; done
done >A/poly.csv
echo "1,1,1,1,1,1,3" >>A/poly.csv
sed -e 's/"domain": { "plugin": "l1_ball", "radius": 2 }/"domain": { "plugin": "polytope", "file": "poly.csv" }/' \
  -e 's/"dim": 20/"dim": 6, "sparsity": 3/' p.json >A/p.json
grep -q '"file": "poly.csv"' A/p.json || fail "could not write A/p.json"
run "$SCFW" run A/p.json --checkpoint d.ckpt --checkpoint-every 40
expect_rc 0 "a run over a polytope file"
grep -q "^data $(wc -c <A/poly.csv) [0-9a-f]\{16\} A/poly.csv$" d.ckpt || fail "the checkpoint has no data line for A/poly.csv"
cp A/p.json B/p.json
sed 's/^1,1,1,1,1,1,3$/1,1,1,1,1,1,2.5/' A/poly.csv >B/poly.csv
run "$SCFW" run B/p.json --resume d.ckpt
expect_rc 2 "a data file that differs"
expect_stderr "error: d.ckpt: checkpoint: data file B/poly.csv differs from the one read when the checkpoint was taken ($(wc -c <A/poly.csv) bytes then, $(wc -c <B/poly.csv) now)" \
  "a data file that differs"
cp A/poly.csv B/poly.csv
run "$SCFW" run B/p.json --resume d.ckpt
expect_rc 0 "the same data file in another folder"

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
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "checkpoint: every other example resumes bit for bit; refusals name what differs; skipped for want of data: ${skipped[*]}"
  exit "$SKIP_CODE"
fi
echo "checkpoint: every example resumes bit for bit; refusals name what differs"
