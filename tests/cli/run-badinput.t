#!/bin/sh
# tests/cli/run-badinput.t: `sweetspot run` and `submit` refuse bad input
# with a clear message and exit status 2, and leave the database as it was:
# a missing or broken spec, a database that is not one or is from a newer
# schema, a launcher that is not installed, srun outside an allocation, bad
# options. None of these needs the kernel.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 34

cat >"$TMP/a.cfg" <<EOF
system = {
	name = "t"; nodes = "localhost"; ppn = 2;
	onload = { cores = 2; };
	host_bin = "/bin/true";
	launcher = "mpirun";
};
sweep = {
	collectives = [ "bcast" ]; assignments = [ "block" ]; sizes = "4K";
	wpn = [ 1 ]; workers = [ 1 ]; placement = [ "onload" ];
	iterations = 3; warmup = 1; repetitions = 1; time_limit = 10;
};
EOF
unset SLURM_JOB_ID

exits_with 0 "run --help" sweetspot run --help
like "$TMP/out" '^usage: sweetspot run SPEC' "run usage"
exits_with 2 "no spec" sweetspot run --db "$TMP/x.db"
exits_with 2 "missing spec" sweetspot run "$TMP/none.cfg" --db "$TMP/x.db"
ok "no database created" test ! -e "$TMP/x.db"

printf 'system = { name = "t" \n' >"$TMP/bad.cfg"
exits_with 2 "spec with a syntax error" sweetspot run "$TMP/bad.cfg" --db "$TMP/x.db"
like "$TMP/err" 'bad.cfg:[0-9]+' "file:line"
ok "still no database" test ! -e "$TMP/x.db"

printf 'this is not a database at all, only some text, long enough\n' >"$TMP/junk.db"
cp "$TMP/junk.db" "$TMP/junk.orig"
exits_with 2 "a file that is not a database" sweetspot run "$TMP/a.cfg" --db "$TMP/junk.db"
ok "left untouched" cmp -s "$TMP/junk.db" "$TMP/junk.orig"

sqlite3 "$TMP/newer.db" 'CREATE TABLE runs(id); PRAGMA user_version = 42;'
cp "$TMP/newer.db" "$TMP/newer.orig"
exits_with 2 "a database from a newer schema" sweetspot run "$TMP/a.cfg" --db "$TMP/newer.db"
like "$TMP/err" 'newer sweetspot' "says so"
ok "left untouched" cmp -s "$TMP/newer.db" "$TMP/newer.orig"

if command -v mpirun_rsh >/dev/null; then
	skip "mpirun_rsh is installed here"
	skip "mpirun_rsh is installed here"
else
	exits_with 2 "launcher not installed" sweetspot run "$TMP/a.cfg" --db "$TMP/x.db" --launcher mpirun_rsh
	like "$TMP/err" 'mpirun_rsh is not installed' "names it"
fi
exits_with 2 "srun outside an allocation" sweetspot run "$TMP/a.cfg" --db "$TMP/x.db" --launcher srun
like "$TMP/err" 'inside a Slurm allocation' "says why"
exits_with 0 "a dry run with srun is fine outside an allocation" \
	sweetspot run "$TMP/a.cfg" --db "$TMP/x.db" --launcher srun --dry-run
like "$TMP/out" "^cd .* && SLURM_HOSTFILE=.* srun --mpi=pmix " "and shows the srun command"
exits_with 2 "unknown launcher" sweetspot run "$TMP/a.cfg" --db "$TMP/x.db" --launcher ssh
exits_with 2 "unknown option" sweetspot run "$TMP/a.cfg" --bogus
exits_with 2 "bad --max-launches" sweetspot run "$TMP/a.cfg" --max-launches 0
ok "after all that, no database" test ! -e "$TMP/x.db"

# --dry-run checks the kernel binaries where it can: on this machine.
sed 's|host_bin = .*|host_bin = "'"$TMP"'/no-such-kernel";|' "$TMP/a.cfg" >"$TMP/nobin.cfg"
exits_with 2 "dry run: a missing local host_bin is bad input" \
	sweetspot run "$TMP/nobin.cfg" --db "$TMP/x.db" --dry-run
like "$TMP/err" "host_bin .*/no-such-kernel: no such file on this machine" "names it"
: >"$TMP/not-exec"
sed 's|host_bin = .*|host_bin = "'"$TMP"'/not-exec";|' "$TMP/a.cfg" >"$TMP/noexec.cfg"
exits_with 2 "dry run: a host_bin that is not executable" \
	sweetspot run "$TMP/noexec.cfg" --db "$TMP/x.db" --dry-run
exits_with 0 "dry run: an executable host_bin" sweetspot run "$TMP/a.cfg" --db "$TMP/x.db" --dry-run
like "$TMP/out" "^# host_bin /bin/true: executable here" "is said to be checked"
sed 's|nodes = "localhost"|nodes = "remote[1-2]"|' "$TMP/nobin.cfg" >"$TMP/remote.cfg"
exits_with 0 "dry run: a binary on remote hosts only is not refused" \
	sweetspot run "$TMP/remote.cfg" --db "$TMP/x.db" --dry-run
like "$TMP/out" "^# host_bin .*: cannot check on remote hosts \(remote1" "says it cannot check there"
ok "still no database" test ! -e "$TMP/x.db"

exits_with 0 "submit --help" sweetspot submit --help
exits_with 2 "submit: missing spec" sweetspot submit "$TMP/none.cfg" --db "$TMP/x.db"
exits_with 2 "submit: bad --chunks" sweetspot submit "$TMP/a.cfg" --chunks 0

done_testing
