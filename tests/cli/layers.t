#!/bin/sh
# tests/cli/layers.t: the build refuses an include that runs against the
# layering of tuner/'s parts (tuner/module.mk, docs/HACKING.md): compiled
# with its part's include path (the Makefile's INC_tuner_PART), a file
# includes every header of its own part and of the parts below, and none of
# a part above. Each pair that goes wrong is named. And the commands stay
# on top and apart: no file outside tuner/cmd/ calls a cmd_ function (a
# command is never a library), and no header of tuner/cmd/ exports one
# command's internals (a function a cmd_X.c defines, other than cmd_X)
# to the others. Both checks are first shown to fail on a probe.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

cd "$ROOT" || exit 1
command -v cc >/dev/null || skip_all "no C compiler"
# Bottom to top; a part sees those before it (model, the pure model, sees
# plan's kernels/sched only, so it comes first and plan does not see it).
parts="model plan store decide engine calibrate export verify report cmd"
below() {	# the parts a part may include
	case $1 in
	model) echo "model" ;;
	plan) echo "plan" ;;
	store) echo "model plan store" ;;
	decide) echo "model plan store decide" ;;
	engine) echo "model plan store decide engine" ;;
	calibrate) echo "model plan store decide engine calibrate" ;;
	export) echo "model plan store decide engine export" ;;
	verify) echo "model plan store decide engine export verify" ;;
	report) echo "model plan store decide engine export report" ;;
	cmd) echo "model plan store decide engine calibrate export verify report cmd" ;;
	esac
}
plan 6

# The files among "$@" whose code (comments left out) calls a cmd_ function.
cmd_calls() {
	for f in "$@"; do
		cc -fpreprocessed -dD -E -P "$f" 2>/dev/null |
			grep -qE '(^|[^A-Za-z0-9_])cmd_[a-z0-9_]+[[:space:]]*\(' && printf ' %s' "$f"
	done
}

# Functions that a header of folder $1 (a cmd/ folder, include path $2)
# declares and that a command's file there, cmd_X.c, defines, but cmd_X:
# "HEADER:NAME(cmd_X.c)". gcc's -aux-info lists every declaration and
# definition a file sees, each with the file and line it comes from.
exported_internals() {
	: >"$TMP/aux.all"
	for c in "$1"/*.c; do
		# shellcheck disable=SC2086
		cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $2 -fsyntax-only \
			-aux-info "$TMP/aux" "$c" 2>/dev/null && cat "$TMP/aux" >>"$TMP/aux.all"
	done
	awk -v dir="$1/" '
	function fname(line) {	# the name before the parameter list
		sub(/^\/\* [^ ]* \*\/ /, "", line)
		sub(/ \(.*/, "", line)
		sub(/.*[ *]/, "", line)
		return line
	}
	{
		where = $2; sub(/:.*/, "", where)
		kind = $2; sub(/.*:/, "", kind)
		if (index(where, dir) != 1)
			next
		file = substr(where, length(dir) + 1)
		name = fname($0)
		if (file ~ /\.h$/ && kind ~ /C$/)
			decl[name] = file
		else if (file ~ /^cmd_[a-z0-9_]*\.c$/ && kind ~ /F$/)
			def[name] = file
	}
	END {
		for (n in decl)
			if ((n in def) && def[n] != n ".c")
				printf " %s:%s(%s)", decl[n], n, def[n]
	}' "$TMP/aux.all"
}
bad_ok= bad_refused=
for p in $parts; do
	inc=$(make -s "print-inc-tuner_$p")
	allowed=" $(below "$p") "
	for q in $parts; do
		for h in tuner/"$q"/*.h; do
			[ -e "$h" ] || continue
			# The header's own guard proves the one found is ours (a
			# quoted include falls back to the system's: <search.h>).
			guard=$(sed -n 's/^#ifndef \(SWEETSPOT_[A-Z0-9_]*\).*/\1/p' "$h" | head -1)
			printf '#include "%s"\n#ifndef %s\n#error not ours\n#endif\n' \
				"$(basename "$h")" "${guard:-NO_GUARD}" >"$TMP/probe.c"
			# shellcheck disable=SC2086
			if cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $inc -fsyntax-only \
				"$TMP/probe.c" 2>/dev/null; then
				case $allowed in *" $q "*) ;; *) bad_ok="$bad_ok $p->$h" ;; esac
			else
				case $allowed in *" $q "*) bad_refused="$bad_refused $p->$h" ;; esac
			fi
		done
	done
done
is "$bad_ok" "" "no part can include a header of a part above it"
is "$bad_refused" "" "every part can include its own headers and those of the parts below"

# The checks can fail: a probe that calls a command, and a probe cmd/ whose
# header hands cmd_submit.c's helper to cmd_verify.c.
printf '/* cmd_export(argc, argv) in a comment is no call */\nint f(void) { return cmd_export(0, 0); }\n' \
	>"$TMP/calls.c"
printf '/* cmd_export(0, 0) */\nint g(void) { return 0; }\n' >"$TMP/comment.c"
is "$(cmd_calls "$TMP/calls.c" "$TMP/comment.c")" " $TMP/calls.c" \
	"the check sees a call of a cmd_ function, and not one in a comment"
mkdir -p "$TMP/cmd"
printf '#ifndef P_H\n#define P_H\nint cmd_submit(int, char **);\nint cmd_verify(int, char **);\nchar *submit_join_hosts(void);\n#endif\n' \
	>"$TMP/cmd/cmds.h"
printf '#include "cmds.h"\nchar *submit_join_hosts(void) { return 0; }\nint cmd_submit(int c, char **v) { (void)c; (void)v; return 0; }\n' \
	>"$TMP/cmd/cmd_submit.c"
printf '#include "cmds.h"\nint cmd_verify(int c, char **v) { (void)c; (void)v; return !submit_join_hosts(); }\n' \
	>"$TMP/cmd/cmd_verify.c"
is "$(exported_internals "$TMP/cmd" "-I$TMP/cmd")" " cmds.h:submit_join_hosts(cmd_submit.c)" \
	"the check sees a command's helper exported by a cmd/ header"

# The tree: every C file of the product outside tuner/cmd/.
# shellcheck disable=SC2046
is "$(cmd_calls $(find tuner launch common kernels -name '*.[ch]' ! -path 'tuner/cmd/*' | sort))" "" \
	"no file outside tuner/cmd/ calls a cmd_ function"
is "$(exported_internals tuner/cmd "$(make -s print-inc-tuner_cmd)")" "" \
	"no header of tuner/cmd/ exports one command's internals"
done_testing
