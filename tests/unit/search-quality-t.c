/*
 * tests/unit/search-quality-t.c: how good the search's decisions are, on
 * landscapes generated here with a seeded PRNG (splitmix64, Box-Muller for
 * lognormal noise). The search sees only the measure callback, never the
 * true means; the test keeps them to score the decision.
 *
 * (a) A/A: one line of 8 layouts (16 nodes x 16 PPN, 8 WPN, workers 1, 2,
 *     4, ..., 128: all powers of two, so the coarse pass measures every one
 *     and the test is on the racing, not the exploration), one group, every
 *     layout the same true OE (80) with lognormal noise of CV 2.5%, at most
 *     4 launches per configuration: the search may declare "best" in at
 *     most 5% of 200 replays; and again where the pooled noise model is
 *     wrong (noise differing between layouts, heavy tails, a drifting
 *     machine, a shared per-launch shift). With noise differing between
 *     layouts (CV 1-8%), measured: 6, 6, 7, 7 of 200 at caps 4, 5, 6, 8
 *     (9 and 11 at caps 4 and 6 before Welch's contrast with the leader).
 * (b) Power: the same line, one layout (drawn per replay) 5% better (84),
 *     CV 2.5%, at most 4 launches per configuration (see POWER_MIN).
 * (c) Cost and regret: a family of landscapes shaped like
 *     tests/data/landscape.cfg (8 nodes x 8 PPN, WPN 1/2/4/8, workers
 *     1..63: 112 layouts; bcast, block and cyclic, 256K/1M/4M: three
 *     decision groups of 224 configurations), knees drawn away from powers
 *     of two, a contention penalty above a few WPN (heavy for block, light
 *     for cyclic), a slow decline past the knee, noise CV drawn in [1%,
 *     5%]. The search with its defaults is scored as the autotuning field
 *     scores a strategy: launches over the grid's (112 x 3), mean and worst
 *     true regret (true best OE of the decision minus the true OE of the
 *     choice) beside the grid's (every layout 3 times, same rule) and
 *     random search's at the same launches, and Kernel Tuner's score. See
 *     FAMILY_* below for what is asserted and why. --heldout scores 24
 *     landscapes of another generator (heldout()), for make bench;
 *     --seeds K scores every landscape of both over K noise replays, the
 *     search's mean regret against the grid's with its 95% interval
 *     (--seeds K family|held-out [I]: that generator alone, or its
 *     landscape I alone, to study one landscape in seconds);
 *     --decisions runs (a) and (b) alone, --power (b) alone, --aa KIND
 *     one A/A line alone; each followed by --cap N (N launches per
 *     configuration instead of 4), --replays R (R replays instead of 200:
 *     the first 200 are the same) or --list (the A/A replays that declared
 *     "best", to pair two builds replay by replay).
 */
#include "tap.h"
#include "pooled.h"
#include "search.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The family's targets (issue 24): the default search within 0.15 of the
 * grid's launches (asserted exactly: the budget enforces it), mean true
 * regret no worse than the grid's on each landscape and worst no worse
 * than the grid's worst. Per landscape is asserted over 20 noise replays
 * (--seeds, make bench): none worse than the grid beyond the replays'
 * spread. make check asserts the family's mean over FAMILY_REPLAYS replays
 * (test_family_replays()); one replay's per-landscape figures are printed. */
#define FAMILY_N       12
#define FAMILY_REPLAYS 5

struct rng {
	uint64_t s;
};

static uint64_t splitmix64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): never 0, so that log() below is finite. */
static double unif(struct rng *r)
{
	return ((double)(splitmix64(r) >> 11) + 0.5) * 0x1p-53;
}

