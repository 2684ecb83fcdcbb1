#!/bin/sh
# tests/cli/wait.t: wait_until (tests/lib/wait.sh), the testbeds' waits:
# bounded by the clock, not by a count of polls, so polls that each take
# seconds end it at its deadline; a condition that comes true ends it at
# once, with status 0.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
plan 4

# A condition that costs 1.5 s a poll and comes true at its third.
polls=$TMP/polls
slow_third() {
	echo x >>"$polls"
	sleep 1.5
	[ "$(wc -l <"$polls")" -ge 3 ]
}
# A count of polls would wait as long as the polls take (20 polls of a 2 s
# wait: 30 s); a 2 s deadline stops after the poll that overran it: the
# second, or the first on a machine so busy that it took 2 s.
: >"$polls"
never() { slow_third && false; }
wait_until 2 never
is "$?" 1 "a deadline passed: status 1"
n=$(wc -l <"$polls" | tr -d ' ')
ok "... after 1 or 2 polls of 1.5 s ($n)" test "$n" -ge 1 -a "$n" -le 2

: >"$polls"
wait_until 600 slow_third
is "$?" 0 "a condition that comes true: status 0"
is "$(wc -l <"$polls" | tr -d ' ')" 3 "... polled until then, not to the deadline"
done_testing
