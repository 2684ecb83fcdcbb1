#!/bin/sh
# tests/testbed/slurm-launch.t: the launch/ module against a real Slurm
# cluster on this machine (slurm-cluster.sh: munge, slurmctld, four host
# nodes and four DPU nodes). The srun argv built from a layout's files runs
# a real MPI program through launch_spawn(), and every rank must run on
# exactly the node its line of slurm.hostfile names, with one-sided MPI
# working between emulated nodes; then the same from inside an sbatch --wait
# job (and sweetspot-kernel itself), a heterogeneous job (hosts and DPUs as separate node classes), a
# chain of jobs with afterany, and a step killed at its time limit. The
# cluster is torn down at the end, on failure too.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/lib/slurm.sh"

[ -r "$ROOT/build/libsweetspot.a" ] || skip_all "build first (make)"

plan 31

# Tools: the MPI program and the test front end to launch/.
mkdir -p "$TMP/bin"
ok "the MPI test program builds" \
	mpicc -O1 -o "$TMP/bin/hello" "$ROOT/tests/testbed/mpi-hello.c"
ok "the launch driver builds against libsweetspot.a" \
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-I"$ROOT/common" -I"$ROOT/launch" -o "$TMP/bin/launch-drive" \
	"$ROOT/tests/testbed/launch-drive.c" "$ROOT/build/libsweetspot.a" \
	-lconfig -lsqlite3 -ljansson -lm
DRIVE=$TMP/bin/launch-drive
HELLO=$TMP/bin/hello

start=$(date +%s)
exits_with 0 "the cluster comes up" sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
diag "cluster up in $(($(date +%s) - start)) s"
is "$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')" \
	"n1 n1-bf n2 n2-bf n3 n3-bf n4 n4-bf " "eight nodes idle, DPUs included"

# A layout: 4 host ranks on n1,n2 and 2 workers on their DPUs, in a folder
# whose name a shell would split.
LAY="$TMP/lay out"
mkdir -p "$LAY"
printf 'n1\nn1\nn2\nn2\nn1-bf\nn2-bf\n' >"$LAY/slurm.hostfile"
printf '0-3 %s host%%t\n4-5 %s worker%%o\n' "$HELLO" "$HELLO" >"$LAY/multi-prog.conf"

# check_placement LOG: every rank's line names the node of its hostfile line.
check_placement() {
	awk '{ print NR - 1, $1 }' "$LAY/slurm.hostfile" >"$TMP/want"
	awk '$1 == "rank" { print $2, $6 }' "$1" | sort -n >"$TMP/got"
	cmp -s "$TMP/want" "$TMP/got" || { diag "placement:"; sed 's/^/#   /' "$TMP/got" "$1"; return 1; }
}

"$DRIVE" srun "$LAY" 60 "$TMP/srun.log" >"$TMP/drive.out" 2>&1
like "$TMP/drive.out" "^argv: SLURM_HOSTFILE='$LAY/slurm.hostfile' SLURM_JOB_NODELIST='n\[1-2\],n1-bf,n2-bf' SLURM_NODELIST='n\[1-2\],n1-bf,n2-bf' srun --mpi=pmix --ntasks=6 --nodes=4 --distribution=arbitrary" \
	"the srun argv is built from the layout's files"
like "$TMP/drive.out" '^status=0 timed_out=0 ' "srun of the MPI program exits 0"
ok "every rank runs on the node its slurm.hostfile line names" check_placement "$TMP/srun.log"
is "$(grep -c 'size 6 .* rma ok' "$TMP/srun.log")" 6 "one MPI_COMM_WORLD of 6; one-sided MPI works across nodes"
like "$TMP/srun.log" '^rank 5 .* worker1$' "multi-prog gave the workers their index (%o)"

# The real kernel, placed the same way: its own report of where each rank ran.
mkdir -p "$TMP/kern"
cp "$LAY/slurm.hostfile" "$TMP/kern/"
printf '0-5 %s -w 2 -c bcast -m 4K -i 3 -x 1 -t rma -o %s\n' "$BIN/sweetspot-kernel" \
	"$TMP/kern/points.jsonl" >"$TMP/kern/multi-prog.conf"
"$DRIVE" srun "$TMP/kern" 60 "$TMP/kern.log" >"$TMP/drive.out" 2>&1
like "$TMP/drive.out" '^status=0 timed_out=0 ' "sweetspot-kernel runs through the srun argv"
like "$TMP/kern/points.jsonl" '"host_source":"SLURMD_NODENAME".*"valid":true,"rank_hosts":\["n1","n1","n2","n2","n1-bf","n2-bf"\]' \
	"... its valid record puts every rank on its hostfile node"

# A step past its time limit: srun and its tasks go, the allocation too.
mkdir -p "$TMP/hang"
printf 'n3\nn4\n' >"$TMP/hang/slurm.hostfile"
printf '0-1 /bin/sleep 97.25\n' >"$TMP/hang/multi-prog.conf"
"$DRIVE" srun "$TMP/hang" 3 "$TMP/hang.log" >"$TMP/drive.out" 2>&1
like "$TMP/drive.out" '^status=[0-9]+ timed_out=1 wall=([3-9]|[12][0-9])\.' "a hanging step is timed out at its limit"
hang_gone() { [ -z "$(squeue -h)" ] && ! pgrep -f 'sleep 97[.]25' >/dev/null; }
wait_until 10 hang_gone
is "$(squeue -h | wc -l)" 0 "... its job is gone from the queue"
ok "... and its tasks are gone" sh -c "! pgrep -f 'sleep 97[.]25'"

