#!/bin/sh
# tests/cli/wait.t: wait_until (tests/lib/wait.sh), the testbeds' waits:
# bounded by the clock, not by a count of polls, so polls that each take
# seconds end it at its deadline; a condition that comes true ends it at
# once, with status 0. The clock is the test's own (wait_now_ms replaced by
# a counter each poll advances by 1.5 s), so nothing here depends on how
# fast the machine is.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
plan 4

clock=$TMP/clock
polls=$TMP/polls
wait_now_ms() { cat "$clock"; }
# A condition whose poll costs 1.5 s of the clock and comes true at its third.
slow_third() {
	echo x >>"$polls"
	echo $(($(cat "$clock") + 1500)) >"$clock"
	[ "$(wc -l <"$polls")" -ge 3 ]
}
# A count of polls would wait as long as the polls take (20 polls of a 2 s
# wait: 30 s); a 2 s deadline stops after the poll that overran it: the second.
echo 0 >"$clock"
: >"$polls"
never() { slow_third && false; }
wait_until 2 never
is "$?" 1 "a deadline passed: status 1"
is "$(wc -l <"$polls" | tr -d ' ')" 2 "... after the poll that passed it (2 polls of 1.5 s)"

echo 0 >"$clock"
: >"$polls"
wait_until 600 slow_third
is "$?" 0 "a condition that comes true: status 0"
is "$(wc -l <"$polls" | tr -d ' ')" 3 "... polled until then, not to the deadline"
done_testing
