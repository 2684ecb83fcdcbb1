# tests/lib/wait.sh: waits bounded by the clock, for the tests and the
# testbeds (source it). A deadline in seconds, not a count of polls: a poll
# that itself takes seconds (a Slurm command stuck on a name lookup) must not
# stretch a 30 s wait into an hour.

# wait_until SECONDS COMMAND...: runs the command every tenth of a second
# until it succeeds (status 0), or fails once SECONDS have passed (status 1).
# The clock is read in milliseconds: in whole seconds a wait could end up to
# a second early.
wait_until() {
	wait_end=$(($(wait_now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(wait_now_ms)" -lt "$wait_end" ] || return 1
		sleep 0.1
	done
}
wait_now_ms() { echo $(($(date +%s%N) / 1000000)); }
