/* tests/unit/plan-t.c: layouts, rules, rank placement and kernel arguments
 * of plans. */
#include "tap.h"
#include "plan.h"
#include "spec.h"

static char *data_path(const char *name)
{
	const char *root = getenv("SWEETSPOT_ROOT");

	return xasprintf("%s/%s", root ? root : ".", name);
}

static int load(const char *name, struct spec *s, struct plan *p)
{
	char *path = data_path(name);
	int r = spec_load(path, s) || plan_build(s, p);

	free(path);
	return r;
}

/* Every rank's host, as one string "h0 h1 ...". */
static char *hosts_of(const struct spec *s, const struct layout *l)
{
	char *out = xstrdup("");

	for (unsigned r = 0; r < layout_ranks(l); r++) {
		char *t = xasprintf("%s%s%s", out, r ? " " : "", layout_rank_host(s, l, r));

		free(out);
		out = t;
	}
	return out;
}

static int first_cost(const struct point *pt, void *data)
{
	*(struct point *)data = *pt;
	return 1;
}

/* The reductions' axes: points, kernel arguments, and the cost counted
 * over the kernel's builders. */
static void reductions(void)
{
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct strvec args = STRVEC_INIT;
	struct point pt;
	struct plan_cost c;
	struct layout l;
	char *line;

	ok(!load("profiles/allreduce.cfg", &s, &p), "allreduce profile and plan");
	/* 2 algorithms x 2 sizes x 2 dtypes x 1 op x 2 chunks x 1 window. */
	is_int(p.layouts[0].points, 16, "16 points per layout");
	layout_kernel_args(&s, &p.layouts[0], &args);
	line = strvec_join_quoted(&args);
	is_str(line,
	       "-w 1 -m 24576,65536 -c allreduce -a slice,assigned -A block --dtype int32,double "
	       "--op sum --chunk 4096,8192 --window 2 -i 10 -x 2 --ppn 4 -t rma",
	       "--dtype, --op, --chunk and --window lists");
	free(line);
	strvec_clear(&args);
	plan_foreach_point(&s, first_cost, &pt);
	ok(!strcmp(pt.algorithm, "slice") && pt.bytes == 24576 && !strcmp(pt.dtype, "int32") &&
		   pt.chunk == 4096 && pt.window == 2 && !pt.radix,
	   "first point: slice 24K int32 4K window 2, no radix");
	ok(!plan_point_cost(&p.layouts[0], &pt, &c), "its cost is counted");
	/* One worker: 6 chunks, each read from 4 hosts and written to 4, the
	 * window making 3 rounds of (read, write). */
	ok(c.ops == 48 && c.steps == 6 && c.rank_bytes == 4 * 24576 && c.nic_bytes == 0,
	   "slice, W = 1: 48 transfers, 6 steps, the worker moves 4 x 24K, one node: no NIC (%llu "
	   "%llu %llu)",
	   (unsigned long long)c.ops, (unsigned long long)c.steps,
	   (unsigned long long)c.rank_bytes);
	pt.algorithm = "knomial";
	pt.radix = 2;
	ok(!plan_point_cost(&p.layouts[0], &pt, &c) && c.ops > 0 && c.steps > 0,
	   "knomial's cost comes from the kernel's own builder too (%llu ops, %llu steps)",
	   (unsigned long long)c.ops, (unsigned long long)c.steps);
	/* Direct bcast on 2 nodes x 4 hosts, 2 DPU workers: root NIC W x m out. */
	l = (struct layout){
		.nodes = 2, .ppn = 4, .hosts = 8, .workers = 2, .wpn = 1, .placement = PLACEMENT_DPU
	};
	pt = (struct point){ "bcast", "direct", "block", 1000, NULL, NULL, 0, 0, 0 };
	ok(!plan_point_cost(&l, &pt, &c) && c.steps == 2 && c.ops == 2 + 7 &&
		   c.nic_bytes == 2 * 1000 + 3000,
	   "direct bcast: 2 steps, 1 read per worker + 7 writes, root NIC: 2 reads and 3 writes "
	   "(%llu)",
	   (unsigned long long)c.nic_bytes);
	plan_release(&p);
	spec_release(&s);
}

