#!/bin/sh
# tests/cli/report.t: `sweetspot report` writes one static page of a real
# run (a small sweep with mpirun on this machine): the recommendation
# table, the figures (the runtimes as one panel per size), the exports and
# every launch's log, with no script and nothing from elsewhere. The page
# is opened from the file system in a real headless Chromium: every image
# loads, the table has a row per decision (counted from `sweetspot results`,
# not from the page), the console stays empty; a screenshot is kept with
# the test's output. Checks that can fail are shown failing on a broken
# copy of the page.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/lib/figures.sh"

command -v gnuplot >/dev/null || skip_all "gnuplot is not installed (tests/deps.sh)"
command -v chromium >/dev/null || skip_all "chromium is not installed (tests/deps.sh)"
[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
plan 37
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/report-local.cfg
OUT=${SWEETSPOT_TEST_OUTPUT:-$ROOT/build/test-output}

exits_with 0 "a real sweep" sweetspot run "$SPEC" --db "$TMP/r.db"
exits_with 0 "the report" sweetspot report --db "$TMP/r.db" -o "$TMP/rep" "$SPEC"
like "$TMP/out" "^report: $TMP/rep/index.html$" "it prints the page's path"
R=$TMP/rep
ok "a page" test -s "$R/index.html"
ok "no script, nothing from elsewhere" sh -c "! grep -Eiq '<script|https?://|<link|@import' '$R/index.html'"

# What it holds, as files.
ok "the paper's figure" test -s "$R/figures/paper-bcast-direct.png"
ok "every figure fits, every key entry drawn" figures_fit "$R/figures"
# The runtimes: one panel per size, so that the bands do not overlap.
panels=$(awk "/set output 'runtime-bcast-direct-block.png'/ { on = 1 } on && /^set title/ { print } on && /^unset multiplot/ { exit }" "$R/figures/figures.gp")
is "$(echo "$panels" | tr '\n' ' ')" 'set title "4K" set title "64K" set title "1M" ' "the runtimes: a panel per size"
ok "the profile exported" test -s "$R/export/sweetspot.profile"
ok "env exported" test -s "$R/export/sweetspot.env"
ok "the MPMD files of the recommended layout" test -s "$R/export/mpmd/commands"
is "$(ls "$R/logs" | wc -l | tr -d ' ')" 4 "a copy of every launch's log"
like "$R/index.html" "<a href=\"logs/launch-[0-9]+.log\">log</a>" "linked from the page"
like "$R/index.html" "<a href=\"export/sweetspot.profile\">" "the exports linked"
like "$R/index.html" "No baseline was measured" "no baseline: it says how to measure one"
like "$R/index.html" "<code>mpirun .*--app " "the exact command"

# Decisions: one per collective and size measured (counted from results).
want=$(sweetspot results --db "$TMP/r.db" --csv | awk -F, 'NR > 1 && $13 == 1 { d[$2 " " $5] = 1 } END { print length(d) }')
is "$want" 6 "the run holds 6 decisions (2 collectives x 3 sizes)"

# The page in Chromium, from the file system. check.html is the page with
# a script added at the end that waits for the load and writes what it
# found into the DOM, which --dump-dom prints.
chrome() {
	dir=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$dir" --enable-logging=stderr --v=0 --hide-scrollbars "$@"
}
cat >"$TMP/check.js" <<'JS'
addEventListener("error", function () { window.errs = (window.errs || 0) + 1; }, true);
addEventListener("load", function () {
	var n = 0, im = document.images;
	for (var i = 0; i < im.length; i++)
		if (!im[i].complete || !im[i].naturalWidth)
			n++;
	document.body.setAttribute("data-check", "images=" + im.length + " broken=" + n +
		" errors=" + (window.errs || 0) +
		" rows=" + document.querySelectorAll("#decisions tbody tr").length +
		" logs=" + document.querySelectorAll("a[href^='logs/']").length);
});
JS
# checked PAGE COPY: the page with check.js first in its head.
checked() {
	awk -v js="$TMP/check.js" '{ print } /^<head>$/ { print "<script>"; while ((getline l <js) > 0) print l; print "</script>" }' "$1" >"$2"
}
checked "$R/index.html" "$R/check.html"
chrome --dump-dom "file://$R/check.html" >"$TMP/dom" 2>"$TMP/chrome.err"
nimg=$(grep -c '<img ' "$R/index.html")
ok "the page has figures" test "$nimg" -gt 4
like "$TMP/dom" "data-check=\"images=$nimg broken=0 errors=0 rows=$want logs=4\"" \
	"Chromium: every image loaded, no load error, a row per decision, every log linked"
# The page itself (no script added): nothing on the console at all (the
# page runs no script, so anything there is the browser's complaint).
chrome --dump-dom "file://$R/index.html" >/dev/null 2>"$TMP/chrome.err"
ok "the console stays empty" sh -c "! grep -q ':CONSOLE' '$TMP/chrome.err'"
mkdir -p "$OUT"
chrome --window-size=1400,2600 --screenshot="$OUT/report-page.png" "file://$R/index.html" >/dev/null 2>&1
ok "a screenshot kept with the test's output" test -s "$OUT/report-page.png"
diag "screenshot: $OUT/report-page.png"

# The checks fail where they should: an image gone, a row gone, a console error.
cp -r "$R" "$TMP/broken"
rm "$TMP/broken/figures/paper-bcast-direct.png"
sed '0,/<tr><td>bcast/s//<tr class="gone"><td>bcast/' "$R/index.html" |
	awk '/<tr class="gone">/ { next } { print }' >"$TMP/broken/index.html"
checked "$TMP/broken/index.html" "$TMP/broken/check.html"
chrome --dump-dom "file://$TMP/broken/check.html" >"$TMP/dom2" 2>/dev/null
like "$TMP/dom2" "data-check=\"images=$nimg broken=1 errors=1 rows=$((want - 1)) " "a missing image and row are seen"
printf '<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>\n' >"$TMP/console.html"
chrome --dump-dom "file://$TMP/console.html" >/dev/null 2>"$TMP/chrome2.err"
like "$TMP/chrome2.err" ':CONSOLE.*"boom"' "a console message is seen"

# With Open MPI's baseline (two of its algorithms): its table, the rules.
exits_with 0 "a real baseline" sweetspot baseline "$SPEC" --algorithms 0,1 --db "$TMP/r.db"
exits_with 0 "the report again" sweetspot report --db "$TMP/r.db" -o "$TMP/rep" "$SPEC"
like "$R/index.html" "<p>Run 2: the fastest coll/tuned algorithm" "the baseline run's table"
is "$(sed -n '/<table id="baseline-table">/,/<\/table>/p' "$R/index.html" | grep -c '^<tr><td>')" 6 \
	"a row per collective and size (2 x 3)"
ok "the Open MPI rules exported" test -s "$R/export/ompi-rules.conf"
like "$R/export/mca-params.conf" "ompi-rules.conf" "mca-params loads them"
like "$R/index.html" "<a href=\"export/ompi-rules.conf\">" "linked"
checked "$R/index.html" "$R/check.html"
chrome --dump-dom "file://$R/check.html" >"$TMP/dom" 2>/dev/null
like "$TMP/dom" "data-check=\"images=$nimg broken=0 errors=0 rows=$want logs=4\"" "Chromium again: the same images, rows and logs"

# Bad input: exit 2, nothing written.
exits_with 2 "no -o" sweetspot report --db "$TMP/r.db"
exits_with 2 "no database" sweetspot report --db "$TMP/none.db" -o "$TMP/rep2"
ok "nothing written" test ! -e "$TMP/rep2"
exits_with 2 "a run that does not exist" sweetspot report --db "$TMP/r.db" --run 9 -o "$TMP/rep3"
exits_with 2 "a bad spec" sweetspot report --db "$TMP/r.db" -o "$TMP/rep4" "$TMP/none.cfg"
ok "nothing written" test ! -e "$TMP/rep3" -a ! -e "$TMP/rep4"
done_testing
