#!/bin/sh
# tests/testbed/slurm-cluster.sh: a real Slurm 22.05 cluster on this one
# machine, for the tests: a private munged (as the munge user, with its own
# key and socket), slurmctld, and one slurmd per emulated node, all on
# localhost with ports nobody else uses, all state under DIR.
#
#   slurm-cluster.sh up DIR      start it; waits until every node is idle
#   slurm-cluster.sh env DIR     print `SLURM_CONF=...; export SLURM_CONF` to eval
#   slurm-cluster.sh down DIR    stop it: every daemon, step and task it started
#   slurm-cluster.sh conf DIR    only write DIR/slurm.conf, start nothing (for
#                                Slurm's commands that read no daemon, such as
#                                `scontrol show hostnames`)
#
# Nodes (partition `debug`, the default; 8 CPUs each, as config_overrides
# lets slurmd claim more than the machine has; SWEETSPOT_SLURM_CPUS=C
# (1..64, or `nproc`: this machine's count) gives C each instead, for a
# test that sizes its spec to what the machine runs):
#   n1 n2 n3 n4              host nodes            (Feature=host)
#   n1-bf n2-bf n3-bf n4-bf  their DPUs, BlueField style names (Feature=dpu)
# SWEETSPOT_SLURM_NODES=K (1..9) gives K of each instead of 4.
#
# Every task gets, from the TaskProlog, TCP on loopback for Open MPI and,
# in a step that spans emulated nodes, `btl=self,tcp` (shared memory between
# emulated nodes of one machine is unreliable) and `osc=ucx` (osc/rdma needs
# shared memory there; osc/pt2pt works but crashed in about 1 launch of 25
# here, ucx in none of 60, at ~2 s more start-up per launch). A step that
# sets either variable keeps its own. Every daemon and task carries
# SWEETSPOT_SLURM_TESTBED=DIR in its environment, which is how `down` finds
# them all (slurmstepd ignores SIGTERM and outlives slurmd, so nothing is
# left to its goodwill).
# Must run as root (slurmd runs tasks as their users; munged as munge).
set -eu
. "$(dirname "$0")/../lib/wait.sh"

usage() {
	echo "usage: slurm-cluster.sh up|down|env|conf DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
case $2 in
/*) DIR=$2 ;;
*) DIR=$(pwd)/$2 ;;
esac
CONF=$DIR/slurm.conf
MARK="SWEETSPOT_SLURM_TESTBED=$DIR"
K=${SWEETSPOT_SLURM_NODES:-4}
CPUS=${SWEETSPOT_SLURM_CPUS:-8}
[ "$CPUS" != nproc ] || CPUS=$(nproc)

die() {
	echo "slurm-cluster.sh: $*" >&2
	exit 1
}

# The pids of every process of this cluster: those that carry its mark
# (daemons, and tasks through the TaskProlog) and its slurmstepds, which
# slurmd starts with a fresh environment that only names the cluster's
# slurm.conf.
marked_pids() {
	{
		grep -lzxF -- "$MARK" /proc/[0-9]*/environ 2>/dev/null
		for f in $(grep -lzxF -- "SLURM_CONF=$CONF" /proc/[0-9]*/environ 2>/dev/null); do
			[ "$(cat "${f%/environ}/comm" 2>/dev/null)" = slurmstepd ] && echo "$f"
		done
	} | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' | grep -vx "$$" | sort -u || true
}

alive() {
	# A zombie is not alive: its parent may never reap it.
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] || continue
		case $(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1) in
		Z | X | '') ;;
		*) return 0 ;;
		esac
	done
	return 1
}
none_alive() { ! alive "$@"; }

down() {
	pids=$(marked_pids)
	munge_pid=
	[ -r "$DIR/munge.dir" ] && md=$(cat "$DIR/munge.dir") &&
		[ -r "$md/munged.pid" ] && munge_pid=$(cat "$md/munged.pid")
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
	# shellcheck disable=SC2086
	[ -z "$pids" ] || wait_until 10 none_alive $pids || true
	[ -n "$munge_pid" ] && kill "$munge_pid" 2>/dev/null || true
	if [ -r "$DIR/munge.dir" ]; then
		md=$(cat "$DIR/munge.dir")
		case $md in
		/tmp/sweetspot-munge.*) rm -rf "$md" ;;
		esac
		rm -f "$DIR/munge.dir"
	fi
	# shellcheck disable=SC2086
	if [ -n "$pids" ] && alive $pids; then
		echo "slurm-cluster.sh: processes still alive: $pids" >&2
		return 1
	fi
	return 0
}

