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

#include "idle.h"
#include "modes.h"
#include "options.h"

/* Our rank before MPI_Init, from the launcher's environment (0 if none):
 * only that rank prints --help and --version. */
static int env_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID", NULL };

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

/* Before MPI_Init: the transport asked for must exist here. NULL, or the
 * reason it does not; *verbs_here says whether a verbs device is active. */
static const char *transport_precheck(const struct kopts *o, int *verbs_here)
{
	*verbs_here = 0;
	if (o->mode == MODE_MPI || !strcmp(o->transport, "rma"))
		return NULL;
	*verbs_here = transport_verbs_available();
	if (strcmp(o->transport, "verbs"))
		return NULL;
	if (!*verbs_here)
		return "--transport verbs: no RDMA device with an active port here (try "
		       "--transport rma)";
	if (!transport_registered("verbs"))
		return "--transport verbs: this build has no verbs backend";
	return NULL;
}

/* Rank 0's output stream (stdout or -o FILE), NULL elsewhere; every rank
 * learns whether it opened. 0, or -1 with the reason in err. */
static int open_output(const struct kopts *o, int rank, FILE **out, char *err, size_t errlen)
{
	int open_ok = 1;

	*out = NULL;
	if (rank == 0 && o->output && !(*out = fopen(o->output, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", o->output, strerror(errno));
		open_ok = 0;
	}
	MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!open_ok)
		return -1;
	if (rank == 0 && !*out)
		*out = stdout;
	return 0;
}

/* auto: verbs only where every rank has a device and it is built in. */
static void pick_transport(const struct kopts *o, int verbs_here, char *buf, size_t len)
{
	if (!strcmp(o->transport, "auto")) {
		int all = verbs_here && transport_registered("verbs");

		MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		snprintf(buf, len, "%s", all ? "verbs" : "rma");
	} else {
		snprintf(buf, len, "%s", o->transport);
	}
}

/* Runs the mode of o; its return value (see modes.h). */
static int run_mode(const struct kopts *o, const char *transport, struct hostinfo *hi, int size,
		    FILE *out)
{
	struct runinfo ri = { .o = o,
			      .size = size,
			      .H = size,
			      .W = 0,
			      .hi = hi,
			      .transport = o->mode == MODE_MPI ? "mpi" : transport,
			      .device = "" };
	int most = 0;

	if (o->mode == MODE_OFFLOAD) {
		ri.W = o->workers;
		ri.H = size - o->workers;
	}
	ri.nodes = hosts_distinct(hi, ri.H, &most);
	ri.ppn = o->ppn ? o->ppn : most;
	switch (o->mode) {
	case MODE_OFFLOAD:
		return mode_offload(MPI_COMM_WORLD, o, transport, &ri, out);
	case MODE_MPI:
		return mode_mpi(MPI_COMM_WORLD, o, &ri, out);
	default:
		return mode_bw(MPI_COMM_WORLD, o, transport, &ri, out);
	}
}

int main(int argc, char **argv)
{
	struct kopts o;
	struct idle_info idle;
	struct hostinfo hi = { NULL, 0, NULL };
	char err[320], transport[8];
	const char *why;
	int erank = env_rank(), rank, size, ret, verbs_here;
	FILE *out = NULL;

	if (kopts_parse(argc, argv, &o, err, sizeof(err)))
		return usage_error(0, err);
	if (o.help || o.version) {
		if (erank == 0 && o.help)
			kopts_usage(stdout);
		else if (erank == 0)
			printf("sweetspot-kernel %s\n", SWEETSPOT_VERSION);
		return 0;
	}
	if (kopts_parse_faults(getenv("SWEETSPOT_FAULT"), &o.faults, err, sizeof(err)))
		return usage_error(0, err);
	if ((why = transport_precheck(&o, &verbs_here)))
		return usage_error(0, why);
	/* Short sleeps in the waiting loops should be short. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	idle_setup(&idle);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (kopts_check_size(&o, size, err, sizeof(err)))
		return usage_error(1, err);
	if (open_output(&o, rank, &out, err, sizeof(err)))
		return usage_error(1, err);
	pick_transport(&o, verbs_here, transport, sizeof(transport));
	if (hosts_gather(MPI_COMM_WORLD, &hi)) {
		fprintf(stderr, "sweetspot-kernel: rank %d: cannot gather host names\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	ret = run_mode(&o, transport, &hi, size, out);
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
		fprintf(stderr, "sweetspot-kernel: writing %s failed\n",
			o.output ? o.output : "stdout");
		ret = 1;
	}
	if (out && out != stdout)
		fclose(out);
	hosts_release(&hi);
	MPI_Finalize();
	return ret;
}
