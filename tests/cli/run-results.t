#!/bin/sh
# tests/cli/run-results.t: `sweetspot results` on bad input: a missing
# database, a file that is not one, a database from a newer schema (left
# untouched), bad options; and its --help. Then a real run of a trimmed
# copy of profiles/allreduce.cfg (one layout, one chunk) whose results
# carry the reduction's fields.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 22

exits_with 0 "results --help" sweetspot results --help
like "$TMP/out" '^usage: sweetspot results' "usage on stdout"

exits_with 2 "missing database" sweetspot results --db "$TMP/none.db"
like "$TMP/err" 'none.db: no such database' "says so"
ok "and creates nothing" test ! -e "$TMP/none.db"

printf 'not a database, just some text that is long enough\n' >"$TMP/junk.db"
cp "$TMP/junk.db" "$TMP/junk.orig"
exits_with 2 "not a database" sweetspot results --db "$TMP/junk.db"
ok "junk file untouched" cmp -s "$TMP/junk.db" "$TMP/junk.orig"

sqlite3 "$TMP/newer.db" 'CREATE TABLE runs(id); PRAGMA user_version = 7;'
cp "$TMP/newer.db" "$TMP/newer.orig"
exits_with 2 "newer schema" sweetspot results --db "$TMP/newer.db"
like "$TMP/err" 'newer sweetspot \(schema 7' "names the schema"
ok "newer database untouched" cmp -s "$TMP/newer.db" "$TMP/newer.orig"

exits_with 2 "--csv with --json" sweetspot results --csv --json --db "$TMP/newer.db"
exits_with 2 "bad --run" sweetspot results --run 0 --db "$TMP/newer.db"

# profiles/allreduce.cfg, trimmed: one layout (1 worker), one repetition,
# the kernel built here; both dtypes, algorithms and chunks kept (the
# kernel takes the chunks as a list: one launch measures each).
sed -e "s|\"\.\./bin/sweetspot-kernel\"|\"$BIN/sweetspot-kernel\"|" \
    -e 's|wpn = \[ 1, 2 \];|wpn = [ 1 ];|' -e 's|workers = \[ 1, 2 \];|workers = [ 1 ];|' \
    -e 's|repetitions = 3;|repetitions = 1;|' \
    -e 's|launcher_args = \[ "--oversubscribe" \];|launcher_args = [ "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo" ];|' \
    "$ROOT/profiles/allreduce.cfg" >"$TMP/allreduce.cfg"
exits_with 0 "the trimmed allreduce profile plans" sweetspot plan "$TMP/allreduce.cfg"
like "$TMP/out" '^1 layout, 16 points' "one layout of 16 points (2 algorithms x 2 sizes x 2 dtypes x 2 chunks)"
exits_with 0 "and runs for real" sweetspot run "$TMP/allreduce.cfg" --db "$TMP/r.db"
exits_with 0 "results --json" sweetspot results --json --db "$TMP/r.db"
cp "$TMP/out" "$TMP/r.json"
# One field per line (JSON_INDENT): counted without a JSON tool.
is "$(grep -c '"collective": "allreduce"' "$TMP/r.json")" 16 "16 points stored"
is "$(grep -c '"dtype": "int32"' "$TMP/r.json") $(grep -c '"dtype": "double"' "$TMP/r.json")" "8 8" \
	"dtype of each: 8 int32, 8 double"
is "$(grep -c '"op": "sum"' "$TMP/r.json") $(grep -c '"chunk": 4096,' "$TMP/r.json") $(grep -c '"chunk": 8192,' "$TMP/r.json") $(grep -c '"window": 2,' "$TMP/r.json")" \
	"16 8 8 16" "op, chunk (both) and window of each"
is "$(grep -cE '"busbw": [0-9.e+]+,' "$TMP/r.json")" 16 "every point has a busbw"
exits_with 0 "results as a table" sweetspot results --db "$TMP/r.db"
like "$TMP/out" '^layout .* bytes dtype  op   ' "the table shows dtype and op"

done_testing
