/* tests/unit/model-t.c: the model's simulator against times worked out by
 * hand from its stated rules (model.h): one network write, two reads that
 * serialise on the root's NIC (or not, with no shared cost), a flag seen
 * `poll` late, CPU stretch on an oversubscribed node past the scheduler's
 * slice (none within it), onload workers on cores shared fairly with
 * computing hosts past the slice, a deadlock found,
 * and every collective x algorithm x assignment of the builders simulated
 * without deadlock at several worker counts. */
#include "tap.h"

#include "coll.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct model_params flat(void)
{
	struct model_params p;

	model_params_default(&p);
	for (int k = 0; k < PATH_N; k++)
		p.path[k] = (struct model_link){ 2.0, 1e-3, 2e-3, 1e-3 };
	p.o = 0.5;
	p.t0 = 0.25;
	p.poll = 0;
	p.g_copy = 0;
	p.g_reduce = 1e-3;
	return p;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static void one_write(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 2, 1, 1, 1, 1, 64, 8, 0 };
	struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 1000,     1000,  0,
				  0,	      0,	  0,	     DT_INT32, RO_SUM };
	struct model_pred o;

	ok(model_predict(&p, &mc, &pt, &o) == 0, "bcast on 2 nodes predicts");
	/* t0 + o + L + m g_write */
	ok(near(o.ref_us, 0.25 + 0.5 + 2.0 + 1000 * 2e-3), "one network write: %g us", o.ref_us);
	/* worker on node 0's DPU: read the root over pcie, then write host 1
	 * over the net, after the wait for the read. */
	ok(near(o.comm_us, 0.25 + (0.5 + 2 + 1) + (0.5 + 2 + 2)), "read then write: %g us",
	   o.comm_us);
	ok(near(o.compute_us, o.ref_us) && near(o.total_us, o.comm_us),
	   "dpu total = max(compute, comm)");
	ok(near(o.oe_paper, 100 * o.ref_us / o.comm_us), "oe_paper from the times");
}

static void two_reads(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 3, 1, 1, 1, 1, 64, 8, 0 };
	struct model_point pt = { COLL_GATHER, ALG_DIRECT, ASG_BLOCK, 1000,	1000,  0,
				  0,	       0,	   0,	      DT_INT32, RO_SUM };
	struct model_pred o;

	model_predict(&p, &mc, &pt, &o);
	/* second read waits for the root's NIC: t0 + o + m gs + L + m g */
	ok(near(o.ref_us, 0.25 + 0.5 + 1.0 + 2.0 + 1.0), "two reads serialise on the NIC: %g",
	   o.ref_us);
	p.path[PATH_NET].g_share = 0;
	model_predict(&p, &mc, &pt, &o);
	ok(near(o.ref_us, 0.25 + 2 * 0.5 + 2.0 + 1.0),
	   "no shared cost: only the posts serialise: %g", o.ref_us);
}

static void poll_delay(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 4, 1, 2, 1, 1, 64, 8, 0 };
	struct model_point pt = { COLL_ALLGATHER, ALG_LEADER, ASG_BLOCK, 4096, 4096, 0, 0, 0, 0,
				  DT_INT32,	  RO_SUM };
	struct model_pred a, b;

	model_predict(&p, &mc, &pt, &a);
	p.poll = 7;
	model_predict(&p, &mc, &pt, &b);
	ok(near(b.comm_us - a.comm_us, 7), "leader sees the signal poll late: +%g us",
	   b.comm_us - a.comm_us);
	ok(near(a.ref_us, b.ref_us), "the reference has no flags");
}