# srun from inside an sbatch --wait job, on the layout's own nodes.
"$DRIVE" sbatch "$TMP/job.sh" "$TMP/job.out" --wait --nodes 4 --tpn 2 \
	--nodelist 'n[1-2],n1-bf,n2-bf' -- "$DRIVE" srun "$LAY" 60 "$TMP/in-job.log" \
	>"$TMP/sbatch.out" 2>&1
like "$TMP/sbatch.out" '^job=[0-9]+ status=0$' "an sbatch --wait job runs and returns its status"
like "$TMP/job.sh" '^#SBATCH --nodelist=n\[1-2\],n1-bf,n2-bf$' "... the script asks for the layout's nodes"
like "$TMP/job.out" '^status=0 timed_out=0 ' "... srun inside the allocation exits 0"
ok "... and places every rank on its hostfile node" check_placement "$TMP/in-job.log"

# A job whose command fails: --wait returns the job's exit status.
"$DRIVE" sbatch "$TMP/fail.sh" "$TMP/fail.out" --wait -- sh -c 'exit 7' >"$TMP/sbatch.out" 2>&1
like "$TMP/sbatch.out" '^job=[0-9]+ status=7$' "a job that exits 7: sbatch --wait returns 7"

# A heterogeneous job: host nodes and DPU nodes as separate classes.
"$DRIVE" sbatch "$TMP/het.sh" "$TMP/het.out" --wait --nodes 2 --tpn 2 --constraint host \
	--het --nodes 2 --tpn 1 --constraint dpu -- \
	"$DRIVE" het 60 "$TMP/het.log" 4 2 2 2 "$HELLO" >"$TMP/sbatch.out" 2>&1
like "$TMP/sbatch.out" '^job=[0-9]+ status=0$' "a heterogeneous job runs"
like "$TMP/het.sh" '^#SBATCH hetjob$' "... written with an #SBATCH hetjob separator"
like "$TMP/het.out" '^argv: srun --het-group=0 .* : --het-group=1 ' "... and srun --het-group"
is "$(awk '$1 == "rank" && $11 == "host" { print $2, $6 }' "$TMP/het.log" | sort -n | tr '\n' ' ')" \
	"0 n1 1 n1 2 n2 3 n2 " "... hosts take ranks 0-3 on the host nodes"
is "$(awk '$1 == "rank" && $11 == "worker" { print $2, $6 }' "$TMP/het.log" | sort -n | tr '\n' ' ')" \
	"4 n1-bf 5 n2-bf " "... workers the highest ranks on the DPU nodes"
is "$(grep -c 'size 6 .* rma ok' "$TMP/het.log")" 6 "... in one MPI_COMM_WORLD, one-sided MPI working"

# A chain: B starts after A ends (afterany); values no shell may split.
"$DRIVE" sbatch "$TMP/a.sh" "$TMP/a.out" -- sh -c 'sleep 1; printf "%s\n" "$1" >>"$2"' sh \
	"A it's;\"x\" \$(id)" "$TMP/chain" >"$TMP/a.id" 2>&1
A=$(sed -n 's/^job=\([0-9]*\) .*/\1/p' "$TMP/a.id")
ok "job A of a chain is submitted" test -n "$A"
"$DRIVE" sbatch "$TMP/b.sh" "$TMP/b.out" --wait --after "$A" -- \
	sh -c 'printf "B after %s\n" "$1" >>"$2"' sh "$A" "$TMP/chain" >"$TMP/b.id" 2>&1
like "$TMP/b.id" '^job=[0-9]+ status=0$' "job B, dependent on A, runs"
is "$(cat "$TMP/chain")" "A it's;\"x\" \$(id)
B after $A" "... after A, and A's awkward argument arrived intact"

"$DRIVE" sbatch "$TMP/bad.sh" "$TMP/bad out" -- true >"$TMP/sbatch.out" 2>&1
like "$TMP/sbatch.out" "cannot go on an #SBATCH line" "an output path sbatch cannot read is refused"

exits_with 0 "the cluster goes down" sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER"
left=$({
	grep -lzxF "SWEETSPOT_SLURM_TESTBED=$CLUSTER" /proc/[0-9]*/environ 2>/dev/null
	for f in $(grep -lzxF "SLURM_CONF=$CLUSTER/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
		[ "$(cat "${f%/environ}/comm" 2>/dev/null)" = slurmstepd ] && echo "$f"
	done
} | wc -l)
is "$left" 0 "... leaving no daemon, step or task behind"
diag "whole test: $(($(date +%s) - start)) s"
if [ "$tap_failed" -gt 0 ]; then
	# On stderr, which prove shows without -v.
	for f in "$CLUSTER"/log/slurmctld.log "$TMP"/*.out "$TMP"/*.log; do
		[ -r "$f" ] && { echo "--- $f"; tail -n 15 "$f"; } >&2
	done
fi
done_testing
