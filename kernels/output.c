/*
 * kernels/output.c: JSON lines and the stderr table. Times are microseconds
 * with three decimals, percentages with two; host names are escaped.
 */
#include "output.h"

#include <inttypes.h>

#include "parse.h"
#include "reduce.h"

void kout_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void out_common(FILE *f, const struct runinfo *ri, const char *mode, int iterations)
{
	fprintf(f, "{\"schema\":%d,\"mode\":\"%s\",", SCHEMA_VERSION, mode);
	fprintf(f, "\"iterations\":%d,\"warmup\":%d,", iterations, ri->o->warmup);
	fprintf(f, "\"ranks\":%d,\"hosts\":%d,\"workers\":%d,\"nodes\":%d,\"ppn\":%d,", ri->size,
		ri->H, ri->W, ri->nodes, ri->ppn);
	fprintf(f, "\"transport\":");
	kout_json_string(f, ri->transport);
	fprintf(f, ",\"device\":");
	kout_json_string(f, ri->device);
	fprintf(f, ",\"host_source\":\"%s\",", ri->hi->source);
}

static void out_validity(FILE *f, int valid, int bad_rank, int bad_src, long long bad_offset)
{
	fprintf(f, "\"valid\":%s,", valid ? "true" : "false");
	if (!valid)
		fprintf(f, "\"bad_rank\":%d,\"bad_source\":%d,\"bad_offset\":%lld,", bad_rank,
			bad_src, bad_offset);
}

static void out_rank_hosts(FILE *f, const struct runinfo *ri)
{
	fprintf(f, "\"rank_hosts\":[");
	for (int r = 0; r < ri->size; r++) {
		if (r)
			fputc(',', f);
		kout_json_string(f, ri->hi->names[r]);
	}
	fprintf(f, "]}\n");
	fflush(f);
}

double out_algbw(uint64_t m, double us)
{
	return us > 0 ? (double)m / (us * 1e-6) : 0;
}

/* nccl-tests' convention where it has one: the bytes a link must carry,
 * per host, relative to the message: allreduce 2(n-1)/n, reduce (n-1)/n,
 * bcast 1, gather and allgather (n-1) (each host's m of n*m is new),
 * alltoall (n-1) (each host receives n-1 blocks of m: nccl-tests counts
 * the whole buffer, n*m, times (n-1)/n); scan and exscan 1 (nccl-tests
 * has none: each host receives its m); barrier moves nothing: 0. */
double out_busbw(enum coll c, int n, double algbw)
{
	switch (c) {
	case COLL_ALLREDUCE:
		return algbw * 2 * (n - 1) / n;
	case COLL_REDUCE:
		return algbw * (n - 1) / n;
	case COLL_BARRIER:
		return 0;
	case COLL_BCAST:
	case COLL_SCAN:
	case COLL_EXSCAN:
		return algbw;
	default:
		return algbw * (n - 1);
	}
}

void out_point_json(FILE *f, const struct runinfo *ri, const struct coll_geom *g, enum asg s,
		    const struct point_result *r)
{
	double algbw = out_algbw(g->m, r->comm_us), busbw = out_busbw(g->coll, g->H, algbw);

	out_common(f, ri, "offload", r->iterations ? r->iterations : ri->o->iterations);
	fprintf(f,
		"\"collective\":\"%s\",\"algorithm\":\"%s\",\"assignment\":\"%s\",\"bytes\":%zu,",
		coll_names[g->coll], alg_names[g->alg], asg_names[s], g->m);
	if (coll_is_reduction(g->coll))
		fprintf(f, "\"dtype\":\"%s\",\"op\":\"%s\",", dtype_names[g->dt],
			redop_names[g->op]);
	if (alg_is_pipelined(g->coll, g->alg))
		fprintf(f, "\"chunk\":%zu,\"window\":%d,", g->chunk, g->window);
	if (alg_has_radix(g->alg))
		fprintf(f, "\"radix\":%d,", g->radix);
	fprintf(f, "\"ref_us\":%.3f,\"comm_us\":%.3f,\"compute_us\":%.3f,\"total_us\":%.3f,",
		r->ref_us, r->comm_us, r->compute_us, r->total.avg);
	fprintf(f, "\"total_us_min\":%.3f,\"total_us_median\":%.3f,\"total_us_max\":%.3f,",
		r->total.min, r->total.median, r->total.max);
	fprintf(f, "\"oe_paper\":%.2f,\"oe_measured\":%.2f,\"overlap\":%.2f,",
		oe_paper(r->ref_us, r->comm_us, r->compute_us),
		oe_measured(r->ref_us, r->total.avg),
		overlap_pct(r->comm_us, r->compute_us, r->total.avg));
	/* The launch-level sample (medians of the max-over-ranks times), which
	 * is what repeats from launch to launch, next to the means. */
	fprintf(f, "\"ref_us_median\":%.3f,\"comm_us_median\":%.3f,\"compute_us_median\":%.3f,",
		r->ref_med, r->comm_med, r->compute_med);
	fprintf(f, "\"oe_measured_median\":%.2f,", oe_measured(r->ref_med, r->total.median));
	fprintf(f, "\"calib_error\":%.4f,\"calibrated\":%s,\"recalibrations\":%d,", r->calib_error,
		r->calibrated ? "true" : "false", r->recalibrations);
	fprintf(f, "\"algbw\":%.0f,\"busbw\":%.0f,\"p2p_bw\":%.0f,", algbw, busbw, ri->p2p_bw);
	out_validity(f, r->valid, r->bad_rank, r->bad_src, r->bad_offset);
	out_rank_hosts(f, ri);
}

