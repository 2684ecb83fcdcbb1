# tests/lib/svg-fits.awk: checks a figure gnuplot wrote as SVG. Every text
# lies inside the view box (its extent estimated at half an em a
# character, less than any sans font takes, so what it flags is really
# out), so does every line drawn (the key's samples too), and the plot
# areas (the closed borders gnuplot draws, their union across panels) span
# at least 60% of the width. Prints what is wrong and exits 1; usage:
# awk -f svg-fits.awk FILE.svg
function fail(msg) { print FILENAME ": " msg; bad = 1 }
/viewBox=/ {
	match($0, /viewBox="[^"]*"/)
	split(substr($0, RSTART + 9, RLENGTH - 10), vb, " ")
	W = vb[3] + 0; H = vb[4] + 0
}
/<defs>/ { indefs = 1 }
/<\/defs>/ { indefs = 0 }
# Every absolute point of a path outside the markers' definitions (a
# path's points may go on over several lines: joined first).
!indefs && /d='M/ {
	while ($0 ~ /d='M[^']*$/ && (getline more) > 0)
		$0 = $0 " " more
	rest = $0
	while (match(rest, /d='M[^']*'/)) {
		s = substr(rest, RSTART + 3, RLENGTH - 4); rest = substr(rest, RSTART + RLENGTH)
		gsub(/[MLZ]/, " ", s); gsub(/^[ \t]+|[ \t]+$/, "", s)
		n = split(s, pt, /[ \t,]+/)
		for (i = 1; i + 1 <= n; i += 2) {
			if (pt[i] + 0 < -1 || pt[i] + 0 > W + 1 || pt[i + 1] + 0 < -1 || pt[i + 1] + 0 > H + 1) {
				fail(sprintf("a line at %s,%s leaves the %gx%g view box", pt[i], pt[i + 1], W, H))
				break
			}
		}
	}
}
# A border: M x0,y0 L x0,y1 L x1,y1 L x1,y0 L x0,y0 Z
/d='M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ Z/ {
	match($0, /d='M[^']*Z/)
	s = substr($0, RSTART + 3, RLENGTH - 4); gsub(/[ML]/, "", s)
	n = split(s, pt, /[ ,]+/)
	if (n >= 10 && pt[1] == pt[3] && pt[1] == pt[9] && pt[5] == pt[7] && pt[5] != pt[1])
		{ nb++; bx0[nb] = pt[1] < pt[5] ? pt[1] + 0 : pt[5] + 0; bx1[nb] = pt[1] < pt[5] ? pt[5] + 0 : pt[1] + 0 }
}
/<g transform="translate\(/ {
	match($0, /translate\([-0-9.]+,[-0-9.]+\)/)
	split(substr($0, RSTART + 10, RLENGTH - 11), xy, ",")
	tx = xy[1] + 0; ty = xy[2] + 0
	rot = $0 ~ /rotate\((90|270|-90)\)/
	fs = 10; if (match($0, /font-size="[0-9.]+"/)) fs = substr($0, RSTART + 11, RLENGTH - 12) + 0
	anchor = "start"; if (match($0, /text-anchor="[a-z]+"/)) anchor = substr($0, RSTART + 13, RLENGTH - 14)
	intext = 1; next
}
intext && /<text>/ {
	t = $0; gsub(/<[^>]*>/, "", t); gsub(/&[a-z]+;/, "x", t); sub(/^[ \t]+/, "", t)
	len = length(t) * fs * 0.5
	lo = anchor == "start" ? 0 : anchor == "middle" ? -len / 2 : -len
	hi = lo + len
	if (rot) { a = ty + lo; b = ty + hi; c = tx; d = tx }
	else { a = tx + lo; b = tx + hi; c = ty; d = ty }
	# a..b along the text, c..d across it (its baseline)
	if (!rot && (a < -1 || b > W + 1) || rot && (a < -1 || b > H + 1) || c < 0 || c > (rot ? W : H))
		fail(sprintf("text \"%s\" at %.0f,%.0f leaves the %gx%g view box", t, tx, ty, W, H))
	ntext++
}
/<\/g>/ { intext = 0 }
END {
	if (!W) { fail("no viewBox"); exit 1 }
	# The union of the plot areas' x extents.
	m = nb
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (bx0[j] < bx0[i]) {
		t = bx0[i]; bx0[i] = bx0[j]; bx0[j] = t; t = bx1[i]; bx1[i] = bx1[j]; bx1[j] = t }
	covered = 0; end = -1
	for (i = 1; i <= m; i++) {
		if (bx0[i] > end) { covered += bx1[i] - bx0[i]; end = bx1[i] }
		else if (bx1[i] > end) { covered += bx1[i] - end; end = bx1[i] }
	}
	if (!m) fail("no plot area")
	else if (covered < 0.6 * W) fail(sprintf("plot area %.0f of %g px (%.0f%%): under 60%% of the width", covered, W, 100 * covered / W))
	if (!ntext) fail("no text")
	exit bad
}
