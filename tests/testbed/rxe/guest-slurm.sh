#!/bin/sh
# tests/testbed/rxe/guest-slurm.sh: the test script the Soft-RoCE guest runs
# for tests/testbed/verbs-slurm.t (through run.sh, with rxe0 already on lo):
# the design card's whole sentence in one go. A real Slurm cluster comes up
# inside the guest (tests/testbed/slurm-cluster.sh with
# SWEETSPOT_SLURM_NODES=1: munged, slurmctld, slurmd for the emulated
# nodes n1 and n1-bf, mpi/pmix, TmpFS, the TaskProlog), then
# `sweetspot submit --strategy grid --wait` sends the sweep of
# tests/data/specs/verbs-slurm.cfg (transport verbs, launcher srun) as an
# sbatch job whose launches are `srun --mpi=pmix` of the kernels, host
# ranks on n1 and workers on n1-bf, their data over rxe0. Then the results
# must be there, every point valid, over verbs on rxe0, each rank where the
# plan put it, and `sweetspot recommend` must answer from them. Prints TAP
# on stdout (run.sh saves it in /out/tap); copies what a failure needs to
# be understood into /out. Every command runs under a time limit, so a hang
# costs its checks, not the boot.
. "$SWEETSPOT_ROOT/tests/lib/tap.sh"
OUT=/out
SPEC=$SWEETSPOT_ROOT/tests/data/specs/verbs-slurm.cfg
TESTBED=$SWEETSPOT_ROOT/tests/testbed
CLUSTER=$TMP/cluster
DB=$TMP/db/verbs-slurm.db
LIMIT=${GUEST_CMD_LIMIT:-600}
t() { tl=$1; shift; timeout -k 5 "$tl" "$@"; }
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
# The time since the guest's script started, for the TAP comments.
T0=$(date +%s)
took() { diag "$1 after $(($(date +%s) - T0)) s"; }

plan 24
echo "# guest: $(uname -r), $(nproc) cpus"

## What Slurm needs of the guest that this machine's root over 9p does not
## give: names for localhost and the guest (slurmctld, the clients and
## munged resolve them); an IPv4 address besides loopback, as Slurm asks
## getaddrinfo for addresses with AI_ADDRCONFIG, which finds none on a
## machine with only lo (every lookup, even of localhost, then fails):
## a dummy link carries one (MPI and rxe0 stay on lo); and a cgroup
## hierarchy, which slurmd's cgroup plugin insists on even with
## proctrack/linuxproc and task/none: v1, as on this machine. The guest's
## root is an overlay on a tmpfs, so none of it touches the host.
guest_setup() {
	printf '127.0.0.1 localhost %s\n' "$(hostname)" >/etc/hosts || return 1
	modprobe dummy && ip link add slurm0 type dummy &&
		ip addr add 192.0.2.1/24 dev slurm0 && ip link set slurm0 up || return 1
	mountpoint -q /sys/fs/cgroup && return 0
	mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup || return 1
	for c in cpuset cpu,cpuacct memory devices freezer pids; do
		mkdir -p "/sys/fs/cgroup/$c" && mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" || return 1
	done
	mkdir -p /sys/fs/cgroup/systemd &&
		mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
}
ok "the guest resolves localhost, has an address besides lo and cgroups (v1) for slurmd" guest_setup

## The device the kernels will use.
t 60 ibv_devinfo -v -d rxe0 >"$TMP/devinfo" 2>&1
like "$TMP/devinfo" 'state:[[:space:]]+PORT_ACTIVE' "rxe0: port 1 is active"
like "$TMP/devinfo" 'GID\[ *1\]:[[:space:]]+::ffff:127\.0\.0\.1, RoCE v2' \
	"rxe0: GID index 1 is ::ffff:127.0.0.1 (RoCE v2), the one the kernel picks"

