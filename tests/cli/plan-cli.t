#!/bin/sh
# tests/cli/plan-cli.t: `sweetspot plan` and `sweetspot generate` as people
# use them: help, exit statuses, JSON totals, bad specs reported as
# file:line with exit 2 and nothing written. And what every command that
# reads its options through tuner/cmd/cli.h shares: --help on stdout, exit 0,
# naming in its options every option its synopsis shows; `sweetspot help
# COMMAND` the same; an unknown option exit 2, named, with the way to --help.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 92
exits_with 0 "plan --help" sweetspot plan --help
like "$TMP/out" '^usage: sweetspot plan SPEC' "plan --help prints usage on stdout"
exits_with 0 "generate --help" sweetspot generate --help
like "$TMP/out" '^usage: sweetspot generate SPEC -o DIR' "generate --help prints usage"
exits_with 2 "plan without a spec" sweetspot plan
exits_with 2 "plan with an unknown option" sweetspot plan --jsn "$ROOT/profiles/paper.cfg"
like "$TMP/err" "^sweetspot plan: unknown option '--jsn'" "says which option"
exits_with 2 "generate: -o without its value" sweetspot generate "$ROOT/profiles/paper.cfg" -o
like "$TMP/err" "^sweetspot generate: --output needs a value \(DIR\)" "says which value is missing"
exits_with 2 "plan of a missing file" sweetspot plan "$TMP/nope.cfg"
like "$TMP/err" 'nope.cfg' "the missing file is named"

exits_with 0 "plan of the paper's sweep" sweetspot plan "$ROOT/profiles/paper.cfg"
like "$TMP/out" '^n8-ppn8-w16-wpn2-dpu +8 +8 +64 +16 +2 dpu +40$' "a layout row for people"
like "$TMP/out" '^37 layouts, 1480 points; 3 repetitions: 111 launches, 4440 measurements' "totals for people"
exits_with 0 "plan --json" sweetspot plan --json "$ROOT/profiles/paper.cfg"
like "$TMP/out" '"points":1480,"launches":111,' "JSON totals points and launches"
like "$TMP/out" '"layouts":\[\{"id":"n8-ppn8-w1-wpn1-dpu","nodes":8,"ppn":8,"hosts":64,"workers":1,"wpn":1,"ranks":65,"placement":"dpu","points":40,"point_list":\[\{"collective":"bcast","algorithm":"direct","assignment":"block","bytes":262144,"dtype":null,"op":null,"chunk":null,"window":null,"radix":null,"cost":\{"ops":64,"steps":2,' \
	"JSON layouts"
is "$(grep -o '"id":' "$TMP/out" | wc -l)" 37 "37 layouts in the JSON"
exits_with 0 "plan of the onload profile" sweetspot plan "$ROOT/profiles/onload.cfg"
exits_with 0 "plan of the local profile" sweetspot plan --json "$ROOT/profiles/local.cfg"
n=$(sed 's/.*"points":\([0-9]*\).*/\1/' "$TMP/out")
ok "the local sweep has at least 20 points ($n)" [ "$n" -ge 20 ]

# The spec takes scan's schedule among workers by name, and the costs are
# its schedule's: 32 hosts, 16 workers (2 hosts each): chain passes the
# prefix down 16 workers (read, 15 hops, write: 17 steps); recdbl reads, 4
# rounds, its 2 hosts' results in order (7; exscan's E adds one), with
# more operations and bytes.
cat >"$TMP/scan.cfg" <<'CFG'
system = {
	name = "t"; nodes = "n[01-04]"; ppn = 8;
	dpu = { suffix = "-bf"; cores = 8; };
	host_bin = "/bin/k"; dpu_bin = "/arm/k";
};
sweep = {
	collectives = [ "scan", "exscan" ]; algorithms = [ "chain", "recdbl" ];
	assignments = [ "block" ]; sizes = "64K"; dtypes = [ "double" ]; ops = [ "sum" ];
	placement = [ "dpu" ]; wpn = [ 4 ]; workers = [ 16 ];
};
CFG
exits_with 0 "plan --json of scan and exscan, chain and recdbl" sweetspot plan --json "$TMP/scan.cfg"
is "$(grep -o '"collective":"[a-z]*","algorithm":"[a-z]*"\|"ops":[0-9]*,"steps":[0-9]*' "$TMP/out" | paste -d' ' - - | tr '\n' ';')" \
	'"collective":"scan","algorithm":"chain" "ops":79,"steps":17;"collective":"scan","algorithm":"recdbl" "ops":128,"steps":7;"collective":"exscan","algorithm":"chain" "ops":78,"steps":17;"collective":"exscan","algorithm":"recdbl" "ops":127,"steps":8;' \
	"  ... recdbl's steps are log2 of the workers', chain's linear"