static void oversubscribed(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 1, 4, 1, 1, 0, 4, 0, 0 };
	struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 1000,     1000,  0,
				  0,	      0,	  0,	     DT_INT32, RO_SUM };
	struct model_pred a, b, c;

	p.path[PATH_SHM].g_share = 0;
	model_predict(&p, &mc, &pt, &a);
	/* three synchronous copies by the root: t0 + 3 (o + m g + L) */
	ok(near(a.ref_us, 0.25 + 3 * (0.5 + 2 + 2)), "shm copies are the root's CPU: %g", a.ref_us);
	mc.host_cores = 2;
	model_predict(&p, &mc, &pt, &c);
	/* 14 us of phase, far within the slice: each rank runs unshared, timed
	 * from its own start, as on 4 cores. */
	ok(near(c.ref_us, a.ref_us), "4 ranks on 2 cores, within the slice: unshared: %g",
	   c.ref_us);
	p.os_slice = 0;
	model_predict(&p, &mc, &pt, &b);
	ok(near(b.ref_us, 2 * 0.25 + 3 * (2 * 0.5 + 2 * 2 + 2)),
	   "4 ranks on 2 cores, no slice: CPU costs x2: %g", b.ref_us);
	ok(b.total_us >= b.compute_us && b.total_us >= b.comm_us, "onload total bounds");
	/* A slice of 1 us: t0 0.25 and the first o 0.5 whole, of the first
	 * copy 0.25 whole and 1.75 stretched, every CPU cost after it x2. */
	p.os_slice = 1;
	model_predict(&p, &mc, &pt, &b);
	ok(near(b.ref_us, 0.25 + 0.5 + (0.25 + 2 * 1.75) + 2 + 2 * (2 * 0.5 + 2 * 2 + 2)),
	   "a slice of 1 us: the CPU past it x2: %g", b.ref_us);
}

/* Processes of CPU work d[] on c cores shared fairly, by hand: n equal
 * hosts of work h and workers w[] (ascending, each above h or not). */
static double by_hand(int n, double h, const double *w, int nw, int c)
{
	double t = 0, given = 0, d[8];
	int m = n + nw, k = 0;

	for (int i = 0; i < n; i++)
		d[k++] = h;
	for (int i = 0; i < nw; i++)
		d[k++] = w[i];
	for (int i = 0; i < m; i++) /* insertion sort */
		for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
			double x = d[j];

			d[j] = d[j - 1];
			d[j - 1] = x;
		}
	for (int i = 0; i < m; i++) {
		double rate = m - i > c ? (double)c / (m - i) : 1;

		t += (d[i] - given) / rate;
		given = d[i];
	}
	return t;
}

/* Onload on 2 cores under 4 computing hosts: the total is at least the
 * time the hosts and the workers take on the cores shared fairly, and a
 * worker, one process, gets a share of one core while the hosts compute:
 * with its CPU work large beside the hosts', one worker doing it all takes
 * longer than two splitting it, though the node's CPU work is the same. */
static void shared_cores(void)
{
	struct model_params p = flat();
	struct model_point pt = { COLL_GATHER, ALG_DIRECT, ASG_BLOCK, 1 << 16,	1 << 16, 0,
				  0,	       0,	   0,	      DT_INT32, RO_SUM };
	struct model_pred a, b;

	p.path[PATH_SHM].g_share = 0;
	p.path[PATH_SHM].g_read = p.path[PATH_SHM].g_write = 2e-2; /* the workers' copies */
	p.os_slice = 0; /* shared from the first microsecond */
	for (int w = 1; w <= 2; w++) {
		struct model_machine mc = { 1, 4, w, w, 0, 2, 0, 0 };
		struct model_pred *o = w == 1 ? &a : &b;
		double ws[2], t;

		ok(model_predict(&p, &mc, &pt, o) == 0, "onload, %d worker(s): predicted", w);
		ws[0] = w == 1 ? o->worker_cpu.total : o->worker_cpu.total - o->worker_cpu.busiest;
		ws[1] = o->worker_cpu.busiest;
		t = by_hand(4, o->compute_us / 2, ws, w, 2);
		t = fmax(t, fmax(o->compute_us, o->comm_us));
		ok(near(o->total_us, t), "onload, %d worker(s): total %g = cores shared fairly %g",
		   w, o->total_us, t);
	}
	ok(near(a.worker_cpu.total, b.worker_cpu.total) &&
		   b.worker_cpu.busiest < a.worker_cpu.busiest,
	   "the same CPU work split over 2 workers (%g, busiest %g against %g)", b.worker_cpu.total,
	   b.worker_cpu.busiest, a.worker_cpu.busiest);
	ok(b.total_us < a.total_us && a.total_us > (2 * a.compute_us + a.worker_cpu.total) / 2,
	   "one worker doing it all is slower (%g us against %g), beyond the node's work over its "
	   "cores (%g)",
	   a.total_us, b.total_us, (2 * a.compute_us + a.worker_cpu.total) / 2);
}

