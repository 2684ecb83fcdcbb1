#!/bin/sh
# tests/cli/fuzz-regress.t: every fuzz target (tests/fuzz/) runs once over
# its seed corpus and over every crash ever found (tests/fuzz/crashes/<name>/),
# so a parser bug once fixed stays fixed. The targets are built by `make
# check` (or `make fuzz-build`); libFuzzer runs each file given once.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

FUZZERS="spec hostlist record replay kopts"
# Leaks inside third-party libraries are not ours (the file says which).
LSAN_OPTIONS=suppressions=$ROOT/tests/fuzz/lsan.supp
export LSAN_OPTIONS
# LeakSanitizer matches the suppressions by function name, which it learns
# from llvm-symbolizer; without it every frame is a bare address and the
# known leaks are reported as new.
plan 6
if command -v llvm-symbolizer >/dev/null 2>&1; then
	pass "llvm-symbolizer is installed"
else
	fail "llvm-symbolizer is not installed (sh tests/deps.sh): tests/fuzz/lsan.supp matches nothing without it"
fi
for f in $FUZZERS; do
	bin=$ROOT/build/fuzz/$f
	if [ ! -x "$bin" ]; then
		fail "$f: $bin is not built (make fuzz-build)"
		continue
	fi
	set -- $(find "$ROOT/tests/fuzz/corpus/$f" "$ROOT/tests/fuzz/crashes/$f" -type f \
		! -name README 2>/dev/null | sort)
	# No file at all would make libFuzzer fuzz for ever.
	if [ $# -eq 0 ]; then
		fail "$f: no corpus in tests/fuzz/corpus/$f"
		continue
	fi
	if "$bin" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 "$@" >"$TMP/$f.log" 2>&1; then
		pass "$f: $# inputs, no crash"
	else
		fail "$f: a crash or sanitizer report"
		grep -E 'ERROR|SUMMARY|Running:|runtime error' "$TMP/$f.log" | tail -20 | sed 's/^/#   /'
	fi
done
done_testing