void out_point_header(FILE *f, const struct runinfo *ri)
{
	fprintf(f, "# sweetspot-kernel %s: %d hosts, %d workers, %d node%s, transport %s%s%s\n",
		SWEETSPOT_VERSION, ri->H, ri->W, ri->nodes, ri->nodes == 1 ? "" : "s",
		ri->transport, *ri->device ? " " : "", ri->device);
	fprintf(f, "# times in us; oe_paper = ref/max(comm,compute), oe_meas = min(100, "
		   "ref/total), overlap (IMB-NBC)\n");
	fprintf(f, "%-10s %-8s %-9s %8s %11s %11s %11s %11s %8s %8s %8s %s\n", "# coll", "alg",
		"assign", "bytes", "ref", "comm", "compute", "total", "oe_paper", "oe_meas",
		"overlap", "valid");
	fflush(f);
}

void out_point_row(FILE *f, const struct coll_geom *g, enum asg s, const struct point_result *r)
{
	char sz[32];

	fprintf(f, "%-10s %-8s %-9s %8s %11.2f %11.2f %11.2f %11.2f %8.2f %8.2f %8.2f %s",
		coll_names[g->coll], alg_names[g->alg], asg_names[s],
		format_size(g->m, sz, sizeof(sz)), r->ref_us, r->comm_us, r->compute_us,
		r->total.avg, oe_paper(r->ref_us, r->comm_us, r->compute_us),
		oe_measured(r->ref_us, r->total.avg),
		overlap_pct(r->comm_us, r->compute_us, r->total.avg), r->valid ? "yes" : "NO");
	if (coll_is_reduction(g->coll))
		fprintf(f, " %s %s", dtype_names[g->dt], redop_names[g->op]);
	fputc('\n', f);
	fflush(f);
}

void out_mpi_json(FILE *f, const struct runinfo *ri, const struct mpi_result *r)
{
	out_common(f, ri, "mpi", ri->o->iterations);
	fprintf(f, "\"collective\":\"%s\",\"algorithm\":", coll_names[r->coll]);
	kout_json_string(f, r->algorithm);
	/* No workers, hence no assignment: "none" keeps the field in every record. */
	fprintf(f, ",\"assignment\":\"none\"");
	if (coll_is_reduction(r->coll))
		fprintf(f, ",\"dtype\":\"%s\",\"op\":\"%s\"", dtype_names[r->dt],
			redop_names[r->op]);
	fprintf(f, ",\"bytes\":%" PRIu64 ",\"avg_us\":%.3f,\"total_us\":%.3f,", r->bytes, r->t.avg,
		r->t.avg);
	fprintf(f, "\"total_us_min\":%.3f,\"total_us_median\":%.3f,\"total_us_max\":%.3f,",
		r->t.min, r->t.median, r->t.max);
	fprintf(f, "\"batch_calls\":%ld,\"batches\":%ld,", r->batch_calls, r->batches);
	out_validity(f, r->valid, r->bad_rank, r->bad_src, r->bad_offset);
	out_rank_hosts(f, ri);
}

void out_mpi_header(FILE *f, const struct runinfo *ri)
{
	fprintf(f, "# sweetspot-kernel %s: MPI collectives, %d ranks, %d node%s\n",
		SWEETSPOT_VERSION, ri->size, ri->nodes, ri->nodes == 1 ? "" : "s");
	fprintf(f,
		"# per call: batch time / calls, averaged over ranks (avg: over batches;\n"
		"# median: of batches); rank_min, rank_max: the fastest and slowest rank's mean\n");
	fprintf(f, "%-10s %-10s %8s %11s %11s %11s %11s %s\n", "# coll", "algorithm", "bytes",
		"avg_us", "rank_min", "median_us", "rank_max", "valid");
	fflush(f);
}

void out_mpi_row(FILE *f, const struct mpi_result *r)
{
	char sz[32];

	fprintf(f, "%-10s %-10s %8s %11.2f %11.2f %11.2f %11.2f %s", coll_names[r->coll],
		r->algorithm, format_size(r->bytes, sz, sizeof(sz)), r->t.avg, r->t.min,
		r->t.median, r->t.max, r->valid ? "yes" : "NO");
	if (coll_is_reduction(r->coll))
		fprintf(f, " %s %s", dtype_names[r->dt], redop_names[r->op]);
	fputc('\n', f);
	fflush(f);
}