/* The same past the scheduler's slice s (model.h): every process runs its
 * first s unshared, timed from its own start; the hosts' compute, measured
 * in wall time, is s of CPU work and half of the rest (4 hosts, 2 cores);
 * only the work past s is shared. Within the slice, the total is the
 * larger of compute and comm. */
static void sliced_cores(void)
{
	struct model_params p = flat();
	struct model_point pt = { COLL_GATHER, ALG_DIRECT, ASG_BLOCK, 1 << 16,	1 << 16, 0,
				  0,	       0,	   0,	      DT_INT32, RO_SUM };
	struct model_machine mc = { 1, 4, 1, 1, 0, 2, 0, 0 };
	struct model_pred o, q;
	double s = p.os_slice, h, w, t;

	p.path[PATH_SHM].g_share = 0;
	pt.m = pt.mmax = 4096;
	o.compute_us = o.comm_us = s;
	if (model_predict(&p, &mc, &pt, &o))
		o.compute_us = s;
	ok(o.compute_us < s && o.comm_us < s,
	   "onload, within the slice: predicted (compute %g, comm %g us)", o.compute_us, o.comm_us);
	ok(near(o.total_us, fmax(o.compute_us, o.comm_us)),
	   "within the slice: total %g = max(compute, comm), unshared", o.total_us);
	p.os_slice = 0;
	model_predict(&p, &mc, &pt, &q);
	ok(q.total_us > o.total_us * 1.1, "shared from the first microsecond it would be %g",
	   q.total_us);
	p.os_slice = s;
	pt.m = pt.mmax = 1 << 16;
	p.path[PATH_SHM].g_read = p.path[PATH_SHM].g_write = 2e-2;
	model_predict(&p, &mc, &pt, &o);
	h = o.compute_us > s ? s + (o.compute_us - s) / 2 : o.compute_us;
	w = o.worker_cpu.total;
	t = fmin(s, fmax(h, w)) + by_hand(4, fmax(h - s, 0), (double[]){ fmax(w - s, 0) }, 1, 2);
	ok(o.compute_us > s && w > s && near(o.total_us, fmax(t, fmax(o.compute_us, o.comm_us))),
	   "past the slice: total %g = the slice + the rest shared fairly %g", o.total_us, t);
}

static void deadlock(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 1, 1, 1, 1, 0, 4, 0, 0 };
	struct coll_rank cr[2] = { 0 };

	sched_wait_flag(&cr[1].off, 0, 0);
	sched_finalize(&cr[0].off);
	sched_finalize(&cr[1].off);
	ok(model_sim_phase(&p, &mc, cr, 0, NULL, NULL, NULL) < 0,
	   "a wait nobody signals is a deadlock");
	coll_rank_release(&cr[0]);
	coll_rank_release(&cr[1]);
}

