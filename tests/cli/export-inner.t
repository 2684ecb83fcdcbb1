#!/bin/sh
# tests/cli/export-inner.t: an exported algorithm that calls other
# collectives inside runs them as it did when measured. Allreduce
# nonoverlapping (2) is a reduce then a bcast through the communicator;
# `baseline` measured it with those at Open MPI's own decision. When the
# same rules give bcast an algorithm of its own (binomial, 6) at that size,
# the export gives allreduce its runner-up instead (ring, 4), says so, and
# Open MPI under the rules moves the bytes ring moves when forced; when
# bcast's measured best is Open MPI's own choice, nonoverlapping stays.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc >/dev/null || skip_all "mpicc is not installed"
command -v ompi_info >/dev/null || skip_all "ompi_info is not installed"
[ -x "$BIN/sweetspot-loop" ] || skip_all "sweetspot-loop is not built"
plan 7
BYTES=65536
# rec COLL ALG US: one kernel record on 4 ranks at BYTES.
rec() {
	a="tuned:$2"; [ "$2" = 0 ] && a=default
	printf '{"schema":1,"mode":"mpi","iterations":3,"warmup":1,"ranks":4,"hosts":4,"workers":0,"nodes":1,"ppn":4,"transport":"mpi","device":"","collective":"%s","algorithm":"%s","bytes":%s,"total_us":%s,"total_us_median":%s,%s"valid":true,"rank_hosts":[]}\n' \
		"$1" "$a" $BYTES "$3" "$3" "$(case $1 in *reduce) echo '"dtype":"int32","op":"sum",';; esac)"
}
# traffic NAME MPIRUN-ARGS...: one 64K allreduce's per-rank traffic.
traffic() {
	name=$1; shift
	rm -f "$TMP"/mon.*
	mpirun_local -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$BIN/sweetspot-loop" --once -c allreduce -m $BYTES 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof 2>/dev/null | awk -F'\t' '$1 == "I" { print $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ]
}

{ rec allreduce 0 30; rec allreduce 2 10; rec allreduce 4 12; rec allreduce 3 40
  rec bcast 0 20; rec bcast 6 5; rec bcast 1 30; } >"$TMP/conflict.jsonl"
exits_with 0 "export: allreduce nonoverlapping beside a bcast rule" \
	sweetspot export --format ompi-rules --records "$TMP/conflict.jsonl" -o "$TMP/rules"
like "$TMP/err" "allreduce 4 ranks 65536 B: nonoverlapping \(2\) calls bcast inside, which these rules give binomial \(6\).*exporting ring \(4\) instead" \
	"the export says why nonoverlapping is not exported"
like "$TMP/rules" '^0 4 ' "the allreduce rule is ring (4)"
ok "traffic under the rules" traffic rules.t --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$TMP/rules"
ok "traffic with ring forced" traffic ring.t --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4
ok "the same: the runtime runs what was measured" cmp -s "$TMP/rules.t" "$TMP/ring.t"

{ rec allreduce 0 30; rec allreduce 2 10; rec allreduce 4 12; rec bcast 0 5; rec bcast 6 20; } >"$TMP/free.jsonl"
sweetspot export --format ompi-rules --records "$TMP/free.jsonl" -o "$TMP/rules2" 2>"$TMP/err2"
like "$TMP/rules2" '^0 2 ' "bcast at Open MPI's own choice: nonoverlapping stays"
done_testing
