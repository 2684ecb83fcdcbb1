/*
 * tuner/plan/plan.h: what a spec expands to. A layout is (nodes, PPN, W, WPN,
 * placement): the host ranks 0..H-1 sit PPN per node on the first `nodes`
 * nodes, in node order; the W workers take the highest ranks H..H+W-1 and
 * fill the DPUs (or, for onload, the nodes' reserved cores) in node order,
 * up to WPN on each. One launch measures one layout; a point is a layout x
 * collective x algorithm x assignment x size x dtype x op x chunk x window
 * x radix, each axis where it applies (dtype and op: reductions, pairs that
 * do not apply skipped; chunk and window: pipelined ones; radix: knomial).
 * The plan is deterministic:
 * the same spec gives the same layouts, in the same order, with the same
 * ids, so resume and reports can rely on it. Owned by the plan module
 * (issue 4); launch, store and search read plans through this header.
 *
 * Which (W, WPN) pairs are planned, for each placement and node count:
 * - with sweep.workers: every W of the list with every WPN of the list;
 * - without it: for each WPN, W = WPN x d for d = 1, 2, 4, ... DPUs and d =
 *   nodes (every DPU used, WPN on each).
 * A pair where W < WPN is the layout with WPN = W (same placement), so it
 * is planned once under that id. Pairs that break a rule are skipped and
 * counted; a value the spec lists that no layout can use is an error that
 * names the rule: 1 <= W <= H (W <= (H + W) / 2); WPN <= DPU cores (onload
 * cores for onload); W <= WPN x nodes. A size above the kernel's limit
 * (1 GiB, KOPTS_MAX_BYTES) is refused.
 */
#ifndef SWEETSPOT_PLAN_H
#define SWEETSPOT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "point.h"

#include "spec.h"
#include "strvec.h"

struct layout {
	char id[64];	/* "n8-ppn8-w16-wpn2-dpu" */
	unsigned nodes; /* the first `nodes` nodes of the spec */
	unsigned ppn;
	unsigned hosts;	  /* H = nodes x ppn */
	unsigned workers; /* W */
	unsigned wpn;	  /* at most WPN workers per DPU (or node, onload) */
	enum placement placement;
	size_t points; /* points measured in one launch of this layout */
};

struct plan {
	struct layout *layouts; /* owned; in the plan's order */
	size_t nlayouts;
	unsigned repetitions; /* launches per layout */
	size_t skipped;	      /* (W, WPN) pairs dropped by a rule */
};

#define PLAN_INIT             \
	{                     \
		NULL, 0, 0, 0 \
	}

/* Calls fn (when not NULL) for every point one launch of s measures, in
 * the kernel's order; stops early when fn returns nonzero. Returns the
 * number of points visited. */
size_t plan_foreach_point(const struct spec *s, int (*fn)(const struct point *pt, void *data),
			  void *data);

/* What a point's schedule costs, counted over the kernel's own builders
 * (kernels/sched/) for every rank of the layout: remote operations,
 * steps (the longest chain of data transfers, a wait on a signal joining
 * the chains of two ranks), and bytes: over the busiest rank (sent or
 * received) and over the busiest NIC (one per node; a transfer between
 * two ranks of one node crosses it only when one is a DPU worker). */
struct plan_cost {
	uint64_t ops, steps;
	uint64_t rank_bytes, nic_bytes;
};

/* The cost of the offloaded schedule of pt on layout l. 0, or -1 when the
 * kernel's builders have no schedule for it (a schedule the kernel does
 * not run yet). */
int plan_point_cost(const struct layout *l, const struct point *pt, struct plan_cost *out);

/* Builds the plan of a loaded spec. Prints "file:line: message" and
 * returns -1 when a rule leaves a listed value unusable or nothing at all
 * to measure; the caller exits 2. */
int plan_build(const struct spec *s, struct plan *out);
void plan_release(struct plan *p);

/* Distinct points (summed over layouts, without repetitions). */
size_t plan_points(const struct plan *p);
/* Launches: layouts x repetitions. */
size_t plan_launches(const struct plan *p);
/* Measurements a finished run stores: points x repetitions. */
size_t plan_measurements(const struct plan *p);

/* The layout with this id, or NULL. */
const struct layout *plan_find(const struct plan *p, const char *id);

/* 0 if the layout keeps every rule, else -1 with the broken rule's sentence
 * in err. For layouts made by hand (tests, search). */
int layout_check(const struct spec *s, const struct layout *l, char *err, size_t errlen);
/* Fills id from the other fields. */
void layout_set_id(struct layout *l);

/* Total ranks H + W. */
static inline unsigned layout_ranks(const struct layout *l)
{
	return l->hosts + l->workers;
}

/* Host name of a rank (0 <= rank < H + W): hosts PPN per node in node
 * order; worker k (rank H + k) on DPU / node k / WPN. Points into the spec. */
const char *layout_rank_host(const struct spec *s, const struct layout *l, unsigned rank);
/* Node index (0-based) a rank runs on or next to (its DPU's node). */
unsigned layout_rank_node(const struct layout *l, unsigned rank);
/* Workers on the DPU (or reserved cores) of node i. */
unsigned layout_workers_on(const struct layout *l, unsigned node);
/* Nodes whose DPU (or cores) hold at least one worker: ceil(W / WPN). */
unsigned layout_worker_nodes(const struct layout *l);
/* How many distinct hosts the layout's ranks use (host nodes, and DPUs
 * when the workers are there): srun's node count. */
unsigned layout_host_count(const struct spec *s, const struct layout *l);
/* The binary rank runs: host_bin for hosts, spec_worker_bin() for workers. */
const char *layout_rank_bin(const struct spec *s, const struct layout *l, unsigned rank);

/* Appends the kernel arguments every rank of the layout gets:
 * -w W -m SIZES -c LIST -a LIST -A LIST [--dtype LIST --op LIST]
 * [--chunk LIST --window LIST] [--radix LIST] -i N -x N --ppn PPN [-t T]
 * (sizes in bytes, comma-separated; the optional ones where they apply). */
void layout_kernel_args(const struct spec *s, const struct layout *l, struct strvec *args);

#endif
