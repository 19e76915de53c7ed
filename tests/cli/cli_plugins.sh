#!/usr/bin/env bash
# `scfw plugins`: the table, the JSON listing, and load failures reported once each.
SCFW=$1
source "$(dirname "$0")/lib.sh"

run "$SCFW" plugins --json
expect_rc 0 "plugins --json"
[[ -z "$ERR" ]] || fail "plugins --json: unexpected stderr: $ERR"
python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$OUT" || fail "plugins --json is not JSON:
$OUT"
printf '%s\n' "$OUT" >plugins.json
python3 - <<'PY' || fail "plugins --json content"
import json, os, sys
plugins = json.load(open("plugins.json"))
want = {
    ("oracle", "least_squares_tasks"),
    ("outer", "max"), ("outer", "linear"),
    ("domain", "l1_ball"), ("domain", "simplex"), ("domain", "box"),
    ("glmo", "clp"),
    ("tracker", "momentum"),
    ("schedule", "nonconvex"), ("schedule", "convex"), ("schedule", "deterministic"), ("schedule", "constant"),
}
have = {(p["kind"], p["name"]) for p in plugins}
missing = want - have
if missing:
    sys.exit(f"missing plugins: {sorted(missing)}")
for p in plugins:
    for key in ("name", "kind", "version", "library", "summary", "parameters"):
        if key not in p:
            sys.exit(f"{p.get('name')}: no '{key}'")
    if not (p["library"].endswith(".so") and os.path.isfile(p["library"])):
        sys.exit(f"{p['name']}: library {p['library']!r} is not a file")
    def check(spec, where):
        for key in ("name", "type", "default", "required", "min", "max", "choices", "doc"):
            if key not in spec:
                sys.exit(f"{where}: parameter without '{key}'")
        for f in spec.get("fields", []):
            check(f, where + "." + spec["name"])
    for spec in p["parameters"]:
        check(spec, p["name"])
radius = next(s for p in plugins if p["name"] == "l1_ball" for s in p["parameters"] if s["name"] == "radius")
assert radius["type"] == "number" and radius["min"] == 0 and radius["min_open"] and radius["max"] == 1e10 and not radius["max_open"] and radius["default"] == 1, radius
PY

run "$SCFW" plugins
expect_rc 0 "plugins"
expect_contains "$(head -n1 <<<"$OUT")" "KIND" "plugins table header"
for name in least_squares_tasks max linear l1_ball simplex box clp momentum nonconvex convex deterministic constant; do
  grep -Eq "^[a-z]+ +$name +" <<<"$OUT" || fail "plugins table: no row for $name"
done

# A file that is not a plugin: reported once, with its path and reason; the others still load.
mkdir -p broken
echo "not a library" >broken/libscfw_broken.so
broken=$(realpath broken/libscfw_broken.so)
run "$SCFW" plugins --plugin-path broken
expect_rc 0 "plugins with a broken library"
[[ $(wc -l <<<"$ERR") == 1 ]] || fail "broken library: expected one warning line, got:
$ERR"
expect_contains "$ERR" "scfw: warning: skipped $broken: " "broken library"
expect_contains "$OUT" "l1_ball" "broken library: the others still load"

run "$SCFW" plugins --plugin-path does-not-exist
expect_rc 0 "missing plugin path"
expect_stderr "scfw: warning: plugin path does-not-exist is not a directory" "missing plugin path"
# Issue #12: libraries of another build (the other string ABI, a roles.hpp with one more virtual
# method) are skipped with the mismatch named; a library registering a name another one already
# has loses it to the one found first on the search path (--plugin-path before the built-in
# folder), with one warning naming both files, and `plugins` shows the file of each name.
FIXTURES=$(cd "$(dirname "$SCFW")/../tests/fixtures" && pwd -P)
BUILTIN=$(cd "$(dirname "$SCFW")/../lib/scfw/plugins" && pwd -P)
run "$SCFW" plugins --plugin-path "$FIXTURES/string_abi" --plugin-path "$FIXTURES/interface"
expect_rc 0 "plugins with mismatched libraries"
[[ $(wc -l <<<"$ERR") == 2 ]] || fail "mismatched libraries: expected two warning lines, got:
$ERR"
expect_contains "$(sed -n 1p <<<"$ERR")" "scfw: warning: skipped $FIXTURES/string_abi/libstring_abi.so: build fingerprint mismatch: _GLIBCXX_USE_CXX11_ABI=0 in the library, 1 in this scfw (the std::string layouts differ) (library built by " "string ABI"
expect_contains "$(sed -n 2p <<<"$ERR")" "scfw: warning: skipped $FIXTURES/interface/libgood.so: build fingerprint mismatch: SDK interface hash " "interface hash"
grep -Eq "^outer +max +" <<<"$OUT" || fail "mismatched libraries: the built-in plugins no longer load"
write_problem mixed.json '{ "plugin": "max" }' 20
run "$SCFW" run mixed.json --plugin-path "$FIXTURES/string_abi" --plugin-path "$FIXTURES/interface"
expect_rc 0 "run beside mismatched libraries"

run "$SCFW" plugins --plugin-path "$FIXTURES/duplicate"
expect_rc 0 "plugins with a duplicate name"
expect_stderr "scfw: warning: outer plugin \"max\" is registered by two libraries: using $FIXTURES/duplicate/libduplicate.so (found first on the search path), ignoring $BUILTIN/libscfw_max.so" "duplicate name"
grep -Eq "^outer +max +1\.0\.0 +$FIXTURES/duplicate/libduplicate.so +" <<<"$OUT" || fail "plugins: max is not shown from the fixture:
$OUT"
grep -Eq "^domain +l1_ball +[^ ]+ +$BUILTIN/libscfw_l1_ball.so +" <<<"$OUT" || fail "plugins: l1_ball is not shown with its file:
$OUT"
echo "cli_plugins: ok"
