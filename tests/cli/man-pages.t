#!/bin/sh
# tests/cli/man-pages.t: the man pages lint clean (mandoc -Tlint -Wwarning)
# and cannot fall behind the programs: every long option that a command's
# --help lists is in that command's section of sweetspot(1), every option
# of `sweetspot-kernel --help` is in sweetspot-kernel(1), and every key of
# tuner/plan/spec.c's tables is in sweetspot.cfg(5). A failure names the option,
# the page and the section it is missing from.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mandoc >/dev/null || skip_all "mandoc is not installed"
MAN1=$ROOT/tuner/sweetspot.1
MANK=$ROOT/kernels/sweetspot-kernel.1
MAN5=$ROOT/tuner/sweetspot.cfg.5

for page in "$MAN1" "$MANK" "$MAN5"; do
	exits_with 0 "$(basename "$page") lints clean" mandoc -Tlint -Wwarning "$page"
	[ -s "$TMP/out" ] && sed 's/^/#   /' "$TMP/out"
done

# options HELPFILE: the long options of the option lines of a --help text
# (an option line starts with a little indent, then "-x, --name" or
# "--name"; prose that mentions another program's option does not count).
options() {
	sed -n 's/^ \{1,8\}\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' "$1" | sort -u
}

# The rendered sweetspot(1), each line tagged with the command whose
# section (".Ss sweetspot NAME") holds it.
mandoc -Tascii "$MAN1" | col -b | awk '
	/^   sweetspot [a-z-]+$/ { cmd = $2; next }
	/^[A-Z]/ { cmd = "" }
	{ print cmd "\t" $0 }' >"$TMP/man1.txt"

# has_option SECTION OPTION FILE: the section holds the option, whole.
has_option() {
	awk -F'\t' -v c="$1" '$1 == c' "$3" | grep -Eq -- "$2([^a-z0-9-]|\$)"
}

commands=$(sweetspot --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] && pass "sweetspot --help lists the commands" ||
	fail "sweetspot --help lists the commands"
for c in $commands; do
	sweetspot "$c" --help >"$TMP/help" 2>&1
	missing=
	for o in $(options "$TMP/help"); do
		[ "$o" = --help ] && continue	# documented once, for every command
		has_option "$c" "$o" "$TMP/man1.txt" || missing="$missing $o"
	done
	if [ -z "$missing" ] && grep -q "^$c	" "$TMP/man1.txt"; then
		pass "sweetspot(1) documents 'sweetspot $c' and its options"
	else
		fail "sweetspot(1) documents 'sweetspot $c' and its options"
		grep -q "^$c	" "$TMP/man1.txt" ||
			diag "tuner/sweetspot.1 has no section '.Ss sweetspot $c'"
		for o in $missing; do
			diag "tuner/sweetspot.1, section 'sweetspot $c': missing $o (listed by 'sweetspot $c --help')"
		done
	fi
done

sweetspot-kernel --help >"$TMP/khelp" 2>&1
mandoc -Tascii "$MANK" | col -b | awk '{ print "k\t" $0 }' >"$TMP/mank.txt"
missing=
n=0
for o in $(options "$TMP/khelp"); do
	n=$((n + 1))
	has_option k "$o" "$TMP/mank.txt" || missing="$missing $o"
done
if [ "$n" -gt 10 ] && [ -z "$missing" ]; then
	pass "sweetspot-kernel(1) documents all $n options of sweetspot-kernel --help"
else
	fail "sweetspot-kernel(1) documents every option of sweetspot-kernel --help"
	for o in $missing; do
		diag "kernels/sweetspot-kernel.1: missing $o (listed by 'sweetspot-kernel --help')"
	done
fi

# And the other way: every option sweetspot-kernel(1) describes is one
# --help lists (an option renamed in the table cannot linger in the page).
stale=
for o in $(sed -n 's/^\.It Fl [A-Za-z] , Fl \\-\([a-z][a-z0-9-]*\).*/--\1/p; s/^\.It Fl \\-\([a-z][a-z0-9-]*\).*/--\1/p' "$MANK" | sort -u); do
	grep -Eq -- "^ {1,8}(-[A-Za-z0-9], )?$o( |\$)" "$TMP/khelp" || stale="$stale $o"
done
if [ -z "$stale" ]; then
	pass "every option of sweetspot-kernel(1) is one of sweetspot-kernel --help"
else
	fail "every option of sweetspot-kernel(1) is one of sweetspot-kernel --help"
	for o in $stale; do
		diag "kernels/sweetspot-kernel.1 describes $o, which sweetspot-kernel --help does not list"
	done
fi

# Every key that tuner/plan/spec.c accepts, as ".It Ic KEY" in sweetspot.cfg(5).
keys=$(awk '/_keys\[\] = \{/ { on = 1 } on { print } on && /};/ { on = 0 }' "$ROOT/tuner/plan/spec.c" |
	grep -o '"[a-z_]*"' | tr -d '"' | sort -u)
missing=
n=0
for k in $keys; do
	n=$((n + 1))
	grep -q "^\.It Ic $k\( \|$\)" "$MAN5" || grep -q "^\.Ic $k\( \|,\|$\)" "$MAN5" ||
		missing="$missing $k"
done
if [ "$n" -gt 25 ] && [ -z "$missing" ]; then
	pass "sweetspot.cfg(5) documents all $n keys of tuner/plan/spec.c"
else
	fail "sweetspot.cfg(5) documents every key of tuner/plan/spec.c ($n found)"
	for k in $missing; do diag "tuner/sweetspot.cfg.5: missing key '$k' (.It Ic $k)"; done
fi

# The check itself catches a missing option: results' --all renamed away.
sed 's/Fl \\-all/Fl \\-everything/' "$MAN1" | mandoc -Tascii | col -b | awk '
	/^   sweetspot [a-z-]+$/ { cmd = $2; next }
	/^[A-Z]/ { cmd = "" }
	{ print cmd "\t" $0 }' >"$TMP/bad.txt"
if has_option results --all "$TMP/bad.txt"; then
	fail "the check sees an option taken out (results --all)"
else
	pass "the check sees an option taken out (results --all)"
fi

plan "$tap_n"
done_testing
