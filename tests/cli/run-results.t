#!/bin/sh
# tests/cli/run-results.t: `sweetspot results` on bad input: a missing
# database, a file that is not one, a database from a newer schema (left
# untouched), bad options; and its --help.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 12

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

done_testing
