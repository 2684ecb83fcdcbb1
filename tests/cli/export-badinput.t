#!/bin/sh
# tests/cli/export-badinput.t: export, recommend and plot refuse bad input
# with a clear message and exit status 2, and write nothing: an unknown
# format, a missing database, a database whose run holds no valid point
# (every launch failed), a bad profile or Open MPI version.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 22
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

exits_with 2 "an unknown format" sweetspot export --format nosuch -o "$TMP/x"
like "$TMP/err" "unknown format 'nosuch'" "names the format"
ok "nothing written" [ ! -e "$TMP/x" ]
exits_with 2 "no format" sweetspot export -o "$TMP/x"
exits_with 2 "a missing database" sweetspot export --format env --db "$TMP/none.db" -o "$TMP/x"
ok "nothing written, not even the database" test ! -e "$TMP/x" -a ! -e "$TMP/none.db"

# A database whose only run has no valid point: every launch failed.
sed 's|host_bin = .*|host_bin = "./no-such-kernel";|' "$ROOT/tests/data/search-local.cfg" >"$TMP/bad.cfg"
exits_with 1 "a run whose launches all fail" sweetspot run "$TMP/bad.cfg" --db "$TMP/e.db"
exits_with 2 "export from it" sweetspot export --format profile --db "$TMP/e.db" -o "$TMP/p.cfg"
like "$TMP/err" "holds no valid measurement" "says why"
ok "no profile written" [ ! -e "$TMP/p.cfg" ]
exits_with 2 "recommend from it" sweetspot recommend "$TMP/bad.cfg" --db "$TMP/e.db"
like "$TMP/err" "holds no valid measurement" "says why"
exits_with 2 "plot from it" sweetspot plot --db "$TMP/e.db" -o "$TMP/fig"
ok "no figure folder" [ ! -e "$TMP/fig" ]
exits_with 2 "recommend for an unknown collective" sweetspot recommend "$TMP/bad.cfg" --db "$TMP/e.db" --collective reduce
exits_with 2 "plot without -o" sweetspot plot --db "$TMP/e.db"

printf 'version = 1;\noffload = ( { collective = "bcast"; } );\n' >"$TMP/bad-profile.cfg"
exits_with 2 "a profile missing settings" sweetspot export --format env --profile "$TMP/bad-profile.cfg"
like "$TMP/err" "bad-profile.cfg:2: missing or not a string: algorithm" "file:line and the setting"
printf 'version = 1;\nmpi = ( { collective = "bcast" ' >"$TMP/syntax.cfg"
exits_with 2 "a profile that does not parse" sweetspot export --format env --profile "$TMP/syntax.cfg"
like "$TMP/err" "syntax.cfg:[0-9]+: " "file:line"
exits_with 2 "a bad Open MPI version" sweetspot export --format ompi-rules --ompi-version four --profile "$TMP/bad-profile.cfg"
exits_with 2 "a bad replay file for plot" sweetspot plot --csv "$TMP/bad.cfg" -o "$TMP/fig"
done_testing
