#!/bin/sh
# tests/cli/recommend-db.t: `sweetspot recommend` on a database with no
# results of the spec searches first (real launches), then recommends per
# collective and size band with the margins, writes the launch files, and
# its launch command really starts the recommended layout. A collective
# never measured is refused.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 15
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/search-local.cfg
DB=$TMP/db/s.db

exits_with 0 "recommend on an empty database searches first" sweetspot recommend "$SPEC" --db "$DB"
cp "$TMP/out" "$TMP/rec.txt"
like "$TMP/err" "searching first" "says it searched"
like "$TMP/err" "adaptive search used [0-9]+ launches of 4" "and how many launches"
like "$TMP/rec.txt" "^bcast, 4K: direct algorithm, block assignment, [12] workers? \(WPN [12], onload\)$" "the band's configuration"
like "$TMP/rec.txt" "^  layout n1-ppn4-w[12]-wpn[12]-onload: oe_measured [0-9.]+% \+- ([0-9.]+ \([0-9]+ repetitions|\? \(1 repetition)" "oe with spread"
like "$TMP/rec.txt" "^  runner-up n1-ppn4-w[12]-wpn[12]-onload: [0-9.]+%, -?[0-9.]+ points behind$" "margin over the runner-up"
like "$TMP/rec.txt" "^  no offload: [0-9.]+ us per call" "margin over no offload"
like "$TMP/rec.txt" "^  launch: mpirun " "the command"
dir=$(sed -n 's/^  files: \(.*\)\/$/\1/p' "$TMP/rec.txt")
ok "the files are there ($dir)" test -s "$dir/hostfile" -a -s "$dir/appfile"
cmd=$(sed -n 's/^  launch: //p' "$TMP/rec.txt")
# The command is printed for a shell to run; run it as a person would.
OMPI_MCA_rmaps_base_oversubscribe=1 sh -c "$cmd" >"$TMP/launch.out" 2>"$TMP/launch.err"
w=$(echo "$dir" | sed 's/.*-w\([0-9]*\)-.*/\1/')
like "$TMP/launch.out" "\"workers\":$w," "the printed command launches the recommended $w workers"

exits_with 0 "--json" sweetspot recommend "$SPEC" --db "$DB" --json
like "$TMP/out" '"recommendations":\[\{"collective":"bcast","bytes_min":4096,"bytes_max":4096,' "JSON per band"
like "$TMP/out" '"margin_runner_up":-?[0-9.]+,"no_offload_us":[0-9.]+,"offloaded_us":[0-9.]+,"saved_pct":-?[0-9.]+' "JSON margins"
exits_with 2 "a collective never measured" sweetspot recommend "$SPEC" --db "$DB" --collective gather
like "$TMP/err" "no offloaded measurement of gather" "says which"
done_testing
