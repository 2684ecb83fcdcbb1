#!/bin/sh
# tests/testbed/slurm-linger.t: an srun that outlives its Slurm step, every
# point of its launch written, is ended and the launch kept (launch/child.h,
# work_done); an srun whose step Slurm still lists is left alone. Slurm
# before 24.11 leaves srun so now and then after a heterogeneous step (its
# PMIx abort agents race: SchedMD bug 16817; 1 launch in 600 of
# tests/bench/soak.sh's het sweep here). The hang is made on purpose:
# - an srun wrapper first in PATH starts the real srun, waits until every
#   task of the step has started, stops srun (SIGSTOP) and only then lets
#   the ranks run (the kernel's wrapper waits for its go file): the step
#   runs and ends, srun cannot;
# - the control: srun runs free, but the ranks wait, their points written,
#   until sweetspot has asked Slurm twice about the step (a scontrol
#   wrapper counts the asks), so the step is listed while srun waits.
# The cluster is torn down at the end, on failure too.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/lib/slurm.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"

plan 14

. "$ROOT/tests/lib/dpu-spec.sh"
q() { sqlite3 "$DB" "$1"; }
REAL_SRUN=$(command -v srun)
REAL_SCONTROL=$(command -v scontrol)
export REAL_SRUN REAL_SCONTROL
KERNEL=$BIN/sweetspot-kernel
export KERNEL

exits_with 0 "the cluster comes up" sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
ALLOC="--nodelist=n1,n2,n1-bf,n2-bf --nodes=4 --ntasks-per-node=2"

mkdir -p "$TMP/wrap" "$TMP/ready"
# The wrappers wait for their conditions as the tests do (wait_until).
WAIT_SH=$ROOT/tests/lib/wait.sh
export WAIT_SH
# srun: with STOP_SRUN set, stopped once every task of its step has
# started (each says so in $READY; or srun has ended; at most 300 s): Slurm
# lists a step before srun has launched its tasks. The file $STOP_SRUN says
# it was.
cat >"$TMP/wrap/srun" <<'EOF'
#!/bin/sh
case "${1:-}" in --version | -V | --help) exec "$REAL_SRUN" "$@" ;; esac
[ -n "${STOP_SRUN:-}" ] || exec "$REAL_SRUN" "$@"
. "$WAIT_SH"
n=0
for a in "$@"; do
	case $a in --ntasks=*) n=$((n + ${a#--ntasks=})) ;; esac
done
"$REAL_SRUN" "$@" &
s=$!
started_or_gone() { ! kill -0 $s 2>/dev/null || [ "$(ls "$READY" | wc -l)" -ge $n ]; }
wait_until 300 started_or_gone
kill -STOP $s && echo "$s" >"$STOP_SRUN"
wait $s
EOF
# scontrol: every call counted in $ASKS, then the real one.
cat >"$TMP/wrap/scontrol" <<'EOF'
#!/bin/sh
[ -z "${ASKS:-}" ] || echo "$*" >>"$ASKS"
exec "$REAL_SCONTROL" "$@"
EOF
# The kernel: says it started (in $READY), waits for $GO before it runs,
# and for $ASKS to count two `show step` after it has ended (at most 300 s
# each).
cat >"$TMP/wrap/kernel" <<'EOF'
#!/bin/sh
. "$WAIT_SH"
[ -z "${READY:-}" ] || : >"$READY/$$"
go() { [ -e "$GO" ]; }
asked_twice() { [ "$(cat "$ASKS" 2>/dev/null | grep -c 'show step')" -ge 2 ]; }
[ -z "${GO:-}" ] || wait_until 300 go
"$KERNEL" "$@"
st=$?
[ -z "${ASKS:-}" ] || wait_until 300 asked_twice
exit $st
EOF
chmod +x "$TMP/wrap/srun" "$TMP/wrap/scontrol" "$TMP/wrap/kernel"

# One launch: 1 worker on the DPUs of 2 nodes x 2 PPN, 2 points.
spec "n[1-2]" srun "" 1 300 | sed -e "s|\"$BIN/sweetspot-kernel\"|\"$TMP/wrap/kernel\"|g" \
	-e 's/workers = \[ 1, 2 \]/workers = [ 1 ]/' >"$TMP/s.cfg"
grep -q "$TMP/wrap/kernel" "$TMP/s.cfg" || diag "the spec's kernel was not replaced"

# ---- srun stopped: the step ends, srun cannot ---------------------------
DB=$TMP/stop.db
exits_with 0 "a sweep whose srun outlives its step" env PATH="$TMP/wrap:$PATH" \
	STOP_SRUN="$TMP/stopped" GO="$TMP/stopped" READY="$TMP/ready" \
	salloc -Q $ALLOC sweetspot run "$TMP/s.cfg" --db "$DB"
ok "  ... srun was stopped while its step ran" test -s "$TMP/stopped"
is "$(q 'SELECT ok || timed_out FROM launches')" "10" "  ... the launch is ok, not timed out"
is "$(q 'SELECT count(*) FROM points WHERE valid')" 2 "  ... both points stored, valid"
log=$(q 'SELECT log_path FROM launches')
like "$log" "srun outlived its Slurm step by [0-9]+ s, every result written: ended" \
	"  ... its log says srun was ended after its step"
like "$TMP/err" "warning: .* the launch is judged by its points" "  ... and so does stderr"
# Gone, or a zombie its new parent has yet to reap.
srun_gone() {
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$(cat "$TMP/stopped")/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ]
}
wait_until 60 srun_gone
ok "  ... the stopped srun is gone" srun_gone
is "$("$REAL_SCONTROL" -o show step 2>/dev/null | grep -c StepId=)" 0 "  ... no step is left"

# ---- the control: the step is listed while srun waits -------------------
DB=$TMP/free.db
exits_with 0 "a sweep whose ranks end only after sweetspot asked twice" env PATH="$TMP/wrap:$PATH" \
	ASKS="$TMP/asks" salloc -Q $ALLOC sweetspot run "$TMP/s.cfg" --db "$DB"
ok "  ... sweetspot asked Slurm about the step (twice or more)" \
	test "$(grep -c 'show step' "$TMP/asks")" -ge 2
is "$(q 'SELECT ok || timed_out || exit_status FROM launches')" "100" \
	"  ... srun was left to end on its own: ok, status 0"
log=$(q 'SELECT log_path FROM launches')
ok "  ... nothing said of a lingering srun" sh -c "! grep -q 'outlived its Slurm step' '$log'"
is "$(q 'SELECT count(*) FROM points WHERE valid')" 2 "  ... both points stored, valid"
done_testing