# alltoall's schedule among workers likewise: 4 nodes of 8 hosts, a DPU
# each (locality), 1K blocks: pairwise's 3 worker rounds of a message per
# step against direct's 32 pairwise rounds of a read and a write.
sed 's/"scan", "exscan" ]; algorithms = \[ "chain", "recdbl" \]/"alltoall" ]; algorithms = [ "direct", "pairwise" ]/;
	s/"block" ]; sizes = "64K"; dtypes = \[ "double" \]; ops = \[ "sum" \]/"locality" ]; sizes = "1K"/;
	s/wpn = \[ 4 \]; workers = \[ 16 \]/wpn = [ 1 ]; workers = [ 4 ]/' "$TMP/scan.cfg" >"$TMP/a2a.cfg"
exits_with 0 "plan --json of alltoall, direct and pairwise" sweetspot plan --json "$TMP/a2a.cfg"
is "$(grep -o '"algorithm":"[a-z]*"\|"ops":[0-9]*,"steps":[0-9]*' "$TMP/out" | paste -d' ' - - | tr '\n' ';')" \
	'"algorithm":"direct" "ops":2048,"steps":32;"algorithm":"pairwise" "ops":2096,"steps":17;' \
	"  ... their costs, from their schedules"

# Bad specs: file:line, exit 2, and generate writes nothing.
cat >"$TMP/bad.cfg" <<'CFG'
system = {
	name = "t";
	nodes = "n[01-04]";
	ppn = 4;
	dpu = { suffix = "-bf"; cores = 4; };
	host_bin = "/bin/k";
	dpu_bin = "/arm/k";
};
sweep = {
	collectives = [ "bcast" ];
	assignments = [ "block" ];
	sizes = "1M";
	placement = [ "dpu" ];
	wpn = [ 1 ];
	workers = [ 8 ];
};
CFG
exits_with 2 "a broken rule" sweetspot plan "$TMP/bad.cfg"
like "$TMP/err" "bad.cfg:15: 'sweep.workers' 8 is used by no layout: .*\(W <= WPN x nodes\)" "file:line and the rule"
exits_with 2 "generate of the same spec" sweetspot generate "$TMP/bad.cfg" -o "$TMP/gen"
ok "generate wrote nothing" [ ! -e "$TMP/gen" ]
sed 's/workers = \[ 8 \]/workers = [ 2 ]/; s/"block"/"blok"/' "$TMP/bad.cfg" >"$TMP/bad2.cfg"
exits_with 2 "an unknown assignment" sweetspot generate "$TMP/bad2.cfg" -o "$TMP/gen"
like "$TMP/err" "bad2.cfg:11: 'sweep.assignments': unknown value 'blok'; did you mean 'block'\?" "named, with a suggestion"
ok "generate wrote nothing" [ ! -e "$TMP/gen" ]
sed 's/workers = \[ 8 \]/workers = [ 2 ]/; s/nodes = "n\[01-04\]"/nodes = "n[01-04];reboot"/' "$TMP/bad.cfg" >"$TMP/bad3.cfg"
exits_with 2 "a host name with ';'" sweetspot generate "$TMP/bad3.cfg" -o "$TMP/gen"
like "$TMP/err" "bad3.cfg:3: 'system.nodes': host name 'n01;reboot' has ';'" "refused before anything runs"
printf 'system = {\n name = "t"\n' >"$TMP/syntax.cfg"
exits_with 2 "a syntax error" sweetspot plan "$TMP/syntax.cfg"
like "$TMP/err" 'syntax.cfg:3: syntax error' "libconfig's line and text"

