#!/usr/bin/env bash
# `scfw plot` through the app: usage errors and bad traces (exit 2, one located line), gnuplot
# missing (exit 1, the script kept), and the drawings themselves: a PNG of the documented size in
# pixels and an SVG naming every run. Without gnuplot on PATH the drawing part is skipped (77).
SCFW=$1
source "$(dirname "$0")/lib.sh"

write_problem p.json '{ "plugin": "max" }' 200 '{ "every": 10 }'
run "$SCFW" run p.json --trace first.csv --quiet
expect_rc 0 "first trace"
run "$SCFW" run p.json --trace second.csv --seed 4 --quiet
expect_rc 0 "second trace"

run "$SCFW" plot
expect_rc 2 "no trace"
expect_contains "$ERR" "scfw plot: missing TRACE.csv (a trace written by scfw run --trace)" "no trace"
run "$SCFW" plot first.csv -o first.pdf
expect_rc 2 "a PDF"
expect_contains "$ERR" "scfw plot: -o: expected a file name ending in .png or .svg, got 'first.pdf'" "a PDF"
run "$SCFW" plot p.json
expect_rc 2 "a problem file"
expect_stderr "error: p.json: line 1: not a trace CSV: the header has no column \"iteration\" (a trace has the columns iteration, objective and gap; this header is \"{\")" \
  "a problem file"
printf 'iteration,objective,gap\n' >header.csv
run "$SCFW" plot first.csv header.csv
expect_rc 2 "an empty trace"
expect_stderr "error: header.csv: the trace is empty: a header and no rows" "an empty trace"
[[ ! -e first.png ]] || fail "a refused plot left first.png"

# gnuplot missing: the script is written, and the message says where it is.
run env PATH=/nonexistent "$SCFW" plot first.csv second.csv -o both.png
expect_rc 1 "no gnuplot"
expect_stderr "error: gnuplot not found on PATH (Debian package gnuplot-nox); the script is in both.png.gp: run gnuplot on it once gnuplot is installed" \
  "no gnuplot"
grep -q 'title "second"' both.png.gp || fail "the script does not name the second run"
[[ ! -e both.png ]] || fail "both.png written without gnuplot"

if ! command -v gnuplot >/dev/null; then
  echo "skipped: gnuplot is not installed (Debian package gnuplot-nox): the drawings were not checked"
  exit "$SKIP_CODE"
fi
run "$SCFW" plot first.csv second.csv -o both.png
expect_rc 0 "two runs, PNG"
expect_contains "$OUT" "wrote both.png (2 runs; gnuplot script: both.png.gp)" "two runs, PNG"
python3 - both.png <<'PY' || fail "both.png is not a 900 x 760 PNG"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
assert data[12:16] == b"IHDR"
width, height = struct.unpack(">II", data[16:24])
print(f"both.png: {width} x {height}, {len(data)} bytes")
assert (width, height) == (900, 760)
PY
# The default name: the first trace's, with .png.
run "$SCFW" plot first.csv
expect_rc 0 "default output"
[[ -s first.png ]] || fail "scfw plot first.csv wrote no first.png"
run "$SCFW" plot first.csv second.csv -o both.svg
expect_rc 0 "two runs, SVG"
grep -q '<svg' both.svg || fail "both.svg is not an SVG"
grep -q 'width="720"' both.svg || fail "both.svg is not 720 pixels wide"
for run in first second; do grep -q ">$run<" both.svg || fail "both.svg does not name $run"; done
echo "ok"
