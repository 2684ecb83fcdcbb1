/* tests/unit/model-classes-t.c: the model by classes of equivalent ranks
 * (node 0's ranks standing for every node's) against the simulation of
 * every rank, on every collective x algorithm x assignment the builders
 * know, workers on DPUs and on the nodes, regular layouts (a node's worth
 * of workers on every node) and irregular ones (the last node short of
 * workers, host counts the workers do not divide), on two sets of
 * parameters. Where classes are used, every time must be the full
 * simulation's: ref and comm bit for bit (node 0's ranks do the very
 * arithmetic they do in the full run), total and OE within 1e-12
 * relative (the CPU work summed over nodes is node 0's times the nodes,
 * the other order of the same sum). Where the layout is irregular, the
 * full simulation must be the one used. */
#include "tap.h"

#include "coll.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The other parameter set: no poll delay, free copies, slower posts and
 * links that cost as much to read as to write, NICs never shared, and a
 * DPU memory controller slower than its links (every DPU worker's bytes
 * through it). */
static struct model_params varied(void)
{
	struct model_params p;

	model_params_default(&p);
	p.o = 0.5;
	p.poll = p.g_copy = 0;
	for (int k = 0; k < PATH_N; k++)
		p.path[k].g_read = p.path[k].g_write = 1e-3;
	p.path[PATH_NET].g_share = 0;
	p.dpu_g_share = 4e-4;
	return p;
}

static int close12(double a, double b)
{
	return a == b || fabs(a - b) <= 1e-12 * fabs(b);
}

struct tally {
	int points, classes, full, unequal, irregular_classes, failed;
	int ag_classes; /* allgather allin on a regular layout by classes */
};

static void compare(const struct model_params *p, const struct model_machine *mc,
		    const struct model_point *pt, struct tally *t)
{
	struct model_pred a, f;
	int regular = mc->W == mc->nodes * mc->wpn;

	t->points++;
	if (model_predict(p, mc, pt, &a) || model_predict_mode(p, mc, pt, MODEL_SIM_FULL, &f)) {
		t->failed++;
		return;
	}
	if (!a.classes[0] && !a.classes[1]) {
		t->full++;
		return;
	}
	t->classes++;
	t->irregular_classes += !regular;
	t->ag_classes += pt->coll == COLL_ALLGATHER && pt->alg == ALG_ALLIN && a.classes[0] &&
			 a.classes[1];
	if (a.ref_us != f.ref_us || a.comm_us != f.comm_us || !close12(a.total_us, f.total_us) ||
	    !close12(a.oe_measured, f.oe_measured) || !close12(a.oe_paper, f.oe_paper)) {
		if (t->unequal++ < 5)
			diag("%s %s %s nodes=%d ppn=%d W=%d wpn=%d dpu=%d: ref %.17g/%.17g comm "
			     "%.17g/%.17g total %.17g/%.17g",
			     coll_names[pt->coll], alg_names[pt->alg], asg_names[pt->asg],
			     mc->nodes, mc->ppn, mc->W, mc->wpn, mc->dpu, a.ref_us, f.ref_us,
			     a.comm_us, f.comm_us, a.total_us, f.total_us);
	}
}

/* Machines: nodes x ppn x wpn, regular (W = nodes x wpn) and with the last
 * node one worker short. */
static const int shapes[][3] = { { 2, 1, 1 }, { 2, 4, 2 }, { 3, 2, 1 }, { 4, 2, 2 }, { 4, 3, 1 },
				 { 5, 4, 4 }, { 6, 1, 2 }, { 8, 2, 1 }, { 12, 2, 2 } };

static void sweep(const struct model_params *p, int cores, struct tally *t)
{
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N && alg_applies(c, a); s++)
				for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
					for (int v = 0; v < 4; v++) {
						int n = shapes[k][0], wpn = shapes[k][2];
						int W = n * wpn - (v >= 2 && n * wpn > 1);
						struct model_machine mc = { n,	   shapes[k][1],
									    W,	   wpn,
									    v & 1, cores,
									    2,	   (int)(k & 1) };
						struct model_point pt = { c,	    a,	     s,
									  20000,    1 << 16, 1,
									  8192,	    2,	     3,
									  DT_INT32, RO_SUM };

						compare(p, &mc, &pt, t);
					}
}

int main(void)
{
	struct model_params def, va = varied();
	struct tally t = { 0 };

	plan(6);
	model_params_default(&def);
	sweep(&def, 64, &t);
	sweep(&va, 2, &t);
	diag("%d points: %d by classes, %d in full", t.points, t.classes, t.full);
	ok(t.failed == 0, "every point predicts both ways (%d failed)", t.failed);
	ok(t.unequal == 0,
	   "classes equal the full simulation on all %d points that use them (%d not)", t.classes,
	   t.unequal);
	ok(t.classes >= 100, "classes stand for many regular layouts (%d)", t.classes);
	ok(t.ag_classes > 0, "allgather allin on a regular layout goes by classes (%d points)",
	   t.ag_classes);
	ok(t.irregular_classes == 0, "no irregular layout goes by classes (%d did)",
	   t.irregular_classes);
	{
		/* A rooted collective: node 0 is not any other node. */
		struct model_machine mc = { 4, 2, 8, 2, 1, 64, 2, 0 };
		struct model_point pt = { COLL_BCAST, ALG_DIRECT, ASG_BLOCK, 4096,     4096,  0,
					  0,	      0,	  0,	     DT_INT32, RO_SUM };
		struct model_pred o;

		ok(model_predict(&def, &mc, &pt, &o) == 0 && !o.classes[1],
		   "bcast direct (every worker reads the root) is simulated in full");
	}
	return done_testing();
}
