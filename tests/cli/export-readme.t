#!/bin/sh
# tests/cli/export-readme.t: the export examples of docs/decisions.md (the
# README's once) work as printed.
# A sweep and an Open MPI baseline of a small local spec go into the
# default database of a scratch folder; then every `sweetspot export` line
# of that export block runs there as written (SPEC replaced by the
# spec, the comment dropped) and must succeed and write what it names.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/baseline-local.cfg
# The block after "`sweetspot export` writes the decisions:".
sed -n '/`sweetspot export` writes the$/,/^- \*\*ompi-rules\*\*/p' "$ROOT/docs/decisions.md" |
	sed -n 's/^    \(sweetspot export .*\)/\1/p' | sed 's/ *#.*//' >"$TMP/examples"
n=$(wc -l <"$TMP/examples" | tr -d ' ')
plan $((n * 2 + 3))
ok "docs/decisions.md has export examples ($n)" [ "$n" -ge 6 ]
cd "$TMP" || exit 1
exits_with 0 "a sweep into results/" sweetspot run "$SPEC"
exits_with 0 "a baseline beside it" sweetspot baseline "$SPEC" --algorithms 2,6
while IFS= read -r line; do
	# shellcheck disable=SC2086
	set -- $(echo "$line" | sed "s|SPEC|$SPEC|g")
	exits_with 0 "as printed: $line" "$@"
	out=$(echo "$line" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
	if [ -n "$out" ]; then ok "... wrote $out" test -s "$out" -o -d "$out"
	else ok "... printed it" test -s "$TMP/out"; fi
done <"$TMP/examples"
done_testing