static double gauss(struct rng *r)
{
	double u = unif(r), v = unif(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A factor of mean 1 and coefficient of variation cv, lognormal. */
static double lognoise(struct rng *r, double cv)
{
	double s = sqrt(log1p(cv * cv));

	return exp(s * gauss(r) - s * s / 2);
}

#define MAXL 128
#define MAXG 8

struct land {
	struct search_layout lay[MAXL];
	size_t nl;
	struct point grp[MAXG];
	size_t ng;
	double truth[MAXL * MAXG];
	double cv;
	struct rng rng;
	/* Where the pooled model is wrong (0: off): a per-layout CV (cvl[l]
	 * when set), a shared per-launch shift of CV shift, heavy tails (a
	 * launch is hit by a factor 1 -+ tail with probability ptail), a
	 * drift of the machine (drift per launch, multiplicative). */
	double cvl[MAXL];
	double shift, tail, ptail, drift;
	unsigned launches;
};

static int land_measure(void *ctx, size_t l, unsigned rep, double *oe)
{
	struct land *ld = ctx;

	double common = ld->shift > 0 ? lognoise(&ld->rng, ld->shift) : 1;
	double cv = ld->cvl[l] > 0 ? ld->cvl[l] : ld->cv;

	(void)rep;
	common *= 1 + ld->drift * ld->launches++;
	if (ld->ptail > 0 && unif(&ld->rng) < ld->ptail)
		common *= unif(&ld->rng) < 0.5 ? 1 - ld->tail : 1 + ld->tail;
	for (size_t g = 0; g < ld->ng; g++)
		oe[g] = fmin(100.0, ld->truth[l * ld->ng + g] * common * lognoise(&ld->rng, cv));
	return 0;
}

/* The search's limits: 0 is the search's default (the tests use those). */
static unsigned max_reps, budget;
static const unsigned char *only;

static void run(struct land *ld, enum search_strategy s, struct search_result *res)
{
	struct search_problem p = { ld->lay, ld->nl, ld->grp, ld->ng, 3, land_measure, ld };
	struct search_opts o = SEARCH_OPTS_INIT;

	o.strategy = s;
	o.max_repetitions = max_reps;
	o.budget = budget;
	o.only = only;
	if (search_run(&p, &o, res)) {
		/* A failure here is a bug in the search: say so to prove and stop. */
		printf("Bail out! search_run failed\n");
		exit(1);
	}
}

/* One line of 8 layouts, one group, every layout at level, one at hot. */
static void line8(struct land *ld, uint64_t seed, double level, long hot, double hotv)
{
	ld->nl = 8;
	ld->ng = 1;
	ld->grp[0] = (struct point){ .collective = "bcast",
				     .algorithm = "direct",
				     .assignment = "block",
				     .bytes = 1 << 20 };
	for (size_t l = 0; l < 8; l++) {
		ld->lay[l] = (struct search_layout){ "x", 16, 16, 1u << l, 8, "dpu" };
		ld->truth[l] = (long)l == hot ? hotv : level;
	}
	ld->cv = 0.025;
	ld->rng.s = seed;
	memset(ld->cvl, 0, sizeof(ld->cvl));
	ld->shift = ld->tail = ld->ptail = ld->drift = 0;
	ld->launches = 0;
}

/* The A/A and power replays: at most 4 launches per configuration (the
 * issue's target), i.e. a budget of 32 launches for 8 layouts. Power is
 * asserted at what the search reaches, less a margin (measured: 109 of
 * 200 with Welch's contrast and the augmented expected improvement, 112
 * with the first alone, 120 with the second alone, 125 before either;
 * Welch's contrast keeps the differing-noise A/A off a false 'best' the
 * pooled noise let through); the target, 80%, is not met at 4
 * launches per configuration: 7 rivals 5% below need about 3 launches
 * each to be shown worse at CV 2.5% through Gupta's subset, which leaves
 * the leader too few, and the model's checks (each at 5%) send 1 replay
 * in 8 to the rank rule, which cannot decide on 4 launches
 * (search-quality.sh prints both). */
#define AA_BUDGET 32
#define POWER_MIN 105

/* Launches per configuration the A/A and power replays may spend: 4 (the
 * target, AA_BUDGET) unless --cap N asks for another (search-quality.sh
 * prints the curve of power and false "best" against the cap). */
static unsigned aa_budget = AA_BUDGET;

/* Replays of each A/A line and of the power line: 200 unless --replays R
 * asks for more (the first 200 are the same replays; more narrow the
 * interval of a rate near its bound, and pair two builds replay by
 * replay). */
static unsigned aa_replays = 200;

/* --list: name each A/A replay that declared "best" (to pair two builds). */
static int aa_list;

/* How the A/A line is made wrong for the pooled model. */
enum aa_kind { AA_PLAIN, AA_HETERO, AA_TAILS, AA_DRIFT, AA_SHIFT };

static const char *aa_name(enum aa_kind k)
{
	static const char *names[] = { "plain", "noise differing between layouts (CV 1-8%)",
				       "heavy tails (10% of launches off by 15%)",
				       "drifting machine (+0.2% per launch)",
				       "shared per-launch shift (CV 2%)" };
	return names[k];
}

static void aa_spoil(struct land *ld, enum aa_kind k)
{
	switch (k) {
	case AA_HETERO:
		for (size_t l = 0; l < ld->nl; l++)
			ld->cvl[l] = 0.01 + 0.01 * (double)l;
		break;
	case AA_TAILS:
		ld->ptail = 0.10;
		ld->tail = 0.15;
		break;
	case AA_DRIFT:
		ld->drift = 0.002;
		break;
	case AA_SHIFT:
		ld->shift = 0.02;
		break;
	default:
		break;
	}
}

static void test_aa(enum aa_kind kind)
{
	struct land ld;
	struct search_result r;
	unsigned best = 0, launches = 0, pooled = 0;

	budget = aa_budget;
	for (unsigned i = 0; i < aa_replays; i++) {
		line8(&ld, 1000 + i + 7919 * kind, 80, -1, 0);
		aa_spoil(&ld, kind);
		run(&ld, SEARCH_ADAPTIVE, &r);
		best += r.decisions[0].verdict == DECIDE_BEST;
		if (aa_list && r.decisions[0].verdict == DECIDE_BEST)
			diag("A/A %s: replay %u 'best'", aa_name(kind), i);
		pooled += r.decisions[0].model.pooled;
		launches += r.launches;
		search_result_release(&r);
	}
	budget = 0;
	diag("A/A, %s: 'best' declared in %u of %u replays (%.1f%%), %.2f launches per "
	     "configuration (cap %u), pooled model used in %u",
	     aa_name(kind), best, aa_replays, 100.0 * best / aa_replays,
	     launches / (8.0 * aa_replays), aa_budget / 8, pooled);
	ok(best <= aa_replays / 20, "A/A, %s: false 'best' in at most 5%% of replays (%u/%u)",
	   aa_name(kind), best, aa_replays);
}

static void test_power(void)
{
	struct land ld;
	struct search_result r;
	struct rng pick = { 77 };
	unsigned hit = 0, launches = 0, wrong = 0, undecided = 0, leader = 0;

	budget = aa_budget;
	for (unsigned i = 0; i < aa_replays; i++) {
		long hot = (long)(splitmix64(&pick) % 8);

		line8(&ld, 5000 + i, 80, hot, 84);
		run(&ld, SEARCH_ADAPTIVE, &r);
		hit += r.decisions[0].verdict == DECIDE_BEST && r.decisions[0].choice.layout == hot;
		wrong += r.decisions[0].verdict == DECIDE_BEST &&
			 r.decisions[0].choice.layout != hot;
		undecided += r.decisions[0].verdict == DECIDE_UNDECIDED;
		leader += r.decisions[0].verdict == DECIDE_UNDECIDED &&
			  r.decisions[0].leader.layout == hot;
		launches += r.launches;
		search_result_release(&r);
	}
	budget = 0;
	diag("power: chose the 5%% better layout with 'best' in %u of %u replays (%.1f%%), "
	     "%.2f launches per configuration (cap %u); 'best' on another %u, undecided %u "
	     "(the better one leading in %u)",
	     hit, aa_replays, 100.0 * hit / aa_replays, launches / (8.0 * aa_replays),
	     aa_budget / 8, wrong, undecided, leader);
	ok(hit >= POWER_MIN * aa_replays / 200,
	   "power: 'best' on the better layout in at least %u of %u (%u; "
	   "target 80%%)",
	   POWER_MIN * aa_replays / 200, aa_replays, hit);
	ok(launches <= 4 * 8 * aa_replays,
	   "power: at most 4 launches per configuration spent (%.2f)",
	   launches / (8.0 * aa_replays));
}

/* The true OE of one configuration of a family landscape: a rise to the
 * knee (in effective workers, which a crowded DPU makes fewer), a slow
 * decline past it, and contention above k0 WPN. */
struct shape {
	double top, knee, alpha, decline, k0, pen[2];
};

static double shape_oe(const struct shape *sh, unsigned w, unsigned wpn, size_t assign,
		       double size_factor)
{
	double eff = w * pow(wpn, -0.2), knee = sh->knee * size_factor, oe;

	if (eff < knee)
		oe = sh->top * pow(eff / knee, sh->alpha);
	else
		oe = sh->top * (1 - sh->decline * log2(eff / knee));
	oe *= 1 - fmin(0.9, sh->pen[assign] * pow(fmax(0, wpn - sh->k0), 1.5) / 100);
	return fmax(1, oe);
}

static int is_pow2d(double v)
{
	double e = log2(v);

	return fabs(e - round(e)) < 0.15;
}

/* Landscape i of the family: layouts as landscape.py lays them out. */
static void family(struct land *ld, unsigned i)
{
	static const unsigned wpns[4] = { 1, 2, 4, 8 };
	static const double sizes[3] = { 0.75, 1.0, 1.35 };
	struct rng r = { 424242 + 7919ULL * i };
	struct shape sh;

	ld->nl = 0;
	for (unsigned w = 1; w < 64; w++)
		for (size_t k = 0; k < 4; k++) {
			unsigned p = wpns[k] < w ? wpns[k] : w, seen = 0;

			if (w > p * 8)
				continue;
			for (size_t j = 0; j < ld->nl; j++)
				seen |= ld->lay[j].workers == w && ld->lay[j].wpn == p;
			if (!seen)
				ld->lay[ld->nl++] = (struct search_layout){
					"x", 8, 8, w, p, "dpu"
				};
		}
	do
		sh.knee = 5 + unif(&r) * 30;
	while (is_pow2d(sh.knee) || is_pow2d(sh.knee * 0.75) || is_pow2d(sh.knee * 1.35));
	sh.top = 90 + unif(&r) * 8;
	sh.alpha = 0.5 + unif(&r) * 0.5;
	sh.decline = unif(&r) * 0.01;
	sh.k0 = 3 + unif(&r) * 2;
	sh.pen[0] = 1.5 + unif(&r) * 1.5;
	sh.pen[1] = 0.2 + unif(&r) * 0.3;
	ld->ng = 0;
	for (size_t a = 0; a < 2; a++)
		for (size_t s = 0; s < 3; s++)
			ld->grp[ld->ng++] = (struct point){ .collective = "bcast",
							    .algorithm = "direct",
							    .assignment = a ? "cyclic" : "block",
							    .bytes = (uint64_t)(256 << 10)
								     << (2 * s) };
	for (size_t l = 0; l < ld->nl; l++)
		for (size_t g = 0; g < ld->ng; g++)
			ld->truth[l * ld->ng + g] = shape_oe(&sh, ld->lay[l].workers,
							     ld->lay[l].wpn, g / 3, sizes[g % 3]);
	ld->cv = 0.01 + unif(&r) * 0.04;
	ld->rng.s = 99 + i;
	memset(ld->cvl, 0, sizeof(ld->cvl));
	ld->shift = ld->tail = ld->ptail = ld->drift = 0;
	ld->launches = 0;
}

/* The held-out generator: landscapes the search was not developed on.
 * Same kind of machine (8 nodes x 8 PPN, WPN 1/2/4/8), other shapes: a
 * rise to a knee drawn in [3, 48] workers with a smooth (not kinked)
 * transition, a plateau that may still climb slowly or fall off past a
 * second knee, contention from a WPN drawn in [2, 6] with its own
 * strength per assignment, the knee moving with the message size by a
 * drawn exponent, top OE in [70, 99], noise CV in [1%, 5%] and a shared
 * per-launch shift (the machine's state, common to every point of one
 * launch) of CV [0, 2%]. */
static void heldout(struct land *ld, unsigned i)
{
	struct rng r = { 0xfeedULL + 104729ULL * i };
	double knee = 3 + unif(&r) * 45, top = 70 + unif(&r) * 29, sharp = 2 + unif(&r) * 6;
	double slope = (unif(&r) - 0.6) * 0.03, fall = 1.5 + unif(&r) * 2, k0 = 2 + unif(&r) * 4;
	double pen[2] = { 1 + unif(&r) * 3, unif(&r) * 1.0 }, sexp = 0.2 + unif(&r) * 0.6;

	family(ld, 0); /* the layouts and groups; the truth is redrawn */
	for (size_t l = 0; l < ld->nl; l++)
		for (size_t g = 0; g < ld->ng; g++) {
			double w = ld->lay[l].workers * pow(ld->lay[l].wpn, -0.15);
			double kn = knee * pow(2, sexp * ((double)(g % 3) - 1)), x = w / kn, oe;

			/* Smooth knee: x / (1 + x^sharp)^(1/sharp) rises as x, then flat. */
			oe = top * x / pow(1 + pow(x, sharp), 1 / sharp);
			oe *= 1 + slope * fmax(0, log2(x));
			if (x > fall)
				oe *= 1 - 0.08 * log2(x / fall);
			oe *= 1 -
			      fmin(0.9, pen[g / 3] * pow(fmax(0, ld->lay[l].wpn - k0), 1.3) / 100);
			ld->truth[l * ld->ng + g] = fmax(1, fmin(100, oe));
		}
	ld->cv = 0.01 + unif(&r) * 0.04;
	ld->shift = unif(&r) * 0.02;
	ld->rng.s = 777 + i;
}

/* The regret of one search's choices, the true best OE of each decision
 * minus the true OE of its choice: the mean over decisions in *mean, the
 * worst returned. */
static double regret_of(const struct land *ld, const struct search_result *r, double *mean)
{
	double worst = 0, sum = 0;

	for (size_t d = 0; d < r->ndecisions; d++) {
		const struct search_decision *sd = &r->decisions[d];
		double top = 0, got;

		for (size_t l = 0; l < ld->nl; l++)
			for (size_t g = 0; g < ld->ng; g++)
				if (ld->grp[g].bytes == sd->bytes)
					top = fmax(top, ld->truth[l * ld->ng + g]);
		got = sd->choice.layout < 0 ? 0 :
					      ld->truth[(size_t)sd->choice.layout * ld->ng +
							(size_t)sd->choice.group];
		worst = fmax(worst, top - got);
		sum += top - got;
	}
	if (mean)
		*mean = r->ndecisions ? sum / (double)r->ndecisions : 0;
	return worst;
}

/* One landscape scored as the autotuning field scores a strategy: the
 * search with its defaults; the grid (every layout `repetitions` times,
 * decided by the same rule, no racing); random search at the search's
 * launches (random layouts, `repetitions` launches each, same rule),
 * averaged over RANDOM_N draws. Score (Kernel Tuner's): 1 - regret /
 * random's regret, 0 = random, 1 = the optimum. */
#define RANDOM_N 5

struct score {
	double cost, mean, worst;     /* the search */
	double grid_mean, grid_worst; /* the grid */
	double rnd_mean;	      /* random at the same launches */
	unsigned verdicts[3];
	unsigned pooled, decisions, surrogate_ok;
};

static void score_one(struct land *ld, void (*make)(struct land *, unsigned), unsigned i,
		      struct score *sc)
{
	struct search_result r;
	unsigned used;
	static unsigned char pick[MAXL];

	make(ld, i);
	run(ld, SEARCH_ADAPTIVE, &r);
	sc->cost = (double)r.launches / r.grid_launches;
	sc->worst = regret_of(ld, &r, &sc->mean);
	used = r.launches;
	for (size_t d = 0; d < r.ndecisions; d++) {
		sc->verdicts[r.decisions[d].verdict]++;
		sc->pooled += (unsigned)r.decisions[d].model.pooled;
		sc->surrogate_ok += (unsigned)r.decisions[d].surrogate_ok;
		sc->decisions++;
	}
	search_result_release(&r);
	make(ld, i);
	budget = (unsigned)(ld->nl * 3);
	run(ld, SEARCH_GRID, &r);
	sc->grid_worst = regret_of(ld, &r, &sc->grid_mean);
	search_result_release(&r);
	sc->rnd_mean = 0;
	for (unsigned k = 0; k < RANDOM_N; k++) {
		struct rng rr = { 31337 + 1000ULL * i + k };
		size_t want = used / 3 ? used / 3 : 1, have = 0;
		double m;

		make(ld, i);
		ld->rng.s += 17 * (k + 1);
		memset(pick, 0, sizeof(pick));
		while (have < want && have < ld->nl) {
			size_t l = (size_t)(splitmix64(&rr) % ld->nl);

			have += !pick[l];
			pick[l] = 1;
		}
		only = pick;
		budget = (unsigned)(want * 3);
		run(ld, SEARCH_GRID, &r);
		regret_of(ld, &r, &m);
		sc->rnd_mean += m / RANDOM_N;
		search_result_release(&r);
		only = NULL;
	}
	budget = 0;
}

static double field_score(double regret, double random)
{
	return random > 0 ? 1 - regret / random : regret > 0 ? 0 : 1;
}

/* The family (make) scored: per landscape, then over the family. Returns
 * the number of landscapes where the search's mean regret exceeds the
 * grid's by more than slack, and sets *cost_max. */
static unsigned test_family(const char *name, void (*make)(struct land *, unsigned), unsigned nl,
			    double slack, double *cost_max, double *mean, double *grid_mean)
{
	static struct land ld;
	double sm = 0, gm = 0, sw = 0, gw = 0, sscore = 0;
	unsigned worse = 0, v[3] = { 0 }, pooled = 0, dec = 0, sok = 0;

	*cost_max = 0;
	(void)slack;
	for (unsigned i = 0; i < nl; i++) {
		struct score sc = { 0 };

		score_one(&ld, make, i, &sc);
		diag("%s %2u: CV %.1f%%, %.3f of the grid; regret mean %.2f worst %.2f | grid %.2f "
		     "%.2f | random %.2f; score %.2f",
		     name, i, ld.cv * 100, sc.cost, sc.mean, sc.worst, sc.grid_mean, sc.grid_worst,
		     sc.rnd_mean, field_score(sc.mean, sc.rnd_mean));
		*cost_max = fmax(*cost_max, sc.cost);
		sm += sc.mean / nl;
		gm += sc.grid_mean / nl;
		sw = fmax(sw, sc.worst);
		gw = fmax(gw, sc.grid_worst);
		sscore += field_score(sc.mean, sc.rnd_mean) / nl;
		worse += sc.mean > sc.grid_mean;
		for (int k = 0; k < 3; k++)
			v[k] += sc.verdicts[k];
		pooled += sc.pooled;
		dec += sc.decisions;
		sok += sc.surrogate_ok;
	}
	diag("%s: cost <= %.3f of the grid (target 0.15); mean regret %.2f (grid %.2f), worst %.2f "
	     "(grid %.2f); landscapes where the mean regret is above the grid's: %u of %u; score "
	     "against random %.2f; verdicts best %u tie %u undecided %u; pooled model in %u of %u "
	     "decisions, surrogate fit good in %u",
	     name, *cost_max, sm, gm, sw, gw, worse, nl, sscore, v[DECIDE_BEST], v[DECIDE_TIE],
	     v[DECIDE_UNDECIDED], pooled, dec, sok);
	*mean = sm;
	*grid_mean = gm;
	return worse;
}

/* The two-sided 95% Student quantile at df degrees of freedom, by
 * bisection on the two-sided p. */
static double t975(unsigned df)
{
	double tq = 1, lo = 1, hi = 100;

	for (int it = 0; it < 60; it++) {
		tq = (lo + hi) / 2;
		if (pooled_t_p(tq, df) > 0.05)
			lo = tq;
		else
			hi = tq;
	}
	return tq;
}

/* Replay j of landscape i (the measuring PRNG's seed moved by 1000 per
 * replay; replay 0 is the one test_family() scores): the search's and the
 * grid's true regret on the same seed, mean (m[0] search, m[1] grid) and
 * worst over the decisions (w[0], w[1]). The share of the grid's launches
 * the search used goes to *cost_max when above it. */
static void replay_pair(struct land *ld, void (*make)(struct land *, unsigned), unsigned i,
			unsigned j, double m[2], double w[2], double *cost_max)
{
	struct search_result r;

	make(ld, i);
	ld->rng.s += 1000ULL * j;
	run(ld, SEARCH_ADAPTIVE, &r);
	w[0] = regret_of(ld, &r, &m[0]);
	*cost_max = fmax(*cost_max, (double)r.launches / r.grid_launches);
	search_result_release(&r);
	make(ld, i);
	ld->rng.s += 1000ULL * j;
	budget = (unsigned)(ld->nl * 3);
	run(ld, SEARCH_GRID, &r);
	budget = 0;
	w[1] = regret_of(ld, &r, &m[1]);
	search_result_release(&r);
}

/* Mean and 95% half-width (Student, k - 1 df) of k paired differences. */
static void paired_interval(const double *d, unsigned k, double *mean, double *half)
{
	double md = 0, vd = 0;

	for (unsigned j = 0; j < k; j++)
		md += d[j] / k;
	for (unsigned j = 0; j < k; j++)
		vd += (d[j] - md) * (d[j] - md) / (k - 1);
	*mean = md;
	*half = t975(k - 1) * sqrt(vd / k);
}

/* The sampling spread of one replay's figures: every landscape of the
 * generator replayed with k noise seeds (replay_pair()), and the mean
 * difference of the search's and the grid's mean regrets with its 95%
 * interval (Student's t over the k paired replays). A landscape whose
 * interval lies above 0 is worse than the grid beyond what the replays'
 * noise explains. The generator's worst regret (over its landscapes and
 * decisions) is compared the same way, replay by replay, its interval
 * going to wd[0..1]. Returns the number of landscapes worse beyond the
 * spread; the most of the grid's launches a search used goes to
 * *cost_max. */
static unsigned test_spread(const char *name, void (*make)(struct land *, unsigned), unsigned nl,
			    unsigned k, long only_i, double *cost_max, double wd[2])
{
	static struct land ld;
	unsigned above = 0, outside = 0, better = 0, n = only_i >= 0 ? 1 : nl;
	double sm = 0, gm = 0, ws[64] = { 0 }, wg[64] = { 0 }, dw[64], mw, hw, sw = 0, gw = 0;

	for (unsigned i = 0; i < nl; i++) {
		double d[64], md, h, ms = 0, mg = 0;

		if (only_i >= 0 && i != (unsigned)only_i)
			continue;
		for (unsigned j = 0; j < k; j++) {
			double m[2], w[2];

			replay_pair(&ld, make, i, j, m, w, cost_max);
			d[j] = m[0] - m[1];
			ms += m[0] / k;
			mg += m[1] / k;
			ws[j] = fmax(ws[j], w[0]);
			wg[j] = fmax(wg[j], w[1]);
		}
		paired_interval(d, k, &md, &h);
		above += ms > mg;
		outside += md - h > 0;
		better += md + h < 0;
		sm += ms / n;
		gm += mg / n;
		diag("%s %2u over %u replays: mean regret %.2f, grid %.2f; difference %+.2f, 95%% "
		     "interval [%+.2f, %+.2f]%s",
		     name, i, k, ms, mg, md, md - h, md + h,
		     md - h > 0 ? " (worse)" :
		     md + h < 0 ? " (better)" :
				  "");
	}
	for (unsigned j = 0; j < k; j++) {
		dw[j] = ws[j] - wg[j];
		sw += ws[j] / k;
		gw += wg[j] / k;
	}
	paired_interval(dw, k, &mw, &hw);
	wd[0] = mw - hw;
	wd[1] = mw + hw;
	diag("%s over %u replays each: mean regret %.2f against the grid's %.2f; above the grid's "
	     "on %u of %u landscapes, beyond the replays' spread on %u; below it beyond the spread "
	     "on %u",
	     name, k, sm, gm, above, n, outside, better);
	diag("%s over %u replays each: worst regret %.2f against the grid's %.2f (mean of each "
	     "replay's worst), difference %+.2f, 95%% interval [%+.2f, %+.2f]",
	     name, k, sw, gw, mw, wd[0], wd[1]);
	return outside;
}

/* make check's gate on the family: its mean regret over the FAMILY_N
 * landscapes, replayed FAMILY_REPLAYS times, against the grid's on the
 * same seeds. Asserted: not above the grid's beyond the replays' spread
 * (the 95% interval of the per-replay difference of family means does
 * not lie above 0). One replay cannot be the gate: its family mean moves
 * by +-0.05 with the noise seed alone, the size of the differences a
 * change to the search makes. The target per landscape, over 20 replays,
 * is make bench's (--seeds). */
static void test_family_replays(void)
{
	static struct land ld;
	double d[FAMILY_REPLAYS], md, h, cost = 0, sm = 0, gm = 0;

	for (unsigned j = 0; j < FAMILY_REPLAYS; j++) {
		double s = 0, g = 0;

		for (unsigned i = 0; i < FAMILY_N; i++) {
			double mr[2], w[2];

			replay_pair(&ld, family, i, j, mr, w, &cost);
			s += mr[0] / FAMILY_N;
			g += mr[1] / FAMILY_N;
		}
		d[j] = s - g;
		sm += s / FAMILY_REPLAYS;
		gm += g / FAMILY_REPLAYS;
		diag("family, replay %u: mean regret %.3f, grid %.3f", j, s, g);
	}
	paired_interval(d, FAMILY_REPLAYS, &md, &h);
	ok(md - h <= 0,
	   "family over %u replays: mean regret %.3f against the grid's %.3f, difference %+.3f "
	   "[%+.3f, %+.3f], not above the grid's beyond the spread",
	   FAMILY_REPLAYS, sm, gm, md, md - h, md + h);
	ok(cost <= 0.15 + 1e-9,
	   "family over %u replays: every search within 0.15 of the grid (%.3f)", FAMILY_REPLAYS,
	   cost);
}

int main(int argc, char **argv)
{
	double cost, m, gm;
	unsigned worse;

	if (argc > 2 && !strcmp(argv[1], "--seeds")) {
		/* make bench: each landscape of both generators over k replays. */
		int k = atoi(argv[2]);
		const char *gen = argc > 3 ? argv[3] : NULL;
		long li = -1;
		char *end = NULL;

		if (k < 2 || k > 64)
			return fprintf(stderr, "search-quality-t: --seeds takes 2..64\n"), 2;
		if (argc > 4)
			li = strtol(argv[4], &end, 10);
		if ((gen && strcmp(gen, "family") && strcmp(gen, "held-out")) ||
		    (argc > 4 &&
		     (*end || li < 0 || li >= (!strcmp(gen, "family") ? FAMILY_N : 24))))
			return fprintf(stderr,
				       "search-quality-t: --seeds K [family [0..%d] | "
				       "held-out [0..23]]\n",
				       FAMILY_N - 1),
			       2;
		plan(!gen || !strcmp(gen, "family") ? 3 : 1);
		cost = 0;
		worse = 0;
		if (!gen || !strcmp(gen, "family")) {
			double wd[2];
			unsigned fw = test_spread("family", family, FAMILY_N, (unsigned)k, li,
						  &cost, wd);

			ok(fw == 0,
			   "--seeds: no landscape of the family worse than the grid beyond the "
			   "replays' spread (%u)",
			   fw);
			ok(wd[0] <= 0,
			   "--seeds: the family's worst regret not above the grid's beyond the "
			   "replays' spread ([%+.2f, %+.2f])",
			   wd[0], wd[1]);
			worse += fw;
		}
		if (!gen || !strcmp(gen, "held-out")) {
			double wd[2];

			worse += test_spread("held-out", heldout, 24, (unsigned)k, li, &cost, wd);
		}
		diag("landscapes worse than the grid beyond the replays' spread: %u of %d", worse,
		     li >= 0		    ? 1 :
		     !gen		    ? FAMILY_N + 24 :
		     !strcmp(gen, "family") ? FAMILY_N :
					      24);
		ok(cost <= 0.15 + 1e-9, "--seeds: every replay within 0.15 of the grid (%.3f)",
		   cost);
		return done_testing();
	}
	if (argc > 1 && !strcmp(argv[1], "--heldout")) {
		/* make bench: the held-out family, more landscapes. */
		plan(2);
		worse = test_family("held-out", heldout, 24, 0, &cost, &m, &gm);
		ok(cost <= 0.15 + 1e-9, "held-out: default search within 0.15 of the grid (%.3f)",
		   cost);
		ok(m <= gm, "held-out: mean regret no worse than the grid's (%.2f against %.2f)", m,
		   gm);
		return done_testing();
	}
	/* --decisions / --power / --aa KIND, then --cap N (launches per
	 * configuration; make bench: what a larger cap buys), --replays R
	 * (more than 200, to narrow a rate or pair two builds) and --list (name
	 * each A/A replay that declared "best"). */
	for (int a = argc > 1 && !strcmp(argv[1], "--aa") ? 3 : 2; argc > 1 && a < argc; a++) {
		long v = a + 1 < argc ? strtol(argv[a + 1], NULL, 10) : 0;

		if (!strcmp(argv[a], "--list")) {
			aa_list = 1;
			continue;
		}
		if (!strcmp(argv[a], "--cap") && v >= 1 && v <= 64)
			aa_budget = 8 * (unsigned)v;
		else if (!strcmp(argv[a], "--replays") && v >= 20 && v <= 7000)
			aa_replays = (unsigned)v;
		else
			return fprintf(stderr, "search-quality-t: --decisions|--power|--aa KIND "
					       "[--cap 1..64] [--replays 20..7000] [--list]\n"),
			       2;
		a++;
	}
	if (argc > 2 && !strcmp(argv[1], "--aa")) {
		/* One A/A line alone: plain, hetero, tails, drift or shift. */
		static const char *kinds[] = { "plain", "hetero", "tails", "drift", "shift" };

		for (int k = 0; k < 5; k++)
			if (!strcmp(argv[2], kinds[k])) {
				plan(1);
				test_aa((enum aa_kind)k);
				return done_testing();
			}
		return fprintf(stderr, "search-quality-t: --aa plain|hetero|tails|drift|shift\n"),
		       2;
	}
	if (argc > 1 && !strcmp(argv[1], "--power")) {
		/* The power replays alone (a quick check of the racing). */
		plan(2);
		test_power();
		return done_testing();
	}
	if (argc > 1 && strcmp(argv[1], "--decisions"))
		return fprintf(stderr,
			       "search-quality-t: [--seeds K ... | --heldout | --decisions | "
			       "--power | --aa KIND] [--cap N] [--replays R] [--list]\n"),
		       2;
	plan(argc > 1 && !strcmp(argv[1], "--decisions") ? 7 : 10);
	test_aa(AA_PLAIN);
	test_aa(AA_HETERO);
	test_aa(AA_TAILS);
	test_aa(AA_DRIFT);
	test_aa(AA_SHIFT);
	test_power();
	/* --decisions: the A/A and power replays alone. */
	if (argc > 1 && !strcmp(argv[1], "--decisions"))
		return done_testing();
	worse = test_family("family", family, FAMILY_N, 0, &cost, &m, &gm);
	ok(cost <= 0.15 + 1e-9,
	   "family: the default search uses at most 0.15 of the grid (%.3f, "
	   "whole launches, rounded down)",
	   cost);
	diag("family, replay 0: mean regret above the grid's on %u of %d landscapes (one replay "
	     "cannot tell; --seeds 20 in make bench asserts none beyond the spread)",
	     worse, FAMILY_N);
	test_family_replays();
	return done_testing();
}