static void every_schedule(void)
{
	struct model_params p = flat();
	int bad = 0, n = 0;
	double prev = 0;

	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N && alg_applies(c, a); s++)
				for (int W = 1; W <= 4; W++) {
					struct model_machine mc = { 2, 4, W, 2, s & 1, 8, 8, 0 };
					struct model_point pt = { c,	 a, s, 1 << 16,	 1 << 16, 1,
								  16384, 2, 0, DT_INT32, RO_SUM };
					struct model_pred o;

					n++;
					if (model_predict(&p, &mc, &pt, &o) || !(o.ref_us > 0) ||
					    !(o.comm_us > 0) || !(o.total_us > 0)) {
						diag("%s %s %s W=%d fails", coll_names[c],
						     alg_names[a], asg_names[s], W);
						bad++;
					}
				}
	ok(!bad && n > 50, "every collective x algorithm x assignment, W 1..4: %d simulated", n);
	bad = 0;
	for (size_t m = 4096; m <= (1u << 20); m *= 4) {
		struct model_machine mc = { 2, 4, 2, 1, 1, 8, 8, 0 };
		struct model_point pt = {
			COLL_ALLREDUCE, ALG_SLICE, ASG_BLOCK, m, 1 << 20, 1, 0, 0, 0,
			DT_INT32,	RO_SUM
		};
		struct model_pred o;

		model_predict(&p, &mc, &pt, &o);
		bad += !(o.comm_us > prev);
		prev = o.comm_us;
	}
	ok(!bad, "allreduce comm time grows with the size");
}

/* The parameters SMPI's platform holds: one bandwidth per link. */
static void platform_params(void)
{
	struct model_params p = flat(), q;
	struct model_machine mc = { 2, 1, 1, 1, 1, 64, 8, 0 };
	char path[] = "/tmp/model-t-XXXXXX", plat[64], hf[64], line[512];
	int found = 0;
	FILE *f;

	p.path[PATH_NET].g_share = 1e-9;
	model_params_platform(&p, &q);
	ok(q.path[PATH_SHM].g_read == 2e-3 && q.path[PATH_SHM].g_write == 2e-3,
	   "platform: read and write cost the larger of the two");
	ok(q.path[PATH_NET].g_share == 1e-6 && q.path[PATH_PCIE].g_share == 1e-3,
	   "platform: no cost below 1e-6 us/B (1 TB/s), others kept");
	ok(q.o == p.o && q.path[PATH_NET].L == p.path[PATH_NET].L,
	   "platform: latencies and CPU costs kept");
	/* The file says the same: a private link of 1 / 2e-3 us/B = 5e8 B/s. */
	if (!mkdtemp(path)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(plat, sizeof(plat), "%s/p.xml", path);
	snprintf(hf, sizeof(hf), "%s/h", path);
	ok(model_platform_write(&p, &mc, plat, hf) == 0, "platform written");
	f = fopen(plat, "r");
	while (f && fgets(line, sizeof(line), f))
		found += strstr(line, "<link id=\"n0-0-l\" bandwidth=\"5e+08Bps\"") &&
			 strstr(line, "sharing_policy=\"FATPIPE\"");
	if (f)
		fclose(f);
	ok(found == 1, "platform: node 0's private links at 5e+08 B/s");
	remove(plat);
	remove(hf);
	rmdir(path);
}

/* Same-node transfers by RMA (the kernel under SMPI): they overlap, where
 * the initiator's copies follow one another; other paths do not change. */
static void shm_rma(void)
{
	struct model_params p = flat();
	struct model_machine cp = { 1, 4, 1, 1, 0, 64, 0, 0 }, rma = cp;
	struct model_machine two = { 2, 1, 1, 1, 1, 64, 8, 0 }, two_rma = two;
	struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 1000,     1000,  0,
				  0,	      0,	  0,	     DT_INT32, RO_SUM };
	struct model_pred a, b;

	rma.shm_rma = two_rma.shm_rma = 1;
	ok(model_predict(&p, &cp, &pt, &a) == 0 && model_predict(&p, &rma, &pt, &b) == 0,
	   "shm_rma: predicts");
	/* The root's 3 writes: copies take o + m g + L each, one after the
	 * other (3 x 4.5 us); by RMA the bus (m g_share = 1 us each) is all
	 * they share. */
	ok(b.ref_us < a.ref_us - 2 * 4.5 + 2 * 1.0 + 1e-9,
	   "shm_rma: the root's writes overlap (%g < %g)", b.ref_us, a.ref_us);
	model_predict(&p, &two, &pt, &a);
	model_predict(&p, &two_rma, &pt, &b);
	ok(near(a.ref_us, b.ref_us) && near(a.comm_us, b.comm_us),
	   "shm_rma: no same-node peer, no change");
}

