#!/bin/sh
# tests/testbed/rxe/guest-schedules.sh: the guest's half of
# tests/bench/schedules.sh, run inside the Soft-RoCE guest (rxe0 on lo):
# the sweep of tests/bench/schedules.cfg with transport verbs (data over
# rxe0, MPI over TCP on lo for control only), by `sweetspot run`, into
# /out/verbs.db with its spec as /out/verbs.cfg, which the host side then
# reports. Exit status: the sweep's.
SPEC=/out/verbs.cfg
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -e "s|\"../../bin/sweetspot-kernel\"|\"$SWEETSPOT_ROOT/bin/sweetspot-kernel\"|" \
	-e 's|transport = "rma";|transport = "verbs";|' \
	-e 's|launcher = "mpirun";|launcher = "mpirun";\n\tenv = [ "OMPI_MCA_pml=ob1", "OMPI_MCA_btl=self,vader,tcp", "OMPI_MCA_osc=pt2pt", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo" ];|' \
	"$SWEETSPOT_ROOT/tests/bench/schedules.cfg" >"$SPEC"
echo "# guest: $(uname -r), $(nproc) cpus"
timeout -k 5 2700 "$SWEETSPOT_ROOT/bin/sweetspot" run "$SPEC" --db /out/verbs.db >&2
