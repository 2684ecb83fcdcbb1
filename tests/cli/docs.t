#!/bin/sh
# tests/cli/docs.t: the README stays a front door and the documents cannot
# point at what is not there. README.md is at most 250 lines; every relative
# link of README.md and docs/*.md names a file that exists, and a heading
# of it when the link has a #fragment; every `make TARGET` and `sweetspot
# COMMAND` they show as code (indented and fenced blocks, `...` spans) names
# a target of the Makefile and a command of `sweetspot --help`. The
# repository speaks of the project alone: no tracked file has a line that
# dates itself by a round of work (the session grep below), and README.md,
# docs/*.md and docs/upstream/* name no path of a machine (/work/, /root/,
# /home/, /tmp/measure...). A failure names the file, the line and what is
# missing or what matched.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot" ] || skip_all "sweetspot is not built"
README=$ROOT/README.md
MAX_LINES=250

# code FILE: "LINE<tab>TEXT" for the code of a markdown file: the lines of
# indented and fenced blocks whole, and the `...` spans of other lines.
code() {
	awk '
		/^(```|~~~)/ { fenced = !fenced; next }
		fenced || /^(    |\t)/ { print NR "\t" $0; next }
		{
			s = $0
			while (match(s, /`[^`]+`/)) {
				print NR "\t" substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$1"
}

# links FILE: "LINE<tab>TARGET" for each [text](target) outside code.
links() {
	awk '
		/^(```|~~~)/ { fenced = !fenced; next }
		fenced || /^(    |\t)/ { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\]\([^) ]+\)/)) {
				print NR "\t" substr(s, RSTART + 2, RLENGTH - 3)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$1"
}

# anchors FILE: the fragments of a markdown file's headings, as GitHub makes
# them: lower case, punctuation but '-' and '_' dropped, blanks to '-'.
anchors() {
	awk '/^(```|~~~)/ { fenced = !fenced; next } !fenced && /^#+ /' "$1" |
		sed 's/^#* *//' | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

plan 6

n=$(wc -l <"$README" | tr -d ' ')
ok "README.md has $n lines, at most $MAX_LINES" [ "$n" -le "$MAX_LINES" ]

# Every relative link resolves, and its fragment names a heading.
: >"$TMP/broken"
for f in "$README" "$ROOT"/docs/*.md; do
	[ -f "$f" ] || continue
	rel=${f#"$ROOT"/}
	links "$f" >"$TMP/links"
	while IFS='	' read -r line target; do
		case $target in
		*://* | mailto:*) continue ;;
		'#'*) path=$f ;;
		*) path=$(dirname "$f")/${target%%#*} ;;
		esac
		if [ ! -e "$path" ]; then
			echo "$rel:$line: $target: no such file" >>"$TMP/broken"
			continue
		fi
		case $target in
		*'#'*)
			frag=${target#*#}
			case $path in *.md) ;; *) continue ;; esac
			anchors "$path" | grep -qxF -- "$frag" ||
				echo "$rel:$line: $target: no heading #$frag in ${path#"$ROOT"/}" >>"$TMP/broken"
			;;
		esac
	done <"$TMP/links"
done
nlinks=$(for f in "$README" "$ROOT"/docs/*.md; do [ -f "$f" ] && links "$f"; done | wc -l | tr -d ' ')
ok "README.md and docs/*.md link somewhere ($nlinks links)" [ "$nlinks" -gt 0 ]
if [ -s "$TMP/broken" ]; then
	fail "every relative link names a file and heading that exist"
	sed 's/^/#   /' "$TMP/broken"
else
	pass "every relative link names a file and heading that exist"
fi

# The Makefile's targets, read from make's own data base (-q runs nothing).
make -C "$ROOT" -qp 2>/dev/null |
	awk '/^# Files/, /^# Finished Make data base/' |
	sed -n 's/^\([A-Za-z][A-Za-z0-9_.-]*\):.*/\1/p' | sort -u >"$TMP/targets"
commands=$(sweetspot --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
printf '%s\nhelp\n' "$commands" | sort -u >"$TMP/commands"

# make [VAR=value | -option]... TARGET...: the words up to a separator.
: >"$TMP/unknown"
: >"$TMP/code"
for f in "$README" "$ROOT"/docs/*.md; do
	[ -f "$f" ] && code "$f" | sed "s|^|${f#"$ROOT"/}:|" |
		grep '[	 /]make \|[	 /]sweetspot  *[a-z]' >>"$TMP/code"
done
while IFS='	' read -r at text; do
	printf '%s\n' "$text" | tr ';&|()' '\n\n\n\n\n' |
		sed -n 's/^.*\(^\|[ /]\)make\( .*\)$/\2/p' | while read -r words; do
		for w in $words; do
			case $w in
			'#'*) break ;;
			-* | *=*) continue ;;
			esac
			grep -qxF -- "$w" "$TMP/targets" ||
				echo "$at: make $w: no such target in the Makefile" >>"$TMP/unknown"
		done
	done
	printf '%s\n' "$text" | grep -o '\(^\|[ /]\)sweetspot  *[a-z][a-z-]*' |
		sed 's/.*sweetspot  *//' | while read -r cmd; do
		grep -qxF -- "$cmd" "$TMP/commands" ||
			echo "$at: sweetspot $cmd: no such command in sweetspot --help" >>"$TMP/unknown"
	done
done <"$TMP/code"
nmake=$(wc -l <"$TMP/code" | tr -d ' ')
if [ -s "$TMP/unknown" ] || [ "$nmake" -eq 0 ]; then
	fail "$nmake make/sweetspot lines of the docs name targets and commands that exist"
	sed 's/^/#   /' "$TMP/unknown"
else
	pass "$nmake make/sweetspot lines of the docs name targets and commands that exist"
fi
# No line of a tracked file dates itself by a round of work. The pattern is
# written so that this file does not match it.
DATED='session [0-9]|this[ ]session|other[ ]sessions'
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$ROOT" grep -InEi "$DATED" >"$TMP/dated" || :
else
	grep -rInEi --exclude-dir=.git --exclude-dir=build --exclude-dir=bin \
		--exclude-dir=results "$DATED" "$ROOT" | sed "s|^$ROOT/||" >"$TMP/dated" || :
fi
if [ -s "$TMP/dated" ]; then
	fail "no line of the repository dates itself by a round of work ($DATED)"
	sed 's/^/#   /' "$TMP/dated" | tap_diag_out
else
	pass "no line of the repository dates itself by a round of work"
fi

# The documents name no path of a machine: they describe the project, not
# where it was once run. Paths inside the repository and scratch files that
# a command makes for itself (mktemp) are what they may show.
MACHINE='/work/|/tmp/measure|/root/|/home/'
: >"$TMP/paths"
for f in "$README" "$ROOT"/docs/*.md "$ROOT"/docs/upstream/*; do
	[ -f "$f" ] || continue
	grep -nE "$MACHINE" "$f" | sed "s|^|${f#"$ROOT"/}:|" >>"$TMP/paths"
done
if [ -s "$TMP/paths" ]; then
	fail "README.md, docs/*.md and docs/upstream/* name no machine path ($MACHINE)"
	sed 's/^/#   /' "$TMP/paths" | tap_diag_out
else
	pass "README.md, docs/*.md and docs/upstream/* name no machine path"
fi
done_testing