/* A point's radix and chunk are the ones simulated: a k-nomial bcast of
 * 8 workers is 3 levels deep at radix 2 and 2 at radix 4; 4 chunks of a
 * pipelined gather are more operations than 1. */
static void point_axes(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 8, 1, 8, 1, 1, 64, 8, 0 };
	struct model_point k2 = { COLL_BCAST, ALG_KNOMIAL, ASG_BLOCK, 4096,	4096,  0,
				  4096,	      1,	   2,	      DT_INT32, RO_SUM },
			   k4 = k2;
	struct model_point c1 = { COLL_GATHER, ALG_DIRECT, ASG_BLOCK, 4096,	4096,  0,
				  4096,	       1,	   0,	      DT_INT32, RO_SUM },
			   c4 = c1;
	struct model_pred a, b;
	int rc;

	k4.radix = 4;
	rc = model_predict(&p, &mc, &k2, &a) | model_predict(&p, &mc, &k4, &b);
	ok(rc == 0 && b.comm_us < a.comm_us,
	   "radix 4 is a shallower tree than radix 2 (%g < %g us)", b.comm_us, a.comm_us);
	c4.chunk = 1024;
	rc = model_predict(&p, &mc, &c1, &a) | model_predict(&p, &mc, &c4, &b);
	ok(rc == 0 && b.ops > a.ops, "4 chunks are more operations than 1 (%zu > %zu)", b.ops,
	   a.ops);
}

/* A fit never gives a cost per byte below MODEL_G_MIN, even where the
 * data would take it lower: times made with writes at 1e-9 us/B. */
static void fit_floor(void)
{
	struct model_params truth = flat(), p;
	struct model_obs obs[8];
	size_t n = 0;
	int low = 0;

	truth.path[PATH_SHM].g_write = 1e-9;
	for (int k = 0; k < PATH_N; k++)
		truth.path[k] = truth.path[PATH_SHM];
	for (int w = 1; w <= 2; w++)
		for (size_t m = 1024; m <= 65536; m *= 8) {
			struct model_obs *o = &obs[n++];
			struct model_pred pr;

			*o = (struct model_obs){ .mc = { 1, 3, w, w, 0, 64, 0, 0 },
						 .pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, m,
							 65536, 0, 0, 0, 0, DT_INT32, RO_SUM },
						 .layout = w == 1 ? "a" : "b" };
			model_predict(&truth, &o->mc, &o->pt, &pr);
			o->ref_us = pr.ref_us;
			o->comm_us = pr.comm_us;
			o->total_us = pr.total_us;
		}
	/* From the truth itself: a fit without the floor has no reason to move. */
	p = truth;
	ok(model_fit(obs, n, &p) == 0, "fit: %zu points", n);
	for (int k = 0; k < PATH_N; k++)
		low += p.path[k].g_read < MODEL_G_MIN || p.path[k].g_write < MODEL_G_MIN ||
		       p.path[k].g_share < MODEL_G_MIN;
	low += p.g_reduce < MODEL_G_MIN || p.g_copy < MODEL_G_MIN;
	ok(!low, "fit: every cost per byte at least %g us/B (g_write %g)", MODEL_G_MIN,
	   p.path[PATH_SHM].g_write);
}