int main(void)
{
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT, p2 = PLAN_INIT;
	struct strvec args = STRVEC_INIT;
	struct layout l;
	const struct layout *lp;
	char err[512], *line;
	int good = 1, same = 1;

	plan(50);
	/* The paper's Figure 2. */
	ok(!load("tests/data/specs/figure2.cfg", &s, &p), "figure 2 spec and plan");
	is_int(p.nlayouts, 1, "one layout");
	lp = &p.layouts[0];
	is_str(lp->id, "n2-ppn12-w8-wpn4-dpu", "layout id");
	is_int(layout_ranks(lp), 32, "32 ranks");
	for (unsigned r = 0; r < 32; r++) {
		const char *want = r < 12 ? "node1" :
				   r < 24 ? "node2" :
				   r < 28 ? "node1-bf" :
					    "node2-bf";

		if (strcmp(layout_rank_host(&s, lp, r), want)) {
			diag("rank %u on %s, expected %s", r, layout_rank_host(&s, lp, r), want);
			good = 0;
		}
	}
	ok(good, "ranks 0-11 node1, 12-23 node2, 24-27 node1-bf, 28-31 node2-bf");
	is_str(layout_rank_bin(&s, lp, 23), "/opt/x86/sweetspot-kernel", "host ranks run host_bin");
	is_str(layout_rank_bin(&s, lp, 24), "/opt/arm/sweetspot-kernel", "workers run dpu_bin");
	is_int(plan_points(&p), 1, "one point");
	is_int(plan_launches(&p), 1, "one launch");
	layout_kernel_args(&s, lp, &args);
	line = strvec_join_quoted(&args);
	is_str(line, "-w 8 -m 1048576 -c bcast -a direct -A block -i 100 -x 10 --ppn 12",
	       "kernel arguments");
	free(line);
	strvec_clear(&args);

	/* Uneven fill and onload, on the same spec's system. */
	l = *lp;
	l.workers = 6;
	layout_set_id(&l);
	is_str(l.id, "n2-ppn12-w6-wpn4-dpu", "id follows the fields");
	is_int(layout_workers_on(&l, 0), 4, "first DPU full");
	is_int(layout_workers_on(&l, 1), 2, "second DPU gets the rest");
	is_int(layout_worker_nodes(&l), 2, "two DPUs used");
	is_str(layout_rank_host(&s, &l, 29), "node2-bf", "last worker on the second DPU");
	l.placement = PLACEMENT_ONLOAD;
	is_str(layout_rank_host(&s, &l, 24), "node1", "onload worker on its node");
	is_str(layout_rank_bin(&s, &l, 24), "/opt/x86/sweetspot-kernel",
	       "onload workers run host_bin");
	l.placement = PLACEMENT_DPU;
	l.workers = 24;
	ok(layout_check(&s, &l, err, sizeof(err)) && strstr(err, "(W <= WPN x nodes)"),
	   "W = H breaks no rule of its own (only W <= WPN x nodes here): %s", err);
	l.workers = 25;
	ok(layout_check(&s, &l, err, sizeof(err)) && strstr(err, "(W <= (H + W) / 2, i.e. W <= H)"),
	   "W > H: %s", err);
	l.workers = 0;
	ok(layout_check(&s, &l, err, sizeof(err)) && strstr(err, "at least one"), "W = 0: %s", err);
	l.workers = 8;
	l.wpn = 9;
	ok(layout_check(&s, &l, err, sizeof(err)) && strstr(err, "(WPN <= DPU cores)"),
	   "WPN > cores: %s", err);
	l.wpn = 2;
	ok(layout_check(&s, &l, err, sizeof(err)) && strstr(err, "(W <= WPN x nodes)"),
	   "W > WPN x nodes: %s", err);
	l.wpn = 4;
	ok(!layout_check(&s, &l, err, sizeof(err)), "figure 2 keeps every rule");
	plan_release(&p);
	spec_release(&s);

	/* The paper's sweep (Figures 5-10: 1..8 workers at 1 WPN, 2/4/6/8 WPN
	 * up to 64 workers): deterministic order; a worker count that no WPN
	 * spreads over the 8 nodes evenly is skipped by the rules. */
	ok(!load("profiles/paper.cfg", &s, &p), "paper spec and plan");
	is_int(p.nlayouts, 37, "37 layouts");
	is_str(p.layouts[0].id, "n8-ppn8-w1-wpn1-dpu", "first layout");
	is_str(p.layouts[p.nlayouts - 1].id, "n8-ppn8-w64-wpn8-dpu", "last layout");
	ok(plan_find(&p, "n8-ppn8-w16-wpn2-dpu") != NULL, "the 16-worker, 2-WPN layout is planned");
	ok(plan_find(&p, "n8-ppn8-w64-wpn8-dpu") != NULL,
	   "64 workers on 64 hosts is (W <= H), as in the paper");
	is_int(p.skipped, 10, "10 (workers, WPN) pairs skipped by the rules");
	is_int(p.layouts[0].points, 40, "40 points per layout (4 pairs x 2 assignments x 5 sizes)");
	is_int(plan_points(&p), 1480, "1480 points");
	is_int(plan_launches(&p), 111, "111 launches (3 repetitions)");
	is_int(plan_measurements(&p), 4440, "4440 measurements");
	good = 1;
	for (size_t i = 1; i < p.nlayouts; i++)
		good &= p.layouts[i - 1].workers < p.layouts[i].workers ||
			(p.layouts[i - 1].workers == p.layouts[i].workers &&
			 p.layouts[i - 1].wpn < p.layouts[i].wpn);
	ok(good, "layouts ordered by workers, then WPN");
	ok(!plan_build(&s, &p2) && p2.nlayouts == p.nlayouts, "built again");
	for (size_t i = 0; i < p.nlayouts && i < p2.nlayouts; i++)
		same &= !strcmp(p.layouts[i].id, p2.layouts[i].id);
	ok(same, "same spec, same layouts in the same order");
	lp = plan_find(&p, "n8-ppn8-w16-wpn2-dpu");
	layout_kernel_args(&s, lp, &args);
	line = strvec_join_quoted(&args);
	is_str(line,
	       "-w 16 -m 262144:4194304 -c bcast,gather,allgather -a direct,leader,allin "
	       "-A block,cyclic --chunk 65536 --window 2 -i 1000 -x 100 --ppn 8",
	       "a size range goes as LO:HI; gather and allgather pipelined at the default chunk, "
	       "said");
	free(line);
	strvec_clear(&args);
	line = hosts_of(&s, lp);
	ok(strstr(line, "thor008 thorbf001 thorbf001 thorbf002") && !strstr(line, "thorbf009"),
	   "workers follow the hosts, two per DPU");
	free(line);
	plan_release(&p2);
	plan_release(&p);
	spec_release(&s);

	/* Listed workers with W < WPN collapse into one layout. */
	ok(!load("profiles/local.cfg", &s, &p), "local spec and plan");
	is_int(p.nlayouts, 2, "two layouts");
	ok(p.layouts[0].workers == 1 && p.layouts[0].wpn == 1 && p.layouts[1].wpn == 2,
	   "w1 at WPN 2 is the w1-wpn1 layout, planned once");
	plan_release(&p);
	spec_release(&s);
	reductions();
	return done_testing();
}
