/*
 * kernels/main.c: sweetspot-kernel, the MPMD benchmark program. Options are
 * parsed before MPI_Init by every rank; a bad one is reported once, by
 * rank 0, and every rank exits 2 before any communication. Exit status: 0 every point valid, 1 a point failed
 * validation or a transport failed, 2 bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "modes.h"
#include "options.h"

/* Our rank before MPI_Init, from the launcher's environment (0 if none):
 * only that rank prints --help and --version. */
static int env_rank(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL
	};

	for (int i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return atoi(v);
	}
	return 0;
}

/* Bad input: rank 0 says why, every rank leaves with 2. MPI_Init and
 * MPI_Finalize bracket it (no communication of ours) because a launcher
 * ends the whole job at the first nonzero exit: a rank leaving early could
 * cut rank 0 off before its message is out. */
static int usage_error(int mpi_up, const char *msg)
{
	int rank = 0;

	if (!mpi_up)
		MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		fprintf(stderr, "sweetspot-kernel: %s\n", msg);
		fflush(stderr);
	}
	MPI_Finalize();
	return 2;
}

int main(int argc, char **argv)
{
	struct kopts o;
	struct hostinfo hi = { NULL, 0, NULL };
	struct runinfo ri;
	char err[320], transport[8];
	int erank = env_rank(), rank, size, ret, verbs_here = 0, most = 0, open_ok = 1;
	FILE *out = NULL;

	if (kopts_parse(argc, argv, &o, err, sizeof(err)))
		return usage_error(0, err);
	if (o.help) {
		if (erank == 0)
			fputs(kopts_usage_text, stdout);
		return 0;
	}
	if (o.version) {
		if (erank == 0)
			printf("sweetspot-kernel %s\n", SWEETSPOT_VERSION);
		return 0;
	}
	if (kopts_parse_faults(getenv("SWEETSPOT_FAULT"), &o.faults, err, sizeof(err)))
		return usage_error(0, err);
	if (o.mode != MODE_MPI && strcmp(o.transport, "rma")) {
		verbs_here = transport_verbs_available();
		if (!strcmp(o.transport, "verbs")) {
			if (!verbs_here)
				return usage_error(0, "--transport verbs: no RDMA device with an active port here (try --transport rma)");
			if (!transport_registered("verbs"))
				return usage_error(0, "--transport verbs: this build has no verbs backend");
		}
	}
	/* Short sleeps in the waiting loops should be short. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (kopts_check_size(&o, size, err, sizeof(err)))
		return usage_error(1, err);
	if (rank == 0 && o.output && !(out = fopen(o.output, "w"))) {
		snprintf(err, sizeof(err), "cannot write %s: %s", o.output, strerror(errno));
		open_ok = 0;
	}
	MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!open_ok)
		return usage_error(1, err);
	if (rank == 0 && !out)
		out = stdout;
	/* auto: verbs only where every rank has a device and it is built in. */
	if (!strcmp(o.transport, "auto")) {
		int all = verbs_here && transport_registered("verbs");

		MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		snprintf(transport, sizeof(transport), "%s", all ? "verbs" : "rma");
	} else {
		snprintf(transport, sizeof(transport), "%s", o.transport);
	}
	if (hosts_gather(MPI_COMM_WORLD, &hi)) {
		fprintf(stderr, "sweetspot-kernel: rank %d: cannot gather host names\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	ri = (struct runinfo){ .o = &o, .size = size, .H = size, .W = 0, .hi = &hi,
			       .transport = o.mode == MODE_MPI ? "mpi" : transport, .device = "" };
	if (o.mode == MODE_OFFLOAD) {
		ri.W = o.workers;
		ri.H = size - o.workers;
	}
	ri.nodes = hosts_distinct(&hi, ri.H, &most);
	ri.ppn = o.ppn ? o.ppn : most;

	switch (o.mode) {
	case MODE_OFFLOAD:
		ret = mode_offload(MPI_COMM_WORLD, &o, transport, &ri, rank == 0 ? out : NULL);
		break;
	case MODE_MPI:
		ret = mode_mpi(MPI_COMM_WORLD, &o, &ri, rank == 0 ? out : NULL);
		break;
	default:
		ret = mode_bw(MPI_COMM_WORLD, &o, transport, &ri, rank == 0 ? out : NULL);
		break;
	}
	if (ret == -2) {
		/* Bad input the transport found: every rank agreed, the
		 * message is out; leave together, with status 2. */
		hosts_release(&hi);
		if (out && out != stdout)
			fclose(out);
		MPI_Finalize();
		return 2;
	}
	if (ret < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (out && (fflush(out) || ferror(out))) {
		fprintf(stderr, "sweetspot-kernel: writing %s failed\n", o.output ? o.output : "stdout");
		ret = 1;
	}
	if (out && out != stdout)
		fclose(out);
	hosts_release(&hi);
	MPI_Finalize();
	return ret;
}