/* Large machines (model_predict_budget): within the budget, or at most
 * MODEL_SIM_SMALL nodes, the prediction is the exact simulation's, bit
 * for bit; past it, from smaller machines, on a collective whose times
 * grow linearly with the nodes (bcast direct: the root's NIC serves one
 * read per worker) near the exact one; a point whose smaller machines do
 * not fit either is refused with an error, not built. */
static void large_machines(void)
{
	struct model_params p;
	struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 65536,    65536, 0,
				  0,	      0,	  0,	     DT_INT32, RO_SUM };
	struct model_machine mc = { 12, 4, 24, 2, 1, 64, 8, 0 };
	struct model_pred a, b;
	int same = 1, rc;

	model_params_default(&p);
	for (int c = 0; c < 2; c++) {
		pt.coll = c ? COLL_ALLGATHER : COLL_BCAST;
		pt.alg = c ? ALG_ALLIN : ALG_DIRECT;
		for (int n = 2; n <= 12; n += 5) {
			mc.nodes = n;
			mc.W = n * mc.wpn;
			model_predict(&p, &mc, &pt, &a);
			model_predict_budget(&p, &mc, &pt, MODEL_SIM_AUTO, 0, &b);
			same &= a.ref_us == b.ref_us && a.comm_us == b.comm_us &&
				a.total_us == b.total_us && !a.extrapolated[0];
		}
	}
	ok(same, "within the budget: the exact simulation's times, bit for bit");
	pt.coll = COLL_BCAST;
	pt.alg = ALG_DIRECT;
	mc.nodes = 64;
	mc.W = 128;
	rc = model_predict_budget(&p, &mc, &pt, MODEL_SIM_AUTO, 200, &a);
	ok(rc == 0 && a.extrapolated[0] > 0 && a.extrapolated[1] > a.extrapolated[0],
	   "past the budget: from smaller machines (%d, %d, %d nodes)", a.extrapolated[0],
	   a.extrapolated[1], a.extrapolated[2]);
	model_predict_budget(&p, &mc, &pt, MODEL_SIM_AUTO, 0, &b);
	ok(fabs(a.comm_us / b.comm_us - 1) < 0.1 && fabs(a.ref_us / b.ref_us - 1) < 0.1,
	   "bcast on 64 nodes from smaller ones: comm %.1f us (exact %.1f), ref %.1f (%.1f)",
	   a.comm_us, b.comm_us, a.ref_us, b.ref_us);
	pt.coll = COLL_ALLGATHER;
	pt.alg = ALG_LEADER;
	pt.m = pt.mmax = 4u << 20;
	mc.nodes = 100000;
	mc.W = 800000;
	mc.wpn = 8;
	mc.ppn = 8;
	ok(model_predict_budget(&p, &mc, &pt, MODEL_SIM_AUTO, 10, &a) == -1,
	   "a point too large for its smaller machines too: refused");
}

/* A machine description: its figures as the model's costs, worked by
 * hand (100 Gb/s = 12,500 B/us: 8e-5 us/B; 2 controllers of 25.6 GB/s:
 * 1 / 51,200 us/B), what it leaves out unset; a bad one refused. */
static void machine_desc(void)
{
	char path[] = "/tmp/model-t-XXXXXX";
	int fd = mkstemp(path);
	struct model_desc d;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return;
	fprintf(f, "machine = {\n network = { gbit_s = 100; latency_us = 1.5; };\n"
		   " dpu = { cores = 8; memory_controllers = 2; memory_gbyte_s = 25.6; };\n"
		   " overhead_us = 0.3;\n};\n");
	fclose(f);
	ok(model_desc_load(path, &d) == 0 && near(d.params.path[PATH_NET].g_write, 8e-5) &&
		   near(d.params.path[PATH_NET].g_share, 8e-5) &&
		   near(d.params.path[PATH_NET].L, 1.5) &&
		   near(d.params.dpu_g_share, 1.0 / 51200) && near(d.params.o, 0.3) &&
		   d.dpu_cores == 8 && d.host_cores == 0,
	   "description: 100 Gb/s, 1.5 us, two 25.6 GB/s controllers, 0.3 us per post");
	ok(!(d.set & (1u << 0)) && (d.set & (1u << 4)) && (d.set & (1u << 17)),
	   "what it leaves out is unset (shm.L), what it says set (net.L, dpu_g_share)");
	f = fopen(path, "w");
	fprintf(f, "machine = {\n network = { gbit_s = -3; };\n};\n");
	fclose(f);
	ok(model_desc_load(path, &d) == -1, "a negative bandwidth is refused");
	unlink(path);
}

