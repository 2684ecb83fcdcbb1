/*
 * tuner/model/model.h: the performance model. It predicts a point (ref, comm,
 * compute and total times, both OE forms) by simulating, operation by
 * operation, the very schedules the kernel runs: coll_build() of
 * kernels/sched/ for every rank of the layout, with the kernel's geometry
 * (offload.c: owner from assign.c, S, R, F as kopts_region lays them out).
 *
 * The machine: nodes of ppn host ranks; workers k on node k / wpn, on the
 * node's DPU or on its own cores (onload). A transfer between two ranks
 * takes one of three paths:
 *   shm   same node, same side (hosts with hosts, onload workers with
 *         hosts): the rma transport copies it with the initiator's CPU
 *         (synchronous), through the node's memory bus;
 *   net   different nodes: posted, then done by the NICs (asynchronous);
 *   pcie  a DPU worker and a host of its own node: asynchronous DMA.
 * Each path has a latency L, per-byte costs of one read and one write
 * stream, and a per-byte cost of the resource it shares (G_share: the
 * node's memory bus, each NIC direction, each PCIe direction). Contention
 * is serialisation, as NSIM-ACE does it: a shared resource serves one
 * transfer at a time per direction, reserved first come first served in
 * simulated time, so k concurrent streams get min(k / G, 1 / G_share).
 * A rank's CPU is one thread running the kernel's executor: it posts every
 * ready remote operation (o each), runs ready local arithmetic, takes
 * satisfied flags, then waits for everything it posted; a flag is seen
 * `poll` after the signal lands. Where a node has fewer cores than active
 * ranks, a rank's CPU costs stretch by active / cores once its CPU work in
 * the phase passes the scheduler's time slice (`slice`): the OS hands a
 * core to a process for a slice at least, and the kernel times every rank
 * from its own start, so a phase shorter than that is never seen shared.
 * Parameters come from calibration (model_fit.c); the simulator is pure C.
 * Where every node's schedules are node 0's shifted by whole nodes, node
 * 0's ranks are simulated for every node's (model_sim_classes), with the
 * same result (docs/model.md, "Classes of equivalent ranks").
 */
#ifndef SWEETSPOT_MODEL_H
#define SWEETSPOT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "assign.h"
#include "schedule.h"

enum model_path { PATH_SHM, PATH_NET, PATH_PCIE, PATH_N };

struct model_link {
	double L;		/* us from post to completion, beyond the bytes */
	double g_read, g_write; /* us per byte of one stream */
	double g_share;		/* us per byte of the shared resource (aggregate) */
};

struct model_params {
	struct model_link path[PATH_N];
	double o;	 /* CPU us per posted remote operation */
	double g_reduce; /* CPU us per byte of reduction arithmetic */
	double g_copy;	 /* CPU us per byte of a local copy */
	double poll;	 /* us from a signal landing to its waiter seeing it */
	double t0;	 /* us every active rank spends per iteration anyway */
	/* CPU us a process runs unshared on an oversubscribed core before
	 * the OS shares it: the scheduler's slice, not fitted (MODEL_OS_SLICE). */
	double os_slice;
	/* us per byte through a DPU's memory controllers, all of them
	 * together: every byte a DPU worker reads or writes passes them, and
	 * its cores share them (BlueField-2 has one for its 8 cores). 0: not
	 * modelled (a calibration cannot see it; a machine description can
	 * say it). */
	double dpu_g_share;
	/* Quality, from calibration: relative (log) residual rms of the fit,
	 * launch-to-launch relative spread, points fitted, R^2 of log times. */
	double resid, noise, r2;
	int npoints;
	unsigned calibrated; /* bit per path kind the data determined */
};

/* Every parameter a machine description or a calibration sets, by index:
 * its name ("net.L", "o", ...; NULL past the last) and where it lives. */
#define MODEL_NPARAMS 18
const char *model_param_name(int i);
double *model_param(struct model_params *p, int i);
/* The parameters whose bit is clear in set, from `from`. */
void model_params_fill(struct model_params *p, unsigned set, const struct model_params *from);

/* A machine description (model_desc.c, `model --machine FILE`): the
 * parameters it sets (bit i: parameter i) over the defaults, and the
 * cores it names (0: not named). */
struct model_desc {
	char name[128];
	struct model_params params;
	unsigned set;
	int host_cores, dpu_cores;
};

/* Loads the description at path. 0, or -1 after error() with file:line
 * (nothing of it to use). */
int model_desc_load(const char *path, struct model_desc *d);

/* The least cost per byte a fit gives (us/B): 1 TB/s, faster than any
 * memory or link these kernels run on; the SMPI platform's ceiling too. */
