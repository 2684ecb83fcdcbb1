#!/bin/sh
# tests/cli/layers.t: the build refuses an include that runs against the
# layering of tuner/'s parts (tuner/module.mk, docs/HACKING.md): compiled
# with its part's include path (the Makefile's INC_tuner_PART), a file
# includes every header of its own part and of the parts below, and none of
# a part above. Each pair that goes wrong is named.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

cd "$ROOT" || exit 1
command -v cc >/dev/null || skip_all "no C compiler"
# Bottom to top; a part sees those before it (model, the pure model, sees
# plan's kernels/sched only, so it comes first and plan does not see it).
parts="model plan store decide engine calibrate export cmd"
below() {	# the parts a part may include
	case $1 in
	model) echo "model" ;;
	plan) echo "plan" ;;
	store) echo "model plan store" ;;
	decide) echo "model plan store decide" ;;
	engine) echo "model plan store decide engine" ;;
	calibrate) echo "model plan store decide engine calibrate" ;;
	export) echo "model plan store decide engine export" ;;
	cmd) echo "model plan store decide engine calibrate export cmd" ;;
	esac
}
plan 2
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
done_testing