## The cluster, inside the guest.
SWEETSPOT_SLURM_NODES=1 t 300 sh "$TESTBED/slurm-cluster.sh" up "$CLUSTER" >"$TMP/up.out" 2>"$TMP/up.err"
up_rc=$?
is "$up_rc" 0 "slurm-cluster.sh up: munged, slurmctld, slurmd n1 and n1-bf"
[ "$up_rc" = 0 ] || sed 's/^/#   /' "$TMP/up.err" | tail -30
took "cluster up"
eval "$(sh "$TESTBED/slurm-cluster.sh" env "$CLUSTER" 2>/dev/null)"
export SLURM_CONF
t 60 sinfo -h -N -o '%N %T' >"$TMP/sinfo" 2>&1
is "$(LC_ALL=C sort "$TMP/sinfo" | tr '\n' ' ')" "n1 idle n1-bf idle " "sinfo: n1 and n1-bf idle"
t 60 scontrol show config >"$TMP/config" 2>&1
like "$TMP/config" '^MpiDefault +=.*pmix' "the cluster's MPI plugin is pmix"

## The sweep, as a batch job.
t 60 sweetspot plan "$SPEC" --json >"$TMP/plan.json" 2>"$TMP/plan.err"
want_points=$(sed -n 's/.*"measurements":\([0-9]*\).*/\1/p' "$TMP/plan.json")
want_launches=$(sed -n 's/.*"launches":\([0-9]*\).*/\1/p' "$TMP/plan.json")
is "$want_points $want_launches" "8 2" "the spec plans 8 points in 2 launches"
mkdir -p "$TMP/db"
# rxe0's own packet counters, before and after: the data went over it.
CNT=/sys/class/infiniband/rxe0/ports/1/hw_counters
pkts() { echo $(($(cat "$CNT/sent_pkts" 2>/dev/null || echo 0) + $(cat "$CNT/rcvd_pkts" 2>/dev/null || echo 0))); }
pkts_before=$(pkts)
# The cluster forgets a finished job after MinJobAge=4 s, while submit
# --wait backs off up to 32 times its first polling interval while nothing
# changes (a launch of ~40 s here): 0.1 s keeps its longest wait at 3.2 s,
# so it sees the job end (with 1 s it polled 30 s apart and lost it).
exits_with 0 "sweetspot submit --strategy grid --wait: the job ran the sweep and succeeded" \
	t "$LIMIT" env SWEETSPOT_POLL_S=0.1 sweetspot submit "$SPEC" --strategy grid --wait --db "$DB"
pkts_during=$(($(pkts) - pkts_before))
cp "$TMP/out" "$OUT/submit.out" 2>/dev/null
took "submit --wait returned"
sed 's/^/#   submit: /' "$TMP/out"
like "$TMP/out" '^submitted job [0-9]+ \(chunk 1 of 1\)' "  ... one job submitted"
like "$TMP/out" '^job [0-9]+ ended: COMPLETED, exit status 0$' "  ... which Slurm says COMPLETED, status 0"
job_out=$(sed -n 's/^  output: //p' "$TMP/out" | head -1)
[ -n "$job_out" ] && cp "$job_out" "$OUT/job.out" 2>/dev/null

# A lower bound: each 64K point alone moves 64K at least once per
# iteration (5), i.e. 80 packets of rxe0's MTU (4096) or more, sent and
# received; over TCP instead, rxe0 would count none.
if [ "$pkts_during" -ge 160 ]; then
	pass "rxe0 sent and received $pkts_during packets during the sweep"
else
	fail "rxe0 sent and received packets during the sweep"
	diag "only $pkts_during (counters in $CNT: $(ls "$CNT" 2>&1 | tr '\n' ' '))"
fi
is "$(q 'SELECT count(*) || exit_status FROM jobs')" "10" "the job is in the database, exit status 0"
is "$(q 'SELECT launcher FROM runs')" "srun" "the job's sweep launched with srun"
is "$(q "SELECT count(*) FROM launches WHERE ok AND argv LIKE 'SLURM_HOSTFILE=% srun --mpi=pmix %'")" \
	"$want_launches" "every launch ok, each SLURM_HOSTFILE=... srun --mpi=pmix"
