# tests/lib/wait.sh: waits bounded by the clock, for the tests and the
# testbeds (source it). A deadline in seconds, not a count of polls: a poll
# that itself takes seconds (a Slurm command stuck on a name lookup) must not
# stretch a 30 s wait into an hour.

# wait_until SECONDS COMMAND...: runs the command every tenth of a second
# until it succeeds (status 0), or fails once SECONDS have passed (status 1).
wait_until() {
	wait_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$wait_end" ] || return 1
		sleep 0.1
	done
}
