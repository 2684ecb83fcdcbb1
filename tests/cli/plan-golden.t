#!/bin/sh
# tests/cli/plan-golden.t: generated files byte for byte against golden
# copies (the paper's Figure 2 layout; DPU-Bench's published block
# broadcast with 16 workers), DPU-Bench's own shapes, and every srun file
# of the paper's sweep checked the way srun reads it.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 25
files="hostfile appfile rankfile hostfile.mvapich config slurm.hostfile multi-prog.conf commands"
for name in figure2 dpubench; do
	out=$TMP/$name
	exits_with 0 "generate $name" sweetspot generate "$ROOT/tests/data/specs/$name.cfg" -o "$out" --launcher all
	id=$(awk -F'\t' 'NR == 2 { print $1 }' "$out/layouts.tsv")
	for f in $files; do
		sed "s|$out|DIR|g" "$out/$id/$f" >"$TMP/got"
		if cmp -s "$TMP/got" "$ROOT/tests/data/golden/$name/$f"; then pass "$name $f"; else
			fail "$name $f"; diff "$ROOT/tests/data/golden/$name/$f" "$TMP/got" | sed 's/^/# /' | head -20; fi
	done
done
sed "s|$TMP/dpubench|DIR|g" "$TMP/dpubench/layouts.tsv" >"$TMP/got"
ok "layouts.tsv" cmp -s "$TMP/got" "$ROOT/tests/data/golden/dpubench/layouts.tsv"

# DPU-Bench's shapes: hosts first, "host:N" lines, "-n N : binary -w W -m bytes".
d=$TMP/dpubench/n8-ppn8-w16-wpn2-dpu
is "$(head -1 "$d/hostfile.mvapich") $(tail -1 "$d/hostfile.mvapich")" "thor001:8 thorbf008:2" \
	"hostfile.mvapich runs thor001:8 .. thorbf008:2"
like "$d/config" '^-n 64 : /tmp/x86/sweetspot-kernel -w 16 -m 1048576( |$)' "config: -n 64 : <host bin> -w 16 -m 1048576"
like "$d/config" '^-n 16 : /tmp/arm/sweetspot-kernel -w 16 -m 1048576( |$)' "config: -n 16 : <dpu bin> -w 16 -m 1048576"

# srun's view of every layout of the paper's sweep.
exits_with 0 "generate the paper's sweep" sweetspot generate "$ROOT/profiles/paper.cfg" -o "$TMP/paper" --launcher all
bad=0
while IFS='	' read -r id nodes ppn hosts workers wpn placement ranks points dir; do
	[ "$id" = id ] && continue
	"$ROOT/tests/lib/check-srun-files" "$ranks" "$dir/slurm.hostfile" "$dir/multi-prog.conf" >"$TMP/chk" ||
		{ bad=1; sed 's/^/# /' "$TMP/chk"; }
done <"$TMP/paper/layouts.tsv"
is "$bad" 0 "every rank once in every multi-prog.conf and slurm.hostfile of the sweep"
printf '0-3 a\n3 b\n' >"$TMP/mp"
printf 'h\nh\nh\nh\n' >"$TMP/hf"
exits_with 1 "the checker itself catches a rank given twice" "$ROOT/tests/lib/check-srun-files" 4 "$TMP/hf" "$TMP/mp"
done_testing
