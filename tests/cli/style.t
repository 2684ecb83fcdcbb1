#!/bin/sh
# tests/cli/style.t: the house style (STYLE.md) holds: every C file of the
# tree is as .clang-format lays it out (clang-format --dry-run --Werror,
# which names the file and line), and no function of the product (common/,
# launch/, kernels/, tuner/) runs over 100 lines. A failure names each
# offender.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v clang-format >/dev/null || skip_all "clang-format is not installed (tests/deps.sh installs it)"
plan 2
cd "$ROOT" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find common launch kernels tuner tests -name '*.[ch]')
# shellcheck disable=SC2086
if clang-format --dry-run --Werror $files >"$TMP/fmt" 2>&1; then
	pass "every C file is formatted as .clang-format says"
else
	fail "files not formatted as .clang-format says (clang-format -i FILE): $(grep -o '^[^:]*\.[ch]' "$TMP/fmt" | sort -u | tr '\n' ' ')"
	head -20 "$TMP/fmt" | sed 's/^/# /'
fi
# A function: from a line "{" at column 0 to the next "}" at column 0.
long=$(printf '%s\n' $files | grep -E '^(common|launch|kernels|tuner)/.*\.c$' | xargs awk '
	/^\{/ { start = FNR; name = prev }
	/^\}/ && start { if (FNR - start - 1 > 100) printf "%s:%d (%d lines) ", FILENAME, start, FNR - start - 1; start = 0 }
	$0 !~ /^[ \t{]/ && $0 != "" { prev = $0 }')
is "$long" "" "no function of the product runs over 100 lines"
done_testing
