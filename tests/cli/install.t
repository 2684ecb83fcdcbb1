#!/bin/sh
# tests/cli/install.t: `make install PREFIX=...` puts the programs, the
# profiles, the man pages and the bash completion in place, and the
# installed pieces work there: the installed local profile names the
# installed kernel (not ../bin/, which is not there), and the installed
# sweetspot runs one real launch of it with mpirun; results shows the
# points. DESTDIR stages the same files without changing the paths inside.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpirun >/dev/null || skip_all "Open MPI (mpirun) is not installed"
plan 18
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
P=$TMP/usr

exits_with 0 "make install PREFIX=$P" make -C "$ROOT" --no-print-directory install PREFIX="$P"
ok "the programs" test -x "$P/bin/sweetspot" -a -x "$P/bin/sweetspot-kernel"
ok "the profiles" test -f "$P/share/sweetspot/profiles/local.cfg" -a -f "$P/share/sweetspot/profiles/paper.cfg"
ok "sweetspot(1) and sweetspot-kernel(1)" test -f "$P/share/man/man1/sweetspot.1" -a -f "$P/share/man/man1/sweetspot-kernel.1"
ok "sweetspot.cfg(5)" test -f "$P/share/man/man5/sweetspot.cfg.5"
ok "the bash completion" test -f "$P/share/bash-completion/completions/sweetspot"
like "$P/share/sweetspot/profiles/local.cfg" "^[[:space:]]*host_bin = \"$P/bin/sweetspot-kernel\";" \
	"the installed local profile names the installed kernel"
like "$P/share/sweetspot/profiles/paper.cfg" "host_bin = \"/opt/sweetspot/x86_64/bin/sweetspot-kernel\";" \
	"an absolute host_bin is left as it was"
ok "only host_bin changed" sh -c "diff '$ROOT/profiles/local.cfg' '$P/share/sweetspot/profiles/local.cfg' | grep -c '^[<>]' | grep -qx 2"
ok "man finds the installed page" sh -c "MANPATH='$P/share/man' man -w sweetspot.cfg 2>/dev/null | grep -q '$P/share/man/man5/sweetspot.cfg.5' || ! command -v man >/dev/null"

# The installed sweetspot, away from the repository, on the installed profile.
cd "$TMP" || exit 1
exits_with 0 "the installed sweetspot runs the installed profile (one launch)" \
	env PATH="$P/bin:/usr/bin:/bin" "$P/bin/sweetspot" run "$P/share/sweetspot/profiles/local.cfg" \
	--db "$TMP/i.db" --max-launches 1
like "$TMP/err" "^\[1/[0-9]+\] n1-.*: ok" "one launch, ok"
like "$(ls "$TMP"/runs/i-1/*/appfile | head -n 1)" " $P/bin/sweetspot-kernel " "of the installed kernel"
exits_with 0 "results of that run" env PATH="$P/bin:/usr/bin:/bin" "$P/bin/sweetspot" results --db "$TMP/i.db" --csv
valid=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "valid") c = i; next } c && $c == 1' "$TMP/out" | wc -l)
ok "valid points ($valid)" test "$valid" -gt 0

# DESTDIR: the same files under the stage, the paths inside still PREFIX's.
exits_with 0 "make install DESTDIR" make -C "$ROOT" --no-print-directory install PREFIX=/opt/ss DESTDIR="$TMP/stage"
like "$TMP/stage/opt/ss/share/sweetspot/profiles/local.cfg" "host_bin = \"/opt/ss/bin/sweetspot-kernel\";" \
	"the staged profile names the final path, without DESTDIR"
exits_with 0 "make uninstall removes it all" sh -c "make -C '$ROOT' --no-print-directory uninstall PREFIX='$P' && [ -z \"\$(find '$P' -type f)\" ]"
done_testing