# generate: output folder rules, --launcher, --layout.
sed 's/workers = \[ 8 \]/workers = [ 2, 4 ]/' "$TMP/bad.cfg" >"$TMP/good.cfg"
exits_with 0 "generate" sweetspot generate "$TMP/good.cfg" -o "$TMP/gen"
is "$(ls "$TMP/gen" | tr '\n' ' ')" "layouts.tsv n4-ppn4-w2-wpn1-dpu n4-ppn4-w4-wpn1-dpu " "one folder per layout"
exits_with 2 "generate over an existing output" sweetspot generate "$TMP/good.cfg" -o "$TMP/gen"
exits_with 0 "generate --force replaces it" sweetspot generate "$TMP/good.cfg" -o "$TMP/gen" --force
exits_with 0 "generate --launcher srun" sweetspot generate "$TMP/good.cfg" -o "$TMP/srun" --launcher srun
is "$(ls "$TMP/srun/n4-ppn4-w2-wpn1-dpu" | tr '\n' ' ')" "commands multi-prog.conf slurm.hostfile " "only srun's files"
exits_with 2 "generate --launcher pbs" sweetspot generate "$TMP/good.cfg" -o "$TMP/x" --launcher pbs
exits_with 0 "generate --layout ID" sweetspot generate "$TMP/good.cfg" -o "$TMP/one" --layout n4-ppn4-w4-wpn1-dpu
is "$(ls "$TMP/one" | tr '\n' ' ')" "layouts.tsv n4-ppn4-w4-wpn1-dpu " "only that layout"
exits_with 2 "generate --layout of no layout" sweetspot generate "$TMP/good.cfg" -o "$TMP/x" --layout n9
# Open MPI drops the values of "-x NAME=value" given with --app: the people's
# command sets them in the environment and passes the names only.
cat >"$TMP/env.cfg" <<'CFG'
system = { name = "e"; nodes = "localhost"; ppn = 4; onload = { cores = 2; };
  host_bin = "/bin/true"; launcher = "mpirun"; env = [ "OMPI_MCA_osc=ucx" ]; };
sweep = { collectives = ["bcast"]; assignments = ["block"]; sizes = "4K";
  wpn = [1]; placement = ["onload"]; };
CFG
exits_with 0 "generate with env" sweetspot generate "$TMP/env.cfg" -o "$TMP/env"
like "$TMP/env/n1-ppn4-w1-wpn1-onload/commands" '^OMPI_MCA_osc=ucx mpirun .* -x OMPI_MCA_osc --hostfile' "env values set before mpirun, names after -x"

# Every command on cli: its help and its parser come from one table.
for c in plan generate results export plot submit recommend; do
	exits_with 0 "$c --help" sweetspot $c --help
	sed -n '/^usage:/,/^$/p' "$TMP/out" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/synopsis"
	sed -n '/^Options:/,/^$/p' "$TMP/out" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/options"
	ok "$c: every option of the synopsis is listed, so the parser knows it" \
		test -s "$TMP/options" -a -z "$(comm -23 "$TMP/synopsis" "$TMP/options")"
	sweetspot help $c >"$TMP/help-$c" 2>&1
	ok "$c: 'sweetspot help $c' is the same text" cmp -s "$TMP/out" "$TMP/help-$c"
	exits_with 2 "$c with an unknown option" sweetspot $c --no-such-option
	like "$TMP/err" "^sweetspot $c: unknown option '--no-such-option'" "$c names it"
	ok "$c points to --help" grep -q "sweetspot $c --help" "$TMP/err"
done
exits_with 0 "sweetspot --help" sweetspot --help
is "$(sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$TMP/out" | tr '\n' ' ')" \
	"init plan generate run submit results search recommend baseline model export verify plot report " \
	"lists every command, in the order of the workflow"
done_testing
