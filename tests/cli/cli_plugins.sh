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
assert radius["type"] == "number" and radius["min"] == 0 and radius["max"] is None and radius["default"] == 1, radius
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
echo "cli_plugins: ok"
