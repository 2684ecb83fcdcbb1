#!/bin/sh
# tests/cli/search-spread.t: no invented spread. On a replayed table where
# one layout (2 workers) scores 82 once and 44-48 after, and another (1
# worker) holds steady at 50, a single launch never decides: with one or
# three launches each the verdict is undecided (a rank test cannot reject
# at those sizes, and no spread is assumed), the lucky layout is never
# called best; with eight launches each the evidence says the steady one is
# significantly better. The grid (then racing) gives the same verdict kind
# and choice as the adaptive search at every stage.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 21
cat >"$TMP/s.cfg" <<CFG
system = {
	name = "local";
	nodes = "localhost";
	ppn = 4;
	onload = { cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	launcher = "mpirun";
};
sweep = {
	collectives = [ "bcast" ];
	assignments = [ "block" ];
	sizes = [ "4K" ];
	wpn = [ 1, 2 ];
	workers = [ 1, 2 ];
	placement = [ "onload" ];
	iterations = 5; warmup = 1;
	repetitions = 1;
	max_repetitions = 8;
};
CFG
{
	echo "nodes,ppn,layout,collective,algorithm,assignment,bytes,workers,wpn,placement,repetition,oe_measured,total_us,valid"
	r=0
	for v in 82 45 48 46 47 45 44 46; do
		r=$((r + 1))
		echo "1,4,n1-ppn4-w2-wpn2-onload,bcast,direct,block,4096,2,2,onload,$r,$v,100,1"
	done
	r=0
	for v in 50 50.2 49.8 50.1 49.9 50 50.3 49.7; do
		r=$((r + 1))
		echo "1,4,n1-ppn4-w1-wpn1-onload,bcast,direct,block,4096,1,1,onload,$r,$v,100,1"
	done
} >"$TMP/t.csv"

# verdict FILE: "verdict choice-layout leader-layout" of the one decision.
verdict() {
	sed -n 's/.*"decisions":\[{.*"verdict":"\([a-z]*\)","choice":{"layout":"\([^"]*\)".*"leader":{"layout":"\([^"]*\)".*/\1 \2 \3/p' "$1"
}

# One launch each (the budget): the 82 leads, but nothing is decided. Not
# yet shown worse is not shown as good: the choice is the leader (decide.h),
# and the verdict says that more launches would tell.
for s in adaptive grid; do
	exits_with 0 "$s, one launch each" sweetspot search "$TMP/s.cfg" --replay "$TMP/t.csv" \
		--strategy $s --budget 2 --json
	is "$(verdict "$TMP/out")" "undecided n1-ppn4-w2-wpn2-onload n1-ppn4-w2-wpn2-onload" \
		"$s: one launch each is undecided; the leader is the choice, and no more than that"
	cp "$TMP/out" "$TMP/one-$s.json"
done
like "$TMP/one-adaptive.json" '"p_value":1\.0' "one launch against one: p = 1"

# The adaptive search's default budget is 15% of the grid (here 2
# launches, raised to what three launches of the leader need): racing to
# max_repetitions takes a budget that allows it, 16 launches.
# Three launches each: 82, 45, 48 against a steady 50 is still undecided.
for s in adaptive grid; do
	exits_with 0 "$s, at most three launches each" sweetspot search "$TMP/s.cfg" \
		--replay "$TMP/t.csv" --strategy $s --max-repetitions 3 --budget 16 --json
	is "$(verdict "$TMP/out")" "undecided n1-ppn4-w1-wpn1-onload n1-ppn4-w1-wpn1-onload" \
		"$s: three launches each are undecided (3 vs 3 cannot reach p < 0.05)"
	like "$TMP/out" '"indifferent":\[\{"layout":"n1-ppn4-w1-wpn1-onload".*\{"layout":"n1-ppn4-w2-wpn2-onload"' \
		"$s: both layouts are in the indifference set"
done

# Eight launches each: the evidence decides, for the steady layout.
for s in adaptive grid; do
	exits_with 0 "$s, up to eight launches each" sweetspot search "$TMP/s.cfg" \
		--replay "$TMP/t.csv" --strategy $s --budget 16 --json
	is "$(verdict "$TMP/out")" "best n1-ppn4-w1-wpn1-onload n1-ppn4-w1-wpn1-onload" \
		"$s: best is the steady layout, by evidence"
	cp "$TMP/out" "$TMP/eight-$s.json"
done
p=$(sed -n 's/.*"p_value":\([0-9.e-]*\).*/\1/p' "$TMP/eight-adaptive.json")
ok "its p value is below alpha ($p)" awk -v p="$p" 'BEGIN { exit !(p < 0.05) }'

exits_with 0 "in words" sweetspot search "$TMP/s.cfg" --replay "$TMP/t.csv" --max-repetitions 3 \
	--budget 16
like "$TMP/out" '^bcast 4K: 1 worker \(1 WPN, onload\); undecided after 3 launches of the leader' \
	"people read that it is undecided"
exits_with 0 "in words, decided" sweetspot search "$TMP/s.cfg" --replay "$TMP/t.csv" --budget 16
like "$TMP/out" '^bcast 4K: 1 worker \(1 WPN, onload\); best: significantly better than every other \(p=' \
	"people read that it is best, with p"
exits_with 2 "an alpha out of range" sweetspot search "$TMP/s.cfg" --replay "$TMP/t.csv" \
	--alpha 0.7
done_testing
