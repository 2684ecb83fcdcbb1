#!/bin/sh
# tests/cli/plot-figures.t: `sweetspot plot` draws the paper's figures with
# gnuplot: from the shipped landscape (OE against workers, one line per
# size) and from a real run (runtimes too), as real PNG and SVG files with
# their data and script; a failure leaves the folder as it was.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v gnuplot >/dev/null || skip_all "gnuplot is not installed"
plan 14
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# is_png FILE: the PNG signature and a size gnuplot would not make empty.
is_png() { [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(wc -c <"$1")" -gt 5000 ]; }

exits_with 0 "figures from the landscape" sweetspot plot --csv "$ROOT/tests/data/landscape.csv" -o "$TMP/fig"
like "$TMP/err" "8 figures" "one OE figure per collective, algorithm and assignment"
ok "a real PNG" is_png "$TMP/fig/oe-bcast-direct-block.png"
like "$TMP/fig/oe-bcast-direct-block.svg" "<svg" "an SVG"
like "$TMP/fig/figures.gp" "^set terminal pngcairo" "the script beside it"
# The data: at 8 workers (1 WPN) block bcast is near its best, at 1 far below.
like "$TMP/fig/oe-bcast-direct-block.dat" "^8 9[0-9.]+ 9[0-9.]+ 9[0-9.]+$" "the data: the knee at 8 workers"
like "$TMP/fig/oe-bcast-direct-block.dat" "^1 1[0-9.]+ 1[0-9.]+ 1[0-9.]+$" "and a single worker far below"
ok "nothing left behind" sh -c "! ls -a '$TMP/fig' | grep -q '^\.plot'"

if [ -x "$BIN/sweetspot-kernel" ] && command -v mpirun >/dev/null; then
	sweetspot run "$ROOT/tests/data/search-local.cfg" --db "$TMP/s.db" >/dev/null 2>&1
	exits_with 0 "figures from a real run" sweetspot plot --db "$TMP/s.db" -o "$TMP/fig2"
	ok "a runtime figure too" is_png "$TMP/fig2/runtime-bcast-direct-block.png"
	like "$TMP/fig2/runtime-bcast-direct-block.dat" "^# workers ref_us@4K comm_us@4K$" "reference and offloaded times"
else
	skip "sweetspot-kernel is not built"; skip "no run"; skip "no run"
fi

# gnuplot failing (a stand-in that exits 1) leaves no figure behind.
mkdir "$TMP/fake"
printf '#!/bin/sh\necho "no way" >&2\nexit 1\n' >"$TMP/fake/gnuplot"
chmod +x "$TMP/fake/gnuplot"
PATH=$TMP/fake:$PATH exits_with 1 "gnuplot fails" sweetspot plot --csv "$ROOT/tests/data/landscape.csv" -o "$TMP/fig3"
like "$TMP/err" "gnuplot: no way" "its message is shown"
ok "and the folder holds nothing" sh -c "[ -z \"\$(ls -A '$TMP/fig3')\" ]"
done_testing
