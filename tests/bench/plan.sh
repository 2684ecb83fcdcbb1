#!/bin/sh
# tests/bench/plan.sh: plan + generate at the scale of the largest machines.
#   10k:    10,000 nodes x 8 PPN, 8 workers on each of 9,999 DPUs (159,992 ranks)
#   fugaku: 160,000 nodes x 48 PPN, 4 workers on each of 160,000 DPUs
#           (8,320,000 ranks; Fugaku has 158,976 nodes), with the spec's
#           launcher mpirun (hostfile, appfile, a 240 MB rankfile) and srun
#           (slurm.hostfile, 68 MB)
# Each command is timed by bash's `time` (wall, CPU = user + sys, to the
# millisecond: the copy of srun's output takes some 20 ms, too short for
# GNU time's 10 ms steps), and each generate output is copied (cp -r) right
# after it, in the same run: generate's time is reported as a ratio to the
# copy of its own output (target: at most 3x), plan's and generate's peak
# resident memory (GNU time, in a run of its own) against 256 MiB, plan's
# time against 1 s. ROUNDS runs (default 5), interleaved; medians with
# min-max. The machine may be shared: wall time counts waiting for a core,
# CPU time does not, so both are printed.
# Run under `flock /tmp/sweetspot-heavy.lock` on a shared machine.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
ROUNDS=${ROUNDS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "plan.sh: GNU time is not installed (package time)" >&2; exit 1; }
command -v bash >/dev/null || { echo "plan.sh: bash is not installed" >&2; exit 1; }
S=$ROOT/bin/sweetspot

# spec FILE NODES PPN WPN WORKERS LAUNCHER
spec() {
	cat >"$1" <<CFG
system = {
	name = "big";
	nodes = "n[$2]";
	ppn = $3;
	dpu = { suffix = "-bf"; cores = 8; };
	host_bin = "/opt/x86/sweetspot-kernel";
	dpu_bin = "/opt/arm/sweetspot-kernel";
	launcher = "$6";
};
sweep = {
	collectives = [ "bcast", "gather", "allgather" ];
	assignments = [ "block", "cyclic", "locality" ];
	sizes = "256K:4M";
	wpn = [ $4 ];
	workers = [ $5 ];
	placement = [ "dpu" ];
};
CFG
}
spec "$TMP/10k.cfg" 00001-10000 8 8 79992 mpirun
spec "$TMP/fugaku.cfg" 000001-160000 48 4 640000 mpirun
spec "$TMP/fugaku-srun.cfg" 000001-160000 48 4 640000 srun

# timed NAME COMMAND...: appends "NAME wall cpu" to $TMP/rows.
timed() {
	name=$1; shift
	bash -c 'TIMEFORMAT="%3R %3U %3S"; time "$@" >"$0/out" 2>"$0/err"' "$TMP" "$@" \
		2>"$TMP/time" || { echo "plan.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
	read -r wall usr sys <"$TMP/time"
	awk -v n="$name" -v w="$wall" -v u="$usr" -v s="$sys" \
		'BEGIN { printf "%s %.3f %.3f\n", n, w, u + s }' >>"$TMP/rows"
}

# peak NAME COMMAND...: appends "NAME.peak - - MiB" to $TMP/rows.
peak() {
	name=$1; shift
	"$TIME" -f '%M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" ||
		{ echo "plan.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
	awk -v n="$name" '{ printf "%s.peak - - %.1f\n", n, $1 / 1024 }' "$TMP/time" >>"$TMP/rows"
}

: >"$TMP/rows"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for c in 10k fugaku fugaku-srun; do
		timed "$c.plan" "$S" plan "$TMP/$c.cfg"
		peak "$c.plan" "$S" plan "$TMP/$c.cfg"
		rm -rf "$TMP/out.d" "$TMP/copy.d"
		timed "$c.generate" "$S" generate "$TMP/$c.cfg" -o "$TMP/out.d"
		timed "$c.copy" cp -r "$TMP/out.d" "$TMP/copy.d"
		du -sm "$TMP/out.d" | awk -v c="$c" '{ print c ".size " $1 }' >>"$TMP/sizes"
		rm -rf "$TMP/out.d" "$TMP/copy.d"
		peak "$c.generate" "$S" generate "$TMP/$c.cfg" -o "$TMP/out.d"
		rm -rf "$TMP/out.d"
	done
	r=$((r + 1))
done

# stat NAME FIELD [DECIMALS]: "median (min-max)" of a column over the rounds.
stat() {
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$TMP/rows" | sort -g |
		awk -v d="${3:-3}" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.*f (%.*f-%.*f)", d, m, d, v[1], d, v[NR] }'
}
# ratio CASE FIELD: generate / copy of each round, "median (min-max)"; a
# copy under 5 ms (the small case's) is too short to divide by.
ratio() {
	if awk -v c="$1.copy" -v f="$2" '$1 == c && $f < 0.005 { low = 1 } END { exit !low }' "$TMP/rows"; then
		printf 'n/a (the copy takes under 5 ms)'
		return
	fi
	awk -v g="$1.generate" -v c="$1.copy" -v f="$2" '$1 == g { a[++i] = $f } $1 == c { b[++j] = $f }
		END { for (k = 1; k <= i; k++) print a[k] / b[k] }' "$TMP/rows" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.1fx (%.1f-%.1f)", m, v[1], v[NR] }'
}

echo "plan + generate, $ROUNDS rounds: median (min-max); targets: plan < 1 s, generate <= 3x the copy"
echo "of its own output, peak memory < 256 MiB; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in 10k fugaku fugaku-srun; do
	case $c in
	10k) what="10,000 nodes x 8 PPN + 79,992 DPU workers (159,992 ranks), mpirun" ;;
	fugaku) what="160,000 nodes x 48 PPN + 640,000 DPU workers (8,320,000 ranks), mpirun" ;;
	fugaku-srun) what="the same, srun" ;;
	esac
	echo "$what: output $(awk -v c="$c.size" '$1 == c { print $2; exit }' "$TMP/sizes") MB"
	echo "  plan      wall $(stat "$c.plan" 2) s  cpu $(stat "$c.plan" 3) s  peak $(stat "$c.plan.peak" 4 1) MiB"
	echo "  generate  wall $(stat "$c.generate" 2) s  cpu $(stat "$c.generate" 3) s  peak $(stat "$c.generate.peak" 4 1) MiB"
	echo "  cp -r     wall $(stat "$c.copy" 2) s  cpu $(stat "$c.copy" 3) s"
	echo "  generate / copy: wall $(ratio "$c" 2)  cpu $(ratio "$c" 3)"
done
