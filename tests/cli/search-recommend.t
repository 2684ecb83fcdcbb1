#!/bin/sh
# tests/cli/search-recommend.t: the same verdict on the same database. A
# real small search (tests/data/search-local.cfg with max_repetitions = 3:
# mpirun launches on this machine) stores its launches; `recommend --json`
# then decides from that database. For every (collective, size) both must
# name the same verdict and the same chosen layout, as they decide by the
# same rule (decide.h) with the spec's statistics.
#
# The search's racing screens with its own pooled noise (to choose what to
# launch next), but the decision it reports is made as recommend makes it
# (decide() with no outside noise estimate): they once parted here when the
# search's screen, on 2 or 3 launches, removed a configuration recommend
# kept. When the search screened anything, the diagnostics say so.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 6
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
sed -e "s|\"../../bin/sweetspot-kernel\"|\"$BIN/sweetspot-kernel\"|" \
	-e 's/^\([[:space:]]*\)repetitions = 2;/\1repetitions = 2;\n\1max_repetitions = 3;/' \
	"$ROOT/tests/data/search-local.cfg" >"$TMP/s.cfg"
DB=$TMP/r/s.db

# search_decisions FILE: "collective bytes verdict choice-layout" per decision.
search_decisions() {
	sed 's/"best":\[.*//' "$1" | sed 's/{"collective":/\n&/g' |
	sed -n 's/^{"collective":"\([^"]*\)","bytes":\([0-9]*\),"verdict":"\([a-z]*\)","choice":{"layout":"\([^"]*\)".*/\1 \2 \3 \4/p' |
	sort
}

# recommend_decisions FILE: the same from recommend's bands: the band's
# layout is the choice of each of its sizes.
recommend_decisions() {
	sed 's/{"collective":/\n&/g' "$1" | while IFS= read -r band; do
		c=$(printf '%s' "$band" | sed -n 's/^{"collective":"\([^"]*\)".*/\1/p')
		[ -n "$c" ] || continue
		l=$(printf '%s' "$band" | sed -n 's/^[^[]*"layout":"\([^"]*\)".*/\1/p')
		printf '%s\n' "$band" | sed 's/{"bytes":/\n&/g' |
		sed -n "s/^{\"bytes\":\([0-9]*\),\"verdict\":\"\([a-z]*\)\".*/$c \1 \2 $l/p"
	done | sort
}

exits_with 0 "a real adaptive search, at most 3 launches per configuration" \
	sweetspot search "$TMP/s.cfg" --db "$DB" --json
cp "$TMP/out" "$TMP/search.json"
search_decisions "$TMP/search.json" >"$TMP/s.txt"
ok "the search made a decision per collective and size ($(wc -l <"$TMP/s.txt"))" [ -s "$TMP/s.txt" ]
like "$TMP/search.json" '"max_repetitions":3' "the spec's max_repetitions is in effect"
grep -q '"screened":[1-9]' "$TMP/search.json" &&
	diag "the search screened a configuration out: recommend keeps it (see above)"

exits_with 0 "recommend on the same database" sweetspot recommend "$TMP/s.cfg" --db "$DB" --json
recommend_decisions "$TMP/out" >"$TMP/r.txt"
ok "recommend made a decision per collective and size ($(wc -l <"$TMP/r.txt"))" [ -s "$TMP/r.txt" ]
diag "search: $(cat "$TMP/s.txt")"
diag "recommend: $(cat "$TMP/r.txt")"
is "$(cat "$TMP/s.txt")" "$(cat "$TMP/r.txt")" "the same verdict and chosen layout for every collective and size"
done_testing
