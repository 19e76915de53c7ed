#!/usr/bin/env bash
# Issue #27 (checkpoints and outputs a user can trust), the inputs that are not what they claim:
# --resume and --start files over their size caps, a checkpoint whose problem line nests 3e6
# levels deep, input quoted in messages (40 bytes, control characters as ?), and a truncated
# plugin library on the search path (skipped with a warning, not a SIGBUS inside dlopen).
SCFW=$1
source "$(dirname "$0")/lib.sh"

write_problem p.json '{ "plugin": "max" }' 60 '{ "every": 10 }'
run "$SCFW" run p.json --quiet --solution sol.csv --checkpoint a.ckpt --checkpoint-every 30
expect_rc 0 "a run that writes a checkpoint"

# --- Sizes: a sparse file one byte over each cap is refused before a byte is read ---------------
truncate -s $((4 * 1024 * 1024 * 1024 + 1)) huge.ckpt
check "--resume over 4 GiB" 2 \
  "error: huge.ckpt: the file has 4294967297 bytes; checkpoints are limited to 4294967296 bytes (4 GiB)" \
  "$SCFW" run p.json --resume huge.ckpt
for ext in csv json; do
  truncate -s $((64 * 1024 * 1024 + 1)) big.$ext
  check "--start .$ext over 64 MiB" 2 \
    "error: big.$ext: the file has 67108865 bytes; start files are limited to 67108864 bytes (64 MiB)" \
    "$SCFW" run p.json --start big.$ext
done

# resign FILE : rewrites the checksum line of an edited checkpoint (FNV-1a 64 of every byte
# before it), so that the reader gets past the checksum to the damage under test.
resign() {
  python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
body = data[: data.rindex(b"\nchecksum fnv1a64 ") + 1]
h = 0xCBF29CE484222325
for b in body:
    h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
open(sys.argv[1], "wb").write(body + b"checksum fnv1a64 %016x\nend\n" % h)
PY
}

# --- Nesting: the checkpoint's problem line 3e6 levels deep (it crashed the reader) -------------
python3 - <<'PY'
lines = open("a.ckpt", "rb").read().split(b"\n")
at = next(i for i, l in enumerate(lines) if l.startswith(b"problem "))
lines[at] = b"problem " + b"[" * 3000000 + b"]" * 3000000
open("deep.ckpt", "wb").write(b"\n".join(lines))
PY
resign deep.ckpt
check "a checkpoint's problem line 3e6 levels deep" 2 "error: deep.ckpt: malformed checkpoint (problem line)" \
  "$SCFW" run p.json --resume deep.ckpt

# --- Input quoted in messages: 40 bytes, control characters shown as ? --------------------------
long=$(printf 'x%.0s' {1..100})
run "$SCFW" $'\e[31m'"$long"
expect_rc 2 "an unknown command with an escape sequence"
[[ "$(sed -n 1p <<<"$ERR")" == "scfw: unknown command '?[31m$(printf 'x%.0s' {1..35})... (105 bytes)'" ]] ||
  fail "an unknown command with an escape sequence: $(sed -n 1p <<<"$ERR")"
run "$SCFW" run p.json --checkpoint c.ckpt --checkpoint-every $'\e[2J1'
expect_rc 2 "--checkpoint-every with an escape sequence"
expect_contains "$ERR" "scfw run: --checkpoint-every: expected an integer >= 1, got '?[2J1'" "--checkpoint-every quoted"
python3 - <<'PY'
lines = open("a.ckpt", "rb").read().split(b"\n")
lines.insert(1, b"\x1b[31m" + b"y" * 100)
open("line.ckpt", "wb").write(b"\n".join(lines))
PY
resign line.ckpt
check "a checkpoint line with an escape sequence" 2 \
  "error: line.ckpt: malformed checkpoint line \"?[31m$(printf 'y%.0s' {1..35})... (105 bytes)\"" \
  "$SCFW" run p.json --resume line.ckpt
{ echo "kind,name,value"; printf 'x,,\e[31m%s\n' "$long"; } >esc.csv
check "a start value with an escape sequence" 2 \
  "error: esc.csv:2: not a number: \"?[31m$(printf 'x%.0s' {1..35})... (105 bytes)\"" \
  "$SCFW" run p.json --start esc.csv

# --- A truncated plugin library on the search path: a warning, not SIGBUS -----------------------
lib=$("$SCFW" plugins --json | python3 -c 'import json,sys; print([p["library"] for p in json.load(sys.stdin) if p["name"] == "max"][0])')
mkdir -p cut
size=$(stat -c %s "$lib")
head -c $((size / 2)) "$lib" >cut/libscfw_cut_half.so
head -c $((size - 1)) "$lib" >cut/libscfw_cut_tail.so
run "$SCFW" plugins --plugin-path cut
expect_rc 0 "plugins with truncated libraries on the path"
[[ $(wc -l <<<"$ERR") == 2 ]] || fail "truncated libraries: expected two warning lines, got:
$ERR"
expect_contains "$(sed -n 1p <<<"$ERR")" "scfw: warning: skipped $(realpath cut/libscfw_cut_half.so): cannot be loaded: truncated or damaged: its " "half a library"
expect_contains "$(sed -n 2p <<<"$ERR")" "scfw: warning: skipped $(realpath cut/libscfw_cut_tail.so): cannot be loaded: truncated or damaged: its section header table ends at byte $size, the file has $((size - 1)) bytes" "a library one byte short"
expect_contains "$OUT" "l1_ball" "truncated libraries: the others still load"
run "$SCFW" run p.json --quiet --plugin-path cut
expect_rc 0 "a run with truncated libraries on the path"

echo "run safety: size caps, bounded nesting, quoted input and truncated libraries hold"