# What the failed launches (if any) said, for whoever reads the TAP.
sqlite3 -separator ' ' "$DB" "SELECT layout, repetition, reason, log_path FROM launches WHERE NOT ok" 2>/dev/null |
	while read -r lay rep rest; do
		diag "failed launch: $lay r$rep: $rest"
		log=${rest##* }
		[ -f "$log" ] && tail -15 "$log" | sed 's/^/#     | /'
	done

## The results.
exits_with 0 "sweetspot results --json" t 60 sweetspot results --db "$DB" --json
cp "$TMP/out" "$TMP/results.json"
cp "$TMP/out" "$OUT/results.json"
n_points=$(grep -c '"collective":' "$TMP/results.json")
n_verbs=$(grep -c '"transport": *"verbs"' "$TMP/results.json")
n_rxe=$(grep -c '"device": *"rxe0"' "$TMP/results.json")
n_valid=$(grep -c '"valid": *true' "$TMP/results.json")
is "$n_points" "$want_points" "results: the plan's $want_points points"
is "$n_verbs $n_rxe $n_valid" "$n_points $n_points $n_points" \
	"results: every point \"transport\":\"verbs\", \"device\":\"rxe0\", valid"
is "$(q "SELECT count(*) FROM points WHERE valid AND transport = 'verbs' AND device = 'rxe0'")" \
	"$want_points" "the database agrees: every point valid, verbs on rxe0"
is "$(q 'SELECT group_concat(DISTINCT host_source) FROM points')" "SLURMD_NODENAME" \
	"the ranks knew their Slurm node"

# Every point's ranks ran where the launch's slurm.hostfile put them: host
# ranks on n1, workers on n1-bf, so hosts and workers met over rxe0.
placed() {
	sqlite3 -separator ' ' "$DB" "SELECT p.rank_hosts, l.log_path FROM points p JOIN launches l
		ON l.id = p.launch WHERE p.valid" >"$TMP/placed" || return 1
	[ -s "$TMP/placed" ] || return 1
	while read -r hosts log; do
		want=$(tr '\n' ',' <"$(dirname "$log")/slurm.hostfile" | sed 's/,$//')
		got=$(printf '%s' "$hosts" | tr -d '[]" ')
		[ "$got" = "$want" ] || { diag "ran on $got, planned $want"; return 1; }
		case ",$want," in *,n1,*n1-bf*) ;; *) diag "no host on n1 and worker on n1-bf in $want"; return 1 ;; esac
	done <"$TMP/placed"
}
ok "every rank ran on its planned node: hosts on n1, workers on n1-bf" placed

## The recommendation, from those results (no search of its own).
exits_with 0 "sweetspot recommend: exit 0" t 300 sweetspot recommend "$SPEC" --db "$DB" \
	--files "$TMP/recommended"
cp "$TMP/out" "$OUT/recommend.out"
sed 's/^/#   recommend: /' "$TMP/out"
like "$TMP/out" '^(bcast|gather), (4K|64K)(\.\.[0-9]+K)?: [12] workers? \(WPN [12], dpu\), direct algorithm, block assignment: |^  the least bad offload: [12] workers? ' \
	"  ... a recommendation line"
if grep -q 'searching first' "$TMP/err"; then
	fail "  ... from the submitted sweep's results, without a search of its own"
else
	pass "  ... from the submitted sweep's results, without a search of its own"
fi

## Down again, every daemon and step gone.
[ -f "$CLUSTER/slurm.conf" ] && mkdir -p "$OUT/slurm" && cp "$CLUSTER"/log/*.log "$OUT/slurm/" 2>/dev/null
exits_with 0 "slurm-cluster.sh down" t 120 sh "$TESTBED/slurm-cluster.sh" down "$CLUSTER"
took "done"
done_testing