/* The DPU's memory controller (dpu_g_share D): every transfer of a DPU
 * worker holds it len x D. bcast, 2 nodes x 1 PPN, the worker on node
 * 0's DPU: it reads the root (pcie) at t0 + o, the controller busy until
 * t0 + o + m D; its write to host 1 (net) waits for it: comm = t0 + o + m
 * D + L + m g_write, where with D = 0 it is t0 + (o + L + m g_read) + (o
 * + L + m g_write). */
static void dpu_memory(void)
{
	struct model_params p = flat();
	struct model_machine mc = { 2, 1, 1, 1, 1, 64, 8, 0 };
	struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 1000,     1000,  0,
				  0,	      0,	  0,	     DT_INT32, RO_SUM };
	struct model_pred o;

	p.dpu_g_share = 1e-2;
	model_predict(&p, &mc, &pt, &o);
	ok(near(o.comm_us, 0.25 + 0.5 + 1000 * 1e-2 + 2 + 1000 * 2e-3),
	   "one DPU memory controller: the write waits for the read's bytes: %g us", o.comm_us);
	p.dpu_g_share = 1e-4;
	model_predict(&p, &mc, &pt, &o);
	ok(near(o.comm_us, 0.25 + (0.5 + 2 + 1) + (0.5 + 2 + 2)),
	   "a controller faster than the links changes nothing: %g us", o.comm_us);
}

/* Onload availability (seed 004): the hosts keep their compute whole with
 * a core to spare for every worker (host_us = compute_us); on 4 hosts'
 * 4 cores a worker's CPU work takes its share of them past the slice (0
 * here): 5 processes on 4 cores until the hosts' work c is done (the
 * worker's is longer): host_us = c x 5 / 4. */
static void availability(void)
{
	struct model_params p = flat();
	struct model_point pt = { COLL_GATHER, ALG_DIRECT, ASG_BLOCK, 1 << 16,	1 << 16, 0,
				  0,	       0,	   0,	      DT_INT32, RO_SUM };
	struct model_machine spare = { 1, 4, 1, 1, 0, 5, 0, 0 }, none = spare;
	struct model_pred a, b;

	p.path[PATH_SHM].g_read = p.path[PATH_SHM].g_write = 2e-2;
	p.os_slice = 0;
	none.host_cores = 4;
	model_predict(&p, &spare, &pt, &a);
	model_predict(&p, &none, &pt, &b);
	ok(a.host_us == a.compute_us, "a core to spare: the hosts keep all their compute (%g us)",
	   a.host_us);
	ok(b.host_us > b.compute_us && near(b.host_us, b.compute_us * 5 / 4),
	   "none to spare: %g us for %g us of compute (availability %.1f%%)", b.host_us,
	   b.compute_us, 100 * b.compute_us / b.host_us);
}

int main(void)
{
	plan(50);
	one_write();
	two_reads();
	poll_delay();
	oversubscribed();
	shared_cores();
	sliced_cores();
	deadlock();
	every_schedule();
	platform_params();
	shm_rma();
	point_axes();
	fit_floor();
	large_machines();
	machine_desc();
	dpu_memory();
	availability();
	return done_testing();
}
