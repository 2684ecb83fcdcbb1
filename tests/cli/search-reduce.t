#!/bin/sh
# tests/cli/search-reduce.t: a real search over the axes beyond (collective,
# algorithm, assignment, size): profiles/allreduce.cfg trimmed to 2 layouts
# and 2 launches each, keeping its 2 dtypes and 2 chunks. The search must
# keep every (dtype, chunk) point apart (its groups are the plan's points)
# and decide per (collective, size, dtype, op) as recommend does, naming
# the same verdict and chosen layout for each.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 20
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -e "s|\"\.\./bin/sweetspot-kernel\"|\"$BIN/sweetspot-kernel\"|" \
    -e 's|repetitions = 3;|repetitions = 2;\n\tmax_repetitions = 2;|' \
    -e 's|launcher_args = \[ "--oversubscribe" \];|launcher_args = [ "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo" ];|' \
    "$ROOT/profiles/allreduce.cfg" >"$TMP/s.cfg"
DB=$TMP/r/s.db

exits_with 0 "a real search over 2 dtypes x 2 chunks" sweetspot search "$TMP/s.cfg" --db "$DB" --json
cp "$TMP/out" "$TMP/search.json"
# best[]: one entry per point of a launch: 2 algorithms x 2 sizes x 2 dtypes x 2 chunks.
best=$(sed 's/.*"best":\[//' "$TMP/search.json" | sed 's/},{/}\n{/g')
is "$(printf '%s\n' "$best" | grep -c '"chunk":')" 16 "16 points kept apart, each with its chunk"
is "$(printf '%s\n' "$best" | grep -c '"dtype":"double"') $(printf '%s\n' "$best" | grep -c '"chunk":4096')" "8 8" \
	"8 of them double, 8 at chunk 4096"

# "collective bytes dtype verdict layout" per decision.
sed 's/"best":\[.*//' "$TMP/search.json" | sed 's/{"collective":/\n&/g' |
	sed -n 's/^{"collective":"\([^"]*\)","bytes":\([0-9]*\),"verdict":"\([a-z]*\)","choice":{"layout":"\([^"]*\)".*"contenders":[0-9]*,"dtype":"\([^"]*\)".*/\1 \2 \5 \3 \4/p' |
	sort >"$TMP/s.txt"
is "$(wc -l <"$TMP/s.txt" | tr -d ' ')" 4 "4 decisions: 2 sizes x 2 dtypes (one op)"

exits_with 0 "recommend on the same database" sweetspot recommend "$TMP/s.cfg" --db "$DB" --json
sed 's/{"collective":/\n&/g' "$TMP/out" | while IFS= read -r band; do
	c=$(printf '%s' "$band" | sed -n 's/^{"collective":"\([^"]*\)".*/\1/p')
	[ -n "$c" ] || continue
	l=$(printf '%s' "$band" | sed -n 's/^[^[]*"layout":"\([^"]*\)".*/\1/p')
	d=$(printf '%s' "$band" | sed -n 's/^[^[]*"dtype":"\([^"]*\)".*/\1/p')
	printf '%s\n' "$band" | sed 's/{"bytes":/\n&/g' |
	sed -n "s/^{\"bytes\":\([0-9]*\),\"verdict\":\"\([a-z]*\)\".*/$c \1 $d \2 $l/p"
done | sort >"$TMP/r.txt"
diag "search: $(cat "$TMP/s.txt")"
diag "recommend: $(cat "$TMP/r.txt")"
ok "recommend decided per size and dtype too ($(wc -l <"$TMP/r.txt" | tr -d ' '))" [ "$(wc -l <"$TMP/r.txt" | tr -d ' ')" = 4 ]
is "$(cat "$TMP/s.txt")" "$(cat "$TMP/r.txt")" "the same verdict and chosen layout for every size and dtype"

# Figures keep the points apart too: one oe figure per dtype and chunk of
# each algorithm and assignment, each naming its axes in its title.
exits_with 0 "figures of the 2 dtypes x 2 chunks" sweetspot plot --db "$DB" -o "$TMP/fig"
n=$(ls "$TMP/fig" | grep -c '^oe-allreduce-.*\.svg$')
is "$n" "$(ls "$TMP/fig" | grep '^oe-allreduce-.*\.svg$' | sed 's/-int32.*\|-double.*//' | sort -u | awk 'END { print NR * 4 }')" \
	"4 oe figures per algorithm and assignment ($n)"
ok "their titles say dtype, op, chunk and window" grep -q 'double/sum chunk 4K window' "$TMP"/fig/oe-allreduce-*double_sum_chunk_4K*.svg

# The profile keeps every field of a point (point.h): read back, it gives
# the same profile, and the MPMD recipe made from it runs exactly the
# chosen point (its dtype, op, chunk and window), not every value listed.
exits_with 0 "a profile of the 2 dtypes x 2 chunks" sweetspot export --format profile --db "$DB" -o "$TMP/p.cfg"
is "$(grep -c 'dtype = ' "$TMP/p.cfg") $(grep -c 'chunk = ' "$TMP/p.cfg")" \
	"$(grep -c 'bytes = ' "$TMP/p.cfg") $(grep -c 'bytes = ' "$TMP/p.cfg")" "every decision names its dtype and chunk"
exits_with 0 "the profile read back" sweetspot export --format profile --profile "$TMP/p.cfg" -o "$TMP/p2.cfg"
ok "gives the same profile" cmp -s "$TMP/p.cfg" "$TMP/p2.cfg"
exits_with 0 "an MPMD recipe from the profile" sweetspot export --format mpmd --profile "$TMP/p.cfg" -o "$TMP/rec" "$TMP/s.cfg"
set -- $(sed -n 's/^sweetspot: wrote .* for layout [^ ]* ([a-z]* [a-z]* [a-z]*, oe_measured [0-9.]*) with \([a-z0-9]*\)\/\([a-z]*\) chunk \([0-9KM]*\) window \([0-9]*\)$/\1 \2 \3 \4/p' "$TMP/err")
ok "it names the chosen dtype, op, chunk and window ($*)" [ $# -eq 4 ]
dt=$1 op=$2 ch=$3 wi=$4
line=$(sed -n 's/^  //p' "$TMP/err")
(cd "$TMP/rec" && sh -c "$line") >"$TMP/rec.out" 2>"$TMP/rec.err"
is "$?" 0 "the recipe runs as printed"
field() { sed -n "s/.*\"$1\":\"*\([^,\"]*\).*/\1/p" "$TMP/rec.out" | sort -u | tr '\n' ' ' | sed 's/ $//'; }
bytes_of() { case $1 in *K) echo $(( ${1%K} * 1024 )) ;; *M) echo $(( ${1%M} * 1048576 )) ;; *) echo "$1" ;; esac; }
is "$(field dtype) $(field op)" "$dt $op" "its records: the chosen dtype and op alone"
is "$(field chunk) $(field window)" "$(bytes_of "$ch") $wi" "the chosen chunk and window alone"
is "$(field valid)" "true" "every record valid"
done_testing
