#!/bin/sh
# tests/cli/search-replay-seed.t: `sweetspot search --replay --replay-seed N`
# draws each layout's launches from its stored ones in a seeded order, each
# once: one seed replays the same twice, two seeds differ, every stored
# launch is served once and the one past the last fails; without the option
# a layout's k-th launch is its k-th repetition in number order, as before.
# A bad seed, or one without --replay, is bad usage (exit 2).
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 17

# Two layouts of one point; launch r (rows in scrambled order) has OE 10 + r
# on one worker and 50 + r on two, so the best's OE names the launch drawn.
sed -e 's/collectives = .*/collectives = [ "bcast" ];/' -e 's/algorithms = .*/algorithms = [ "direct" ];/' \
	-e 's/assignments = .*/assignments = [ "block" ];/' -e 's/sizes = .*/sizes = [ "256K" ];/' \
	-e 's/wpn = .*/wpn = [ 1 ];/' -e 's/workers = .*/workers = [ 1, 2 ];/' \
	"$ROOT/tests/data/landscape.cfg" >"$TMP/base.cfg"
{
	echo "collective,algorithm,assignment,bytes,workers,wpn,placement,repetition,oe_measured,total_us"
	for r in 4 2 6 1 5 3; do
		echo "bcast,direct,block,262144,1,1,dpu,$r,$((10 + r)),100"
		echo "bcast,direct,block,262144,2,1,dpu,$r,$((50 + r)),100"
	done
} >"$TMP/t.csv"

# best_oe K [ARGS]: the best's OE of a grid of K launches per layout, no racing.
best_oe() {
	k=$1
	shift
	sed "s/repetitions = 3;/repetitions = $k;/" "$TMP/base.cfg" >"$TMP/k.cfg"
	sweetspot search "$TMP/k.cfg" --replay "$TMP/t.csv" --strategy grid --max-repetitions "$k" \
		--json "$@" 2>"$TMP/best.err" | grep -o '"best":.*"oe_measured":[0-9.]*' | sed 's/.*://'
}

is "$(best_oe 1)" 51.0 "without a seed the first launch is repetition 1, whatever the rows' order"
is "$(best_oe 2)" 51.5 "and the second repetition 2"

# The first two launches of seeds 1 to 6: the first is the 1-launch median,
# the second twice the 2-launch median less the first.
seqs=
for s in 1 2 3 4 5 6; do
	a=$(best_oe 1 --replay-seed $s)
	b=$(best_oe 2 --replay-seed $s)
	seq=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d-%d", a - 50, 2 * b - a - 50 }')
	seqs="$seqs $seq"
done
diag "first two launches drawn by seeds 1-6:$seqs"
ok "every draw is two stored launches, each once" \
	sh -c 'for q in $0 "$@"; do a=${q%-*}; b=${q#*-}; [ "$a" -ge 1 ] && [ "$a" -le 6 ] && [ "$b" -ge 1 ] && [ "$b" -le 6 ] && [ "$a" != "$b" ] || exit 1; done' $seqs
ok "two seeds draw different sequences" [ "$(printf '%s\n' $seqs | sort -u | wc -l)" -ge 2 ]
ok "seeds draw other than the table's order" sh -c 'printf "%s\n" "$@" | grep -qv "^1-2$"' x $seqs

# All six launches, each once: the median of 51..56 whatever the order; a
# seventh is past the table's end and fails as without a seed.
is "$(best_oe 6 --replay-seed 5)" 53.5 "six launches drawn without replacement: each stored launch once"
is "$(best_oe 7 --replay-seed 5)" 53.5 "a seventh has no row"
like "$TMP/best.err" "no rows for 2 of the launches asked for" "and counts as failed, one per layout"

# One seed twice: the same output, byte for byte (the shipped landscape).
SPEC=$ROOT/tests/data/landscape.cfg
CSV=$ROOT/tests/data/landscape.csv
exits_with 0 "a seeded search" sweetspot search "$SPEC" --replay "$CSV" --replay-seed 7 --json
cp "$TMP/out" "$TMP/s7a"
exits_with 0 "the same seed again" sweetspot search "$SPEC" --replay "$CSV" --replay-seed 7 --json
ok "the same seed gives the same search" cmp -s "$TMP/out" "$TMP/s7a"
exits_with 0 "the largest seed" sweetspot search "$SPEC" --replay "$CSV" --replay-seed 18446744073709551615 --json

# Bad usage.
exits_with 2 "a seed that is not a number" sweetspot search "$SPEC" --replay "$CSV" --replay-seed 1x
like "$TMP/err" "--replay-seed: '1x' is not a number" "says why"
exits_with 2 "a seed past 2^64-1" sweetspot search "$SPEC" --replay "$CSV" --replay-seed 18446744073709551616
exits_with 2 "a seed without --replay" sweetspot search "$SPEC" --replay-seed 3
like "$TMP/err" "--replay-seed .* needs --replay" "says it needs --replay"
done_testing
