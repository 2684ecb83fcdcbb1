# tests/lib/figures.sh: checks of the figures `sweetspot plot` draws, for
# the sh tests (source it after tap.sh).
#
# figures_fit DIR: every SVG in DIR passes tests/lib/svg-fits.awk (text
# and lines inside the view box, plots over 60% of the width), and every
# title the script DIR/figures.gp gives that figure's lines is drawn in
# it: gnuplot drops key entries that do not fit rather than clip them.
# Says what is wrong and returns 1.
figures_fit() {
	for svg in "$1"/*.svg; do
		awk -f "$ROOT/tests/lib/svg-fits.awk" "$svg" || return 1
		awk -v out="set output '$(basename "$svg")'" '
			$0 == out { on = 1 }
			on && /^unset multiplot/ { exit }
			on { while (match($0, /title \047[^\047]*\047/)) {
				print substr($0, RSTART + 7, RLENGTH - 8); $0 = substr($0, RSTART + RLENGTH) } }' \
			"$1/figures.gp" | sort -u >"$TMP/titles"
		[ -s "$TMP/titles" ] || { echo "$svg: no titled line in figures.gp"; return 1; }
		while IFS= read -r t; do
			# As text, not only as the line's <title> (which gnuplot keeps).
			grep -qF ">$t</text>" "$svg" || grep -qF ">$t</tspan></text>" "$svg" ||
				{ echo "$svg: the key entry '$t' is not drawn"; return 1; }
		done <"$TMP/titles"
	done
}
