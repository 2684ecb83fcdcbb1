#!/bin/sh
# tests/cli/plan-cli.t: `sweetspot plan` and `sweetspot generate` as people
# use them: help, exit statuses, JSON totals, bad specs reported as
# file:line with exit 2 and nothing written.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 41
exits_with 0 "plan --help" sweetspot plan --help
like "$TMP/out" '^usage: sweetspot plan SPEC' "plan --help prints usage on stdout"
exits_with 0 "generate --help" sweetspot generate --help
like "$TMP/out" '^usage: sweetspot generate SPEC -o DIR' "generate --help prints usage"
exits_with 2 "plan without a spec" sweetspot plan
exits_with 2 "plan with an unknown option" sweetspot plan --jsn "$ROOT/profiles/paper.cfg"
exits_with 2 "plan of a missing file" sweetspot plan "$TMP/nope.cfg"
like "$TMP/err" 'nope.cfg' "the missing file is named"

exits_with 0 "plan of the paper's sweep" sweetspot plan "$ROOT/profiles/paper.cfg"
like "$TMP/out" '^n8-ppn8-w16-wpn2-dpu +8 +8 +64 +16 +2 dpu +40$' "a layout row for people"
like "$TMP/out" '^15 layouts, 600 points; 3 repetitions: 45 launches, 1800 measurements' "totals for people"
exits_with 0 "plan --json" sweetspot plan --json "$ROOT/profiles/paper.cfg"
like "$TMP/out" '"points":600,"launches":45,' "JSON totals points and launches"
like "$TMP/out" '"layouts":\[\{"id":"n8-ppn8-w1-wpn1-dpu","nodes":8,"ppn":8,"hosts":64,"workers":1,"wpn":1,"ranks":65,"placement":"dpu","points":40\}' \
	"JSON layouts"
is "$(grep -o '"id":' "$TMP/out" | wc -l)" 15 "15 layouts in the JSON"
exits_with 0 "plan of the onload profile" sweetspot plan "$ROOT/profiles/onload.cfg"
exits_with 0 "plan of the local profile" sweetspot plan --json "$ROOT/profiles/local.cfg"
n=$(sed 's/.*"points":\([0-9]*\).*/\1/' "$TMP/out")
ok "the local sweep has at least 20 points ($n)" [ "$n" -ge 20 ]

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
done_testing
