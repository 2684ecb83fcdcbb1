#!/bin/sh
# tests/cli/hydra-verify.t: `sweetspot verify` through MPICH's
# mpiexec.hydra: the settings an `export --format mpich` file gives (a CVAR
# forcing an algorithm), a program built with mpicc.mpich that sleeps
# longer without them (so B must be faster), every launch one
# MPI_COMM_WORLD of the spec's ranks; the collective loop's MPICH build
# (bin/mpich/sweetspot-loop) as the default program; the proof that MPICH
# took the forced algorithms (MPIR_CVAR_COLLECTIVE_FALLBACK=error: one that
# cannot run fails instead of falling back), and its failure path (smp bcast
# on one node).
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null ||
	{ echo "1..1"; echo "not ok 1 - MPICH is not installed (sh tests/deps.sh)"; exit 1; }
[ -x "$BIN/mpich/sweetspot-loop" ] || { echo "1..1"; echo "not ok 1 - bin/mpich/sweetspot-loop is not built (make mpich)"; exit 1; }
mpicc.mpich -o "$TMP/prog" "$ROOT/tests/data/verify-prog.c" || skip_all "mpicc.mpich cannot build an MPI program"
plan 12
cat >"$TMP/spec.cfg" <<CFG
system = {
	name = "hv"; nodes = "localhost"; ppn = 4; onload = { cores = 2; };
	host_bin = "$BIN/mpich/sweetspot-kernel";
	launcher = "hydra";
};
sweep = {
	collectives = [ "bcast" ]; assignments = [ "block" ]; sizes = [ "4K", "64K" ];
	wpn = [ 1 ]; workers = [ 1 ]; placement = [ "onload" ];
	iterations = 10; warmup = 1; repetitions = 4; max_repetitions = 5; time_limit = 120;
	transport = "rma";
};
CFG
printf '# MPICH collective algorithms measured by sweetspot\nexport MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial\n' >"$TMP/mpich.env"
VAR=MPIR_CVAR_BCAST_INTRA_ALGORITHM

exits_with 0 "dry run" sweetspot verify "$TMP/spec.cfg" --export "$TMP/mpich.env" --db "$TMP/v.db" --dry-run -- "$TMP/prog" $VAR 2500 0
like "$TMP/out" "verify-B-r1' && mpiexec.hydra -genv $VAR binomial .*-n 4 $TMP/prog" \
	"B: the CVAR given to every rank with -genv"
exits_with 0 "wall time under hydra" sweetspot verify "$TMP/spec.cfg" --export "$TMP/mpich.env" --db "$TMP/v.db" -- "$TMP/prog" $VAR 2500 0
like "$TMP/out" '^wall time \(s\) .* faster$' "B faster"
like "$TMP/out" '^proof: .*MPIR_CVAR_COLLECTIVE_FALLBACK=error: MPICH ran every forced algorithm: applied$' \
	"proof: MPICH took binomial for every size (no fallback)"
like "$TMP/out" 'B with .*mpich.env \(environment file\)' "the settings read as an environment file"
exits_with 0 "the collective loop, MPICH's build" sweetspot verify "$TMP/spec.cfg" --export "$TMP/mpich.env" --db "$TMP/v.db" --json
is "$(grep -c '"name": "bcast [0-9]*"' "$TMP/out")" 2 "a figure per size"
ok "... run from bin/mpich" grep -q "$BIN/mpich/sweetspot-loop -c bcast" "$TMP/v.db"
# smp bcast needs more than one node: MPICH would fall back to its own
# choice without a word; the proof makes it say so, and nothing is faster.
printf 'export MPIR_CVAR_BCAST_INTRA_ALGORITHM=smp\n' >"$TMP/smp.env"
exits_with 0 "a CVAR MPICH cannot apply" sweetspot verify "$TMP/spec.cfg" --export "$TMP/smp.env" --db "$TMP/v.db" -- "$TMP/prog" $VAR 2500 0
like "$TMP/out" 'MPICH refused a forced algorithm .*NOT APPLIED$' "proof: not applied"
like "$TMP/out" '^wall time \(s\) .* not applied$' "the verdict: not applied, never faster"
done_testing