#define MODEL_G_MIN 1e-6

/* Linux's scheduler gives a runnable process the core for a base slice of
 * 0.75 ms (CFS's sched_min_granularity, EEVDF's base_slice), times 1 +
 * log2(cores) up to 8 cores: the least of them. */
#define MODEL_OS_SLICE 750.0

/* Defaults of a machine never measured (order of magnitude of a
 * 100 Gb/s NIC and a DDR4 node); calibration replaces them. */
void model_params_default(struct model_params *p);

/* The machine a point runs on. */
struct model_machine {
	int nodes, ppn, W, wpn;
	int dpu;	/* workers on DPUs, else on the nodes' own cores */
	int host_cores; /* cores of a host node (oversubscription) */
	int dpu_cores;	/* cores of a DPU */
	/* Same-node peers reached by RMA (asynchronous, as the net path),
	 * not by the initiator's copy into a shared window: the kernel under
	 * SMPI, which gives ranks no shared window. 0: copies. */
	int shm_rma;
};

/* What a point is, beyond the machine. */
struct model_point {
	enum coll coll;
	enum alg alg;
	enum asg asg;
	size_t m;	   /* bytes */
	size_t mmax;	   /* the launch's largest size (region layout) */
	int has_reduction; /* the launch lists a reduction (region layout) */
	size_t chunk;	   /* 0: the kernel's default, 64K */
	int window;	   /* 0: the kernel's default, 2 */
	int radix;	   /* knomial; 0: the kernel's default, 2 */
	enum dtype dt;	   /* reductions (DT_INT32, RO_SUM elsewhere) */
	enum redop op;
};

/* The CPU work of a phase's active ranks (unstretched, us): all of them
 * together, and the busiest single rank's. */
struct model_cpu {
	double total, busiest;
};

struct model_pred {
	double ref_us, comm_us, compute_us, total_us;
	/* When the hosts' compute ends beside the workers: compute_us, or
	 * onload, later where the workers take a share of their cores (the
	 * part the application keeps, compute_us / host_us: seed 004's
	 * availability). */
	double host_us;
	/* The comm phase's CPU work (unstretched): every worker's together,
	 * and the busiest worker's. Onload, total_us is at least the time the
	 * node's hosts and workers take on its cores shared fairly. */
	struct model_cpu worker_cpu;
	double oe_paper, oe_measured;
	double sd_rel;			    /* relative uncertainty of a time */
	double oe_paper_sd, oe_measured_sd; /* in OE points */
	size_t ops;			    /* operations simulated */
	/* Per phase (ref, comm): ranks simulated for classes of equivalent
	 * ranks (node 0's); 0: every rank was. */
	int classes[2];
	/* Not simulated on its own machine: the nodes of the three smaller
	 * machines its times are extrapolated from (model_predict_budget);
	 * 0s when it was simulated. */
	int extrapolated[3];
};

/* One phase's simulation: the schedules of every rank (ref: hosts'; off:
 * workers'), all starting at 0. f[r]: CPU stretch of rank r (NULL: 1).
 * Returns the phase's time (max over ranks), *cpu (NULL: not wanted) the
 * CPU work the active ranks did, or -1 when the schedules deadlock. */
double model_sim_phase(const struct model_params *p, const struct model_machine *mc,
		       const struct coll_rank *cr, int ref, const double *f, struct model_cpu *cpu,
		       size_t *ops);

/* The same phase by classes (model_sim.c): cr[i] and f[i] are those of
 * node 0's ranks in model_node_ranks() order, and every node's schedules
 * must be node 0's shifted by whole nodes (model_predict checks it). The
 * result equals model_sim_phase()'s on every rank: cpu->total is node 0's
 * CPU work times the nodes (equal to rounding), cpu->busiest node 0's. */
double model_sim_classes(const struct model_params *p, const struct model_machine *mc,
			 const struct coll_rank *cr, int ref, const double *f,
			 struct model_cpu *cpu, size_t *ops);

/* Node 0's ranks into ids (hosts, then workers: ppn + wpn at most);
 * how many. */
int model_node_ranks(const struct model_machine *mc, int *ids);

/* The rank at rank r's place on its node, `by` nodes on (wrapping). */
int model_rank_shift(const struct model_machine *mc, int r, int by);

/* How a phase is simulated: classes when the layout allows (regular: one
 * node's worth of workers on every node, every node's schedules node 0's
 * shifted, o > 0), else every rank; or every rank regardless. */
enum model_sim_mode { MODEL_SIM_AUTO, MODEL_SIM_FULL };

/* Predicts one point. 0, or -1 after error() (a geometry the builders
 * refuse, a deadlock). */
