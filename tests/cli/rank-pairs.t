#!/bin/sh
# tests/cli/rank-pairs.t: tests/bench/baseline-rank.sh's helper, two
# measures' rankings of algorithms pair by pair (verify's statistics, Holm
# over the pairs of a size). Launch figures made here, so the verdicts are
# known: both measures one way (agree), opposite ways (disagree), one
# significant and the other's CI tight around 1 (disagree) or wide
# (agree), neither significant (undecided by both); bad input.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

P="$SWEETSPOT_ROOT/build/tests/rank-pairs"
[ -x "$P" ] || P="$(dirname "$0")/../../build/tests/rank-pairs"
plan 16
# gen MEASURE BYTES ALG BASE STEP: 7 launches, BASE * (1 + STEP * i).
gen() {
	awk -v m="$1" -v b="$2" -v a="$3" -v v="$4" -v s="$5" \
		'BEGIN { for (i = 0; i < 7; i++) printf "%s %s %s %.6f\n", m, b, a, v * (1 + s * i) }'
}
# pair FILE X1 X2 Y1 Y2: algorithms 1 and 2 at 4096 bytes, each "BASE STEP".
pair() {
	f=$1; shift
	{ gen x 4096 1 $1; gen x 4096 2 $2; gen y 4096 1 $3; gen y 4096 2 $4; } >"$TMP/$f"
}
pair same "10 0.01" "20 0.01" "10 0.02" "30 0.02"
pair opposite "10 0.01" "20 0.01" "10 0.01" "5 0.01"
pair tight "10 0.01" "20 0.01" "10 0.001" "10.002 0.001"
pair wide "10 0.01" "20 0.01" "10 0.3" "10.5 0.3"
pair noise "10 0.3" "10.5 0.3" "10 0.3" "9.8 0.3"

exits_with 0 "both measures rank alike" "$P" x y "$TMP/same"
like "$TMP/out" '^ +4096 +1 +2 +A faster +2\.0.* A faster +3\.0.* agree$' "A faster by both: agree"
like "$TMP/out" '^pairs: 1 agree, 0 disagree, 0 undecided by both' "the counts"
exits_with 0 "opposite rankings" "$P" x y "$TMP/opposite"
like "$TMP/out" 'A faster .* B faster +0\.50.* DISAGREE$' "opposite significant verdicts disagree"
exits_with 0 "one significant, the other tight at 1" "$P" x y "$TMP/tight"
like "$TMP/out" 'A faster .* (same|undecided) +1\.00.* DISAGREE$' "the other's CI excludes a slower B: disagree"
exits_with 0 "one significant, the other wide" "$P" x y "$TMP/wide"
like "$TMP/out" 'A faster .* undecided .* agree$' "the other's CI reaches a slower B: agree"
exits_with 0 "noise on both sides" "$P" x y "$TMP/noise"
like "$TMP/out" '^pairs: 0 agree, 0 disagree, 1 undecided by both' "neither significant: undecided by both"

# Holm over the pairs of a size: a third algorithm adds two more pairs.
{ cat "$TMP/same"; gen x 4096 3 10 0.01; gen y 4096 3 10 0.02; } >"$TMP/three"
"$P" x y "$TMP/three" >"$TMP/out3" 2>&1
like "$TMP/out3" '^pairs: 2 agree, 0 disagree, 1 undecided by both' "three algorithms: three pairs, Holm over them"

printf 'x 4096 1 10\nx 4096 1 ten\n' >"$TMP/bad"
exits_with 2 "a value that is not a number" "$P" x y "$TMP/bad"
like "$TMP/err" "$TMP/bad:2: expected 'MEASURE BYTES ALG VALUE'" "file:line"
printf 'x 4096 1 10\nz 4096 1 10\n' >"$TMP/bad"
exits_with 2 "a measure of another name" "$P" x y "$TMP/bad"
{ gen x 4096 1 "10 0.01"; gen x 4096 2 "20 0.01"; gen y 4096 1 "10 0.01"; echo "y 4096 2 20"; } >"$TMP/few"
exits_with 1 "one launch of an algorithm: no statistics" "$P" x y "$TMP/few"
done_testing
