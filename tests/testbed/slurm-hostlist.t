#!/bin/sh
# tests/testbed/slurm-hostlist.t: the step node lists `sweetspot generate`
# writes into srun's line (SLURM_JOB_NODELIST, SLURM_NODELIST), read by
# Slurm itself: `scontrol show hostnames` with the testbed's slurm.conf
# (slurm-cluster.sh conf: no daemon is started, scontrol reads lists on its
# own) must expand each to exactly the distinct hosts of slurm.hostfile,
# once each, in Slurm's sorted order (its hostlistsorted changes nothing),
# at 10,000 nodes with DPUs (the issue's names, node[00001-10000] and their
# -bf), 100,000 nodes, and an irregular list given out of order.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v scontrol >/dev/null || skip_all "Slurm's client is not installed (tests/deps.sh)"
plan 15

sh "$ROOT/tests/testbed/slurm-cluster.sh" conf "$TMP/cluster" >/dev/null
SLURM_CONF=$TMP/cluster/slurm.conf
export SLURM_CONF

# spec NAME NODES PPN PLACEMENT-GROUP PLACEMENT WPN WORKERS
spec() {
	cat >"$TMP/$1.cfg" <<CFG
system = {
	name = "$1"; nodes = "$2"; ppn = $3; $4
	host_bin = "/opt/x86/k"; dpu_bin = "/opt/arm/k"; launcher = "srun";
};
sweep = { collectives = [ "bcast" ]; assignments = [ "block" ]; sizes = "1M"; wpn = [ $6 ]; workers = [ $7 ]; placement = [ "$5" ]; };
CFG
}

# check NAME: generate, then Slurm reads the list of the one layout's srun line.
check() {
	rm -rf "$TMP/$1"
	exits_with 0 "generate $1" sweetspot generate "$TMP/$1.cfg" -o "$TMP/$1"
	d=$(awk -F'\t' 'NR == 2 { print $10 }' "$TMP/$1/layouts.tsv")
	list=$(sed -n "s/.* SLURM_JOB_NODELIST='\{0,1\}\([^' ]*\)'\{0,1\} SLURM_NODELIST=.*/\1/p" "$d/commands")
	diag "$1: SLURM_JOB_NODELIST is $(printf %s "$list" | wc -c) bytes: $(printf %s "$list" | cut -c1-100)"
	awk '!seen[$0]++' "$d/slurm.hostfile" | sort >"$TMP/want"
	scontrol show hostnames "$list" >"$TMP/got" 2>"$TMP/err"
	if [ -s "$TMP/want" ] && sort "$TMP/got" | cmp -s - "$TMP/want" &&
		[ "$(wc -l <"$TMP/got")" -eq "$(wc -l <"$TMP/want")" ]; then
		pass "$1: scontrol expands it to the step's $(wc -l <"$TMP/want") nodes, each once"
	else
		fail "$1: scontrol expands it to the step's nodes, each once"
		head -3 "$TMP/err" "$TMP/got" | sed 's/^/# /'
	fi
	# Sorted by Slurm, it is the same list: Slurm's ranged string of it
	# sorted and unsorted agree (Slurm writes n[1-100000] for either,
	# which it cannot read back, so the strings are compared).
	a=$(scontrol show hostlistsorted "$list" 2>&1)
	b=$(scontrol show hostlist "$list" 2>&1)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "$1: in Slurm's sorted order"; else
		fail "$1: in Slurm's sorted order"; diag "sorted: $(echo "$a" | cut -c1-200)"; diag "as given: $(echo "$b" | cut -c1-200)"; fi
}

spec big10k 'node[00001-10000]' 8 'dpu = { suffix = "-bf"; cores = 8; };' dpu 8 79992
check big10k
is "$(printf %s "$list" | cut -c1-31)" "node[00001-10000],node00001-bf," \
	"... the nodes ranged, the DPUs one by one (Slurm 22.05 reads no n[1-9]-bf)"

spec big100k 'node[000001-100000]' 8 'onload = { cores = 1; };' onload 1 100000
check big100k
is "$list" "node[000001-065536,065537-100000]" "... ranges of at most 65,536 hosts, as Slurm reads them"

# Out of order, mixed widths, names without numbers: the list follows
# Slurm's sort, not the spec's order.
spec odd 'z9,a[10,2],gpu-x,rack3n[07-09],c1' 2 'dpu = { suffix = "-bf"; cores = 2; };' dpu 1 7
check odd
# (Slurm's sort: a prefix, then the number at the end; "a2-bf" has none.)
is "$list" "a[2,10],a2-bf,a10-bf,c1,gpu-x,gpu-x-bf,rack3n[07-09],rack3n07-bf,rack3n08-bf,rack3n09-bf,z9,z9-bf" \
	"... Slurm's order of an irregular list"

# 100,000 nodes and their DPUs: listed one by one the DPUs would be 1.2 MB
# (no program starts with that: E2BIG), so they are ranged too, which Slurm
# reads from 23.11 on.
spec big100kdpu 'node[000001-100000]' 8 'dpu = { suffix = "-bf"; cores = 8; };' dpu 1 100000
exits_with 0 "generate 100,000 nodes and DPUs" sweetspot generate "$TMP/big100kdpu.cfg" -o "$TMP/big100kdpu"
d=$(awk -F'\t' 'NR == 2 { print $10 }' "$TMP/big100kdpu/layouts.tsv")
like "$d/commands" "SLURM_JOB_NODELIST='node\[000001-065536,065537-100000\],node\[000001-065536,065537-100000\]-bf'" \
	"... its list is 70 bytes"
if [ "$(scontrol show hostnames 'n[1-2]-bf' 2>/dev/null | tr '\n' ' ')" = "n1-bf n2-bf " ]; then
	list="node[000001-065536,065537-100000],node[000001-065536,065537-100000]-bf"
	is "$(scontrol show hostnames "$list" | wc -l)" 200000 "... and this Slurm expands it to 200,000 nodes"
else
	skip "this Slurm ($(scontrol --version)) reads no range with a suffix; 23.11 on does"
fi
done_testing
