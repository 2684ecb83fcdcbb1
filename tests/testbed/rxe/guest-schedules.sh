#!/bin/sh
# tests/testbed/rxe/guest-schedules.sh: the guest's half of
# tests/bench/schedules.sh, run inside the Soft-RoCE guest (rxe0 on lo):
# the sweep of tests/bench/schedules.cfg with transport verbs (data over
# rxe0, MPI over TCP on lo for control only), by `sweetspot run`, into a
# database in the guest's /tmp (SQLite's locking does not work over the
# 9p share), copied to /out/verbs.db when the sweep ends, with its spec as
# /out/verbs.cfg, which the host side then reports. Exit status: the
# sweep's, or 1 when the copy fails.
# Soft-RoCE under TCG moves a few tens of MB/s: one launch of the 1M and
# 4M sweep did not end in 15 minutes (9 of 16 points), so the guest
# measures 256K with 3 iterations; the schedules' shapes are the same,
# only the sizes differ from the issue's.
SPEC=/out/verbs.cfg
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -e "s|\"../../bin/sweetspot-kernel\"|\"$SWEETSPOT_ROOT/bin/sweetspot-kernel\"|" \
	-e 's|transport = "rma";|transport = "verbs";|' \
	-e 's|sizes = \[ "1M", "4M" \];|sizes = [ "256K" ];|' -e 's|iterations = 5;|iterations = 3;|' \
	-e 's|time_limit = 900;|time_limit = 600;|' \
	-e 's|launcher = "mpirun";|launcher = "mpirun";\n\tenv = [ "OMPI_MCA_pml=ob1", "OMPI_MCA_btl=self,vader,tcp", "OMPI_MCA_osc=pt2pt", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo" ];|' \
	"$SWEETSPOT_ROOT/tests/bench/schedules.cfg" >"$SPEC"
echo "# guest: $(uname -r), $(nproc) cpus"
mkdir -p /tmp/schedules || exit 1
timeout -k 5 2700 "$SWEETSPOT_ROOT/bin/sweetspot" run "$SPEC" --db /tmp/schedules/verbs.db >&2
rc=$?
cp /tmp/schedules/verbs.db /out/verbs.db || exit 1
exit $rc