int model_predict(const struct model_params *p, const struct model_machine *mc,
		  const struct model_point *pt, struct model_pred *out);
int model_predict_mode(const struct model_params *p, const struct model_machine *mc,
		       const struct model_point *pt, enum model_sim_mode mode,
		       struct model_pred *out);

/* How much one prediction may build (operations, dependencies and checked
 * blocks of the schedules: time and memory go with them, some 100 bytes
 * and 0.3 us each) before its machine is no longer simulated but
 * extrapolated; machines of at most MODEL_SIM_SMALL nodes always are. */
#define MODEL_SIM_BUDGET 1000000
#define MODEL_SIM_SMALL	 8

/* The same with a budget (0: none). In MODEL_SIM_AUTO, a machine of more
 * than MODEL_SIM_SMALL nodes, each with its wpn workers, whose schedules
 * would take more than the budget is predicted from machines of 2, 4, 8
 * ... nodes (the same ppn, wpn and point), each simulated exactly, the
 * largest three (or two) within the budget: each time extrapolated to the nodes
 * (docs/model.md, "Large machines"), out->extrapolated naming them. */
int model_predict_budget(const struct model_params *p, const struct model_machine *mc,
			 const struct model_point *pt, enum model_sim_mode mode, size_t budget,
			 struct model_pred *out);

/* The node of rank r (hosts ppn per node; worker k on node k / wpn) and
 * whether it sits on a DPU. */
int model_rank_node(const struct model_machine *mc, int r, int *on_dpu);

/* Whether a and b are the same point (field by field: a struct's padding
 * is not compared). */
int model_point_same(const struct model_point *a, const struct model_point *b);

/* One measured point, as the fit and --check see it. */
struct model_obs {
	struct model_machine mc;
	struct model_point pt;
	double ref_us, comm_us, total_us, oe_paper, oe_measured;
	const char *layout; /* borrowed */
	int repetition;
};

/* What a stored point does not say about the machine. */
struct model_env {
	int host_cores, dpu_cores;
	size_t mmax;
	int has_reduction;
	int shm_rma;		 /* model_machine.shm_rma of every observation */
	enum model_sim_mode sim; /* how predictions simulate (MODEL_SIM_AUTO) */
};

struct store_point;

/* The observation of a stored offload point: 0, or -1 (not an offload
 * point the builders know; nothing said). */
int model_obs_from_point(const struct store_point *p, const struct model_env *env,
			 struct model_obs *o);

/* Fits p (starting from its values) to the observations: the shm path,
 * o, g_reduce, g_copy, poll and t0, minimising the squared log ratios of
 * the predicted to the measured ref, comm and total times; sets resid, r2
 * and npoints. Path kinds the observations never use take the shm path's
 * values and are left out of p->calibrated. 0, or -1 after error(). */
int model_fit(const struct model_obs *obs, size_t n, struct model_params *p);

/* Reduces obs to one observation per layout and point, in the order of
 * their first launch: the median of each time over its launches (the
 * statistic --check compares, which one disturbed launch does not move).
 * The count left. */
size_t model_obs_medians(struct model_obs *obs, size_t n);

/* Launch-to-launch relative spread: the rms over points measured in
 * several launches of the log of one launch's total over the mean. */
double model_noise(const struct model_obs *obs, size_t n);

/* Name of a path kind: "shm", "net", "pcie". */
extern const char *const model_path_names[PATH_N];

/* The machine as SimGrid sees it (model_platform.c): every simulated
 * host's speed, which smpirun's smpi/host-speed must equal so that a
 * benchmarked burst of the kernel takes its real duration. */
#define MODEL_SMPI_SPEED "1Gf"

/* The simulated host of rank r: "nK-J" (node K's J-th core) or "dK-J"
 * (DPU K's J-th core). 0, or -1 after error(). */
int model_host_name(const struct model_machine *mc, int r, char *buf, size_t len);

/* The parameters as a SimGrid platform can hold them: a link has one
 * bandwidth whichever rank starts the transfer, so a path's read and write
 * costs become the larger of the two, and no cost is below 1e-6 us/B (the
 * platform's bandwidths stop at 1 TB/s). model_platform_write() writes
 * these, and `model --check --smpi` predicts with them, so that model and
 * SMPI are compared on the same machine. */
void model_params_platform(const struct model_params *in, struct model_params *out);

/* Writes the SimGrid platform (XML 4.1) of machine mc with the links of p,
 * and the hostfile of its ranks in rank order (one simulated host per
 * rank). 0, or -1 after error(). */
int model_platform_write(const struct model_params *p, const struct model_machine *mc,
			 const char *platform, const char *hostfile);

#endif
