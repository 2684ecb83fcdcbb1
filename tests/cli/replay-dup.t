#!/bin/sh
# tests/cli/replay-dup.t: a replay table with two rows of one layout, point
# and repetition is bad input: `sweetspot search --replay` names both lines
# (file:line) and exits 2; the same table without the second row replays.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

SPEC=$ROOT/tests/data/landscape.cfg
CSV=$ROOT/tests/data/landscape.csv
plan 4

# The shipped table, then its first data row once more at the end.
first=$(grep -v '^#' "$CSV" | sed -n 2p)
cp "$CSV" "$TMP/dup.csv"
printf '%s\n' "$first" >>"$TMP/dup.csv"
line1=$(grep -nxF -- "$first" "$CSV" | head -1 | cut -d: -f1)
line2=$(wc -l <"$TMP/dup.csv" | tr -d ' ')

exits_with 2 "a duplicate row is bad input" sweetspot search "$SPEC" --replay "$TMP/dup.csv" --strategy grid
like "$TMP/err" "dup.csv:$line2: duplicate row: .* as .*dup.csv:$line1\$" "both lines named, file:line"
is "$(cat "$TMP/out")" "" "nothing measured, nothing printed"
exits_with 0 "the table without it replays" sweetspot search "$SPEC" --replay "$CSV" --strategy grid
done_testing