# Whether process $1 sees the same root as we do. A cluster in a chroot (CI's
# fresh root, .ci/fresh-root.sh) names folders of that root, which are not
# ours to judge, nor ours theirs.
ROOT_ID=$(stat -L -c %d:%i /proc/self/root/ 2>/dev/null || true)
same_root() { [ "$(stat -L -c %d:%i "/proc/$1/root/" 2>/dev/null)" = "$ROOT_ID" ]; }

# Daemons of clusters whose folder is gone (a test killed before its trap
# ran) would hold ports and CPU for ever: they go.
reap_orphans() {
	for f in $(grep -lz '^SWEETSPOT_SLURM_TESTBED=' /proc/[0-9]*/environ 2>/dev/null); do
		d=$(tr '\0' '\n' 2>/dev/null <"$f" | sed -n 's/^SWEETSPOT_SLURM_TESTBED=//p' | head -1)
		p=${f#/proc/}
		p=${p%/environ}
		same_root "$p" || continue
		[ -z "$d" ] || [ -e "$d" ] || kill -9 "$p" 2>/dev/null || true
	done
	for f in $(grep -lz '^SLURM_CONF=' /proc/[0-9]*/environ 2>/dev/null); do
		[ "$(cat "${f%/environ}/comm" 2>/dev/null)" = slurmstepd ] || continue
		c=$(tr '\0' '\n' 2>/dev/null <"$f" | sed -n 's/^SLURM_CONF=//p' | head -1)
		p=${f#/proc/}
		p=${p%/environ}
		same_root "$p" || continue
		[ -z "$c" ] || [ -e "$c" ] || kill -9 "$p" 2>/dev/null || true
	done
	# munge folders older than a minute whose munged is gone
	for m in $(find /tmp -maxdepth 1 -name 'sweetspot-munge.*' -mmin +1 2>/dev/null); do
		p=$(cat "$m/munged.pid" 2>/dev/null || true)
		[ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = munged ] || rm -rf "$m"
	done
}

# A free block of N TCP ports on this machine, printed as its first port.
free_ports() {
	n=$1
	tries=0
	while [ $tries -lt 50 ]; do
		base=$(( ($(od -An -N2 -tu2 /dev/urandom) % 3000) * 10 + 20000 ))
		used=$(ss -Htan 2>/dev/null | awk '{ sub(/.*:/, "", $4); print $4 }' |
			awk -v b="$base" -v n="$n" '$1 >= b && $1 < b + n' | head -1)
		if [ -z "$used" ]; then
			echo "$base"
			return 0
		fi
		tries=$((tries + 1))
	done
	return 1
}

# Writes $CONF for $K host nodes and their DPUs, munged's socket in $md,
# the daemons on ports from $port, this machine being $host.
write_conf() {
	# Slurm's hostlists cannot say n[1-4]-bf: list the names.
	hosts=$(seq -s, -f 'n%g' 1 "$K")
	dpus=$(seq -s, -f 'n%g-bf' 1 "$K")
	cat >"$CONF" <<EOF
# Written by tests/testbed/slurm-cluster.sh; see there.
ClusterName=sweetspot$port
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$md/munge.sock
MpiDefault=pmix
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
TmpFS=$DIR/tmp/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=4
KillWait=2
InactiveLimit=0
TaskProlog=$DIR/taskprolog.sh
NodeName=$hosts NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1))-$((port + K)) CPUs=$CPUS Feature=host State=UNKNOWN
NodeName=$dpus NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + K + 1))-$((port + 2 * K)) CPUs=$CPUS Feature=dpu State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	# MPI_Init's last fence under Slurm 22.05's default (tree) fence lets
	# ranks go before a slow one has joined it, and Open MPI 4.1 then
	# crashes on their first message (docs/upstream/openmpi-btl-tcp-init-segv.md,
	# tests/bench/fence-race.sh); the ring fence holds them. A site's fix.
	printf '%s\n' "# Written by tests/testbed/slurm-cluster.sh; see there." \
		"PMIxCollFence=ring" >"$(dirname "$CONF")/mpi.conf"
}

