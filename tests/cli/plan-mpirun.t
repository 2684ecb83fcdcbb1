#!/bin/sh
# tests/cli/plan-mpirun.t: generated files run for real. Open MPI's mpirun
# reads the generated hostfile, appfile and rankfile for made-up host names
# (pm<pid>x01, pm<pid>x01-bf, ...) that a stand-in ssh makes real on this machine,
# and every rank reports where it runs: a small MPI probe, and the
# benchmark kernel itself (its JSON rank_hosts), must match the plan's
# slurm.hostfile (one host per rank) exactly.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpirun >/dev/null && command -v mpicc >/dev/null || skip_all "Open MPI is not installed"
# The stand-in ssh gives each fake host a shared-memory folder: ours go too.
# Fake host names of this run only (pm<pid>x01, ...): copies of this test
# running at once on one machine must not share or remove each other's.
P=pm$$x
cleanup() {
	rm -rf /dev/shm/ompi-"$P"*
	[ -n "${SWEETSPOT_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
plan 15

# A probe that prints "RANK HOST" with the host the stand-in ssh reports.
cat >"$TMP/probe.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int rank;
	const char *h = getenv("SWEETSPOT_HOSTNAME");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("%d %s\n", rank, h ? h : "(none)");
	MPI_Finalize();
	return 0;
}
C
mpicc -o "$TMP/probe" "$TMP/probe.c"

# fake MPIRUN-ARGS...: mpirun on the fake hosts; its stderr goes to
# $TMP/mpirun.err and is shown when it fails.
fake() {
	# mpirun's own session folder too (several mpiruns at once race on
	# creating and removing a shared $TMPDIR/ompi.<host>.<uid>).
	mkdir -p "$TMP/mpi"
	TMPDIR=$TMP/mpi mpirun_local --mca plm_rsh_agent "$ROOT/tests/testbed/fake-ssh" --mca btl self,tcp \
		"$@" 2>"$TMP/mpirun.err"
	fake_rc=$?
	[ "$fake_rc" -eq 0 ] || grep -v '^[- ]*$' "$TMP/mpirun.err" | sed 's/^/# mpirun: /' | head -30 >&3
	return "$fake_rc"
}
exec 3>&1

# spec NAME NODES PPN DPU-OR-ONLOAD-LINE PLACEMENT WPN WORKERS BIN
spec() {
	cat >"$TMP/$1.cfg" <<CFG
system = {
	name = "$1";
	nodes = "$2";
	ppn = $3;
	$4
	host_bin = "$8";
	dpu_bin = "$8";
};
sweep = {
	collectives = [ "bcast", "allgather" ];
	assignments = [ "block", "cyclic" ];
	sizes = "4K";
	placement = [ "$5" ];
	wpn = [ $6 ];
	workers = [ $7 ];
	iterations = 3;
	warmup = 1;
	transport = "rma";
};
CFG
}

# placed DIR: what the probe said, sorted by rank, against slurm.hostfile.
placed() {
	sort -n "$TMP/probe.out" | awk '{ print $2 }' >"$TMP/got"
	cmp -s "$TMP/got" "$1/slurm.hostfile" || { diff "$1/slurm.hostfile" "$TMP/got" | sed 's/^/# /'; return 1; }
}

# DPU placement, uneven: 2 nodes x 2 PPN, 3 workers at 2 per DPU.
spec dpu "$P[01-02]" 2 'dpu = { suffix = "-bf"; cores = 2; };' dpu 2 3 "$TMP/probe"
exits_with 0 "generate the DPU layout" sweetspot generate "$TMP/dpu.cfg" -o "$TMP/dpu" --launcher all
d=$TMP/dpu/n2-ppn2-w3-wpn2-dpu
is "$(tr '\n' ' ' <"$d/slurm.hostfile")" "${P}01 ${P}01 ${P}02 ${P}02 ${P}01-bf ${P}01-bf ${P}02-bf " "the plan"
fake --hostfile "$d/hostfile" --app "$d/appfile" >"$TMP/probe.out"
is "$?" 0 "mpirun runs the generated hostfile and appfile"
ok "every rank where the plan puts it (DPU)" placed "$d"

# Onload: 2 nodes x 2 PPN, 2 workers, 1 per node, on the nodes themselves.
spec onl "$P[01-02]" 2 'onload = { cores = 1; };' onload 1 2 "$TMP/probe"
exits_with 0 "generate the onload layout" sweetspot generate "$TMP/onl.cfg" -o "$TMP/onl" --launcher all
d=$TMP/onl/n2-ppn2-w2-wpn1-onload
fake --hostfile "$d/hostfile" --app "$d/appfile" >"$TMP/probe.out"
is "$?" 0 "mpirun runs the onload files"
ok "every rank where the plan puts it (onload: hosts first, then workers)" placed "$d"

# The rankfile pins each rank to its slot (1 host rank and 1 worker per
# node: slots 0 and 1, which two cores hold).
if [ "$(nproc)" -ge 2 ]; then
	spec pin "$P[01-02]" 1 'onload = { cores = 1; };' onload 1 1 "$TMP/probe"
	sweetspot generate "$TMP/pin.cfg" -o "$TMP/pin" --launcher all >/dev/null
	d=$TMP/pin/n2-ppn1-w1-wpn1-onload
	fake --hostfile "$d/hostfile" --rankfile "$d/rankfile" --app "$d/appfile" --report-bindings \
		>"$TMP/probe.out"
	is "$?" 0 "mpirun takes the generated rankfile"
	ok "pinned ranks where the plan puts them" placed "$d"
	like "$TMP/mpirun.err" 'MCW rank 2 bound to .*\[\./B' "the worker is pinned to the reserved core (slot 1)"
else
	skip "rankfile needs 2 cores"; skip "rankfile"; skip "rankfile"
fi

# The kernel itself: its rank_hosts must be the plan's.
if [ -x "$BIN/sweetspot-kernel" ]; then
	spec kern "$P[01-02]" 2 'dpu = { suffix = "-bf"; cores = 2; };' dpu 2 3 "$BIN/sweetspot-kernel"
	sweetspot generate "$TMP/kern.cfg" -o "$TMP/kern" --launcher all >/dev/null
	d=$TMP/kern/n2-ppn2-w3-wpn2-dpu
	fake --mca osc pt2pt --hostfile "$d/hostfile" --app "$d/appfile" >"$TMP/kernel.out"
	is "$?" 0 "the kernel runs from the generated files"
	sed -n 's/.*"rank_hosts":\[\([^]]*\)\].*/\1/p' "$TMP/kernel.out" | head -1 | tr -d '"' | tr ',' '\n' >"$TMP/got"
	if cmp -s "$TMP/got" "$d/slurm.hostfile"; then pass "the kernel's rank_hosts are the plan's"; else
		fail "the kernel's rank_hosts are the plan's"; sed 's/^/# /' "$TMP/kernel.out" "$TMP/mpirun.err" | head -20; fi
	sweetspot plan --json "$TMP/kern.cfg" >"$TMP/plan.json"
	is "$(grep -c '"rank_hosts"' "$TMP/kernel.out")" "$(sed 's/.*"points":\([0-9]*\).*/\1/' "$TMP/plan.json")" \
		"the kernel measured as many points as the plan counts"

	# profiles/local.cfg runs as shipped, on this host (its second layout).
	sweetspot generate "$ROOT/profiles/local.cfg" -o "$TMP/local" >/dev/null
	d=$TMP/local/n1-ppn4-w2-wpn2-onload
	TMPDIR=$TMP/mpi mpirun_local --hostfile "$d/hostfile" --app "$d/appfile" >"$TMP/local.out" 2>"$TMP/mpirun.err"
	is "$?" 0 "profiles/local.cfg runs with mpirun on localhost"
	is "$(grep -c '"valid":true' "$TMP/local.out")" \
		"$(awk -F'\t' '$1 == "n1-ppn4-w2-wpn2-onload" { print $9 }' "$TMP/local/layouts.tsv")" \
		"every point of the layout measured and valid"
else
	fail "bin/sweetspot-kernel is not built"
fi
done_testing
