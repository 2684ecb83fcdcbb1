#!/bin/sh
# tests/cli/recommend-db.t: `sweetspot recommend` on a database with no
# results of the spec searches first (real launches), then recommends per
# collective and size band with the margins, writes the launch files, and
# prints the command that measured the layout: the store's argv column of
# that layout's last successful launch, naming the launcher the run used,
# which really starts the recommended layout. A collective never measured
# is refused.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 19
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/search-local.cfg
DB=$TMP/db/s.db

exits_with 0 "recommend on an empty database searches first" sweetspot recommend "$SPEC" --db "$DB"
cp "$TMP/out" "$TMP/rec.txt"
like "$TMP/err" "searching first" "says it searched"
like "$TMP/err" "adaptive search used [0-9]+ launches of 4" "and how many launches"
like "$TMP/rec.txt" "^(bcast, 4K: |  the least bad offload: )[12] workers? \(WPN [12], onload\), direct algorithm, block assignment: (best|tie|undecided)$" "the band's configuration and verdict"
like "$TMP/rec.txt" "^  4K: OE [0-9.]+% \(median of [0-9]+ launch(es)?; reference over total, medians over iterations, uncapped(: oe_measured caps it at 100.0)?\); the best median [0-9.]+%, its 95% CI \[[0-9.]+, [0-9.]+\]" "median OE, with the best's median and CI"
like "$TMP/rec.txt" "^    (best|tie|undecided): .*runner-up n1-ppn4-w[12]-wpn[12]-onload direct block [0-9.]+% \(p=[0-9.e-]+\)$" "leader against runner-up, with p"
like "$TMP/rec.txt" "^    offloading pays: (yes|no|unclear) \(host-only time / offloaded time [0-9.]+, CI \[[0-9.]+, [0-9.]+\]; reference [0-9.]+ \+ compute [0-9.]+ us vs [0-9.]+ us\)$" "whether offloading pays, with its CI"
dir=$(sed -n 's/^  files: \(.*\)\/$/\1/p' "$TMP/rec.txt")
ok "the files are there ($dir)" test -s "$dir/hostfile" -a -s "$dir/appfile"
cmd=$(sed -n 's/^  launch: //p' "$TMP/rec.txt")
layout=$(sed -n 's/^  layout \([^ ]*\)$/\1/p' "$TMP/rec.txt")
run=$(sed -n 's/^Recommendation from .*, run \([0-9]*\) .*/\1/p' "$TMP/rec.txt")
stored=$(sqlite3 "$DB" "SELECT argv FROM launches WHERE run = $run AND layout = '$layout' AND ok ORDER BY id DESC LIMIT 1")
ok "a launch of $layout ended ok in run $run" test -n "$stored"
is "$cmd" "$stored" "the command printed is the one the store recorded for $layout"
like "$TMP/rec.txt" "^  measured by the last launch of $layout in run $run that ended ok, with:$" "says which launch it is"
launcher=$(sqlite3 "$DB" "SELECT launcher FROM runs WHERE id = $run")
case " $cmd " in
*" $launcher "*) pass "it names the launcher the run used ($launcher)" ;;
*) fail "it names the launcher the run used ($launcher)"; diag "command: $cmd" ;;
esac
# The command is printed for a shell to run; run it as a person would, in
# a folder of their own: the kernel writes its records (points.jsonl, as
# in the sweep) where it is started, or on its standard output.
mkdir "$TMP/again"
(cd "$TMP/again" && OMPI_MCA_rmaps_base_oversubscribe=1 sh -c "$cmd") >"$TMP/launch.out" 2>"$TMP/launch.err"
cat "$TMP/again"/*.jsonl >>"$TMP/launch.out" 2>/dev/null
w=$(echo "$dir" | sed 's/.*-w\([0-9]*\)-.*/\1/')
like "$TMP/launch.out" "\"workers\":$w," "the printed command launches the recommended $w workers"

exits_with 0 "--json" sweetspot recommend "$SPEC" --db "$DB" --json
like "$TMP/out" '"recommendations":\[\{"collective":"bcast","bytes_min":4096,"bytes_max":4096,' "JSON per band"
like "$TMP/out" '"verdict":"(best|tie|undecided)","indifferent":"[^"]*","p_value":[0-9.e-]+,"ci":\[[0-9.]+,[0-9.]+\],"launches":[0-9]+,' "JSON: verdict, indifferent set, p, CI, launches"
json_cmd=$(printf '%s' "$stored" | sed 's/[\\"]/\\&/g')
ok "JSON: the same command, and its launch" grep -qF "\"command\":\"$json_cmd\",\"command_launch\":{\"run\":$run,\"layout\":\"$layout\"}" "$TMP/out"
exits_with 2 "a collective never measured" sweetspot recommend "$SPEC" --db "$DB" --collective gather
like "$TMP/err" "no offloaded measurement of gather" "says which"
done_testing