up() {
	[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd and munged need it)"
	case $K in [1-9]) ;; *) die "SWEETSPOT_SLURM_NODES must be 1..9" ;; esac
	case $CPUS in [1-9] | [1-5][0-9] | 6[0-4]) ;; *) die "SWEETSPOT_SLURM_CPUS must be 1..64 or nproc" ;; esac
	for p in munged slurmctld slurmd sinfo srun ss; do
		command -v "$p" >/dev/null 2>&1 ||
			die "$p is not installed (run tests/deps.sh)"
	done
	[ ! -e "$CONF" ] || die "$DIR already holds a cluster (slurm-cluster.sh down it first)"
	reap_orphans
	mkdir -p "$DIR/state" "$DIR/spool" "$DIR/tmp" "$DIR/run" "$DIR/log" || return 1

	# munged insists on a socket folder and key that only munge can reach.
	md=$(mktemp -d /tmp/sweetspot-munge.XXXXXX) || return 1
	echo "$md" >"$DIR/munge.dir" || return 1
	dd if=/dev/urandom of="$md/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0400 "$md/munge.key"
	chown -R munge:munge "$md" && chmod 0755 "$md" || return 1
	env "$MARK" runuser -u munge -- munged --socket="$md/munge.sock" \
		--key-file="$md/munge.key" --pid-file="$md/munged.pid" \
		--log-file="$md/munged.log" --seed-file="$md/munged.seed" ||
		{ cat "$md/munged.log" >&2 2>/dev/null; return 1; }

	port=$(free_ports $((2 * K + 2))) || { echo "no free block of TCP ports" >&2; return 1; }
	host=$(hostname)
	cat >"$DIR/taskprolog.sh" <<EOF
#!/bin/sh
# What every task of the test cluster starts with (see slurm-cluster.sh).
echo "export $MARK"
echo "export OMPI_MCA_btl_tcp_if_include=lo"
echo "export OMPI_MCA_oob_tcp_if_include=lo"
if [ "\${SLURM_STEP_NUM_NODES:-1}" -gt 1 ] || [ -n "\${SLURM_HET_SIZE:-}" ]; then
	[ -n "\${OMPI_MCA_btl:-}" ] || echo "export OMPI_MCA_btl=self,tcp"
	[ -n "\${OMPI_MCA_osc:-}" ] || echo "export OMPI_MCA_osc=ucx"
fi
EOF
	chmod 0755 "$DIR/taskprolog.sh"
	write_conf
	for i in $(seq 1 "$K"); do
		mkdir -p "$DIR/spool/n$i" "$DIR/spool/n$i-bf" "$DIR/tmp/n$i" "$DIR/tmp/n$i-bf"
	done
	env "$MARK" slurmctld -c -f "$CONF" || return 1
	for i in $(seq 1 "$K"); do
		env "$MARK" slurmd -f "$CONF" -N "n$i" || return 1
		env "$MARK" slurmd -f "$CONF" -N "n$i-bf" || return 1
	done
	export SLURM_CONF="$CONF"
	# Every node idle comes in well under a second; a minute by the clock,
	# each sinfo given 10 s (one slow to resolve a name cannot hold it).
	wait_until 60 all_idle || { timeout 10 sinfo -N >&2 || true; return 1; }
}

all_idle() {
	[ "$(timeout 10 sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)" -eq $((2 * K)) ]
}

case $cmd in
up)
	if ! up; then
		echo "slurm-cluster.sh: the cluster did not come up; logs:" >&2
		tail -n 20 "$DIR"/log/*.log >&2 2>/dev/null || true
		down || true
		exit 1
	fi
	;;
down)
	down
	;;
conf)
	[ ! -e "$CONF" ] || die "$DIR already holds a slurm.conf"
	mkdir -p "$DIR" && md=$DIR/munge && port=$(free_ports $((2 * K + 2))) && host=$(hostname) &&
		write_conf
	;;
env)
	[ -e "$CONF" ] || die "no cluster in $DIR"
	printf "SLURM_CONF='%s'; export SLURM_CONF\n" "$(printf '%s' "$CONF" | sed "s/'/'\\\\''/g")"
	;;
*)
	usage
	;;
esac
