/* tests/unit/kernel-options-t.c: sweetspot-kernel's option parsing and the
 * checks that need the number of ranks. */
#include "tap.h"
#include "../../kernels/sched/schedule.c"
#include "../../kernels/sched/coll.c"
#include "../../kernels/sched/coll_bcast.c"
#include "../../kernels/sched/coll_gather.c"
#include "../../kernels/sched/coll_allgather.c"
#include "../../kernels/sched/coll_reduce.c"
#include "../../kernels/sched/reduce.c"
#include "../../kernels/sched/validate.c"
#include "../../kernels/options.c"
#include "../../kernels/sched/assign.c"

/* Parses the NULL-terminated option list that follows len; argv is sized
 * from the list itself. */
static int parse(struct kopts *o, char *err, size_t len, ...)
{
	char **argv;
	int argc = 1, ret;
	va_list ap;

	va_start(ap, len);
	while (va_arg(ap, char *))
		argc++;
	va_end(ap);
	argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv)
		abort();
	argv[0] = "sweetspot-kernel";
	va_start(ap, len);
	for (int i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	ret = kopts_parse(argc, argv, o, err, len);
	free(argv);
	return ret;
}

int main(void)
{
	struct kopts o;
	char err[320];
	unsigned f;
	uint64_t send;

	plan(40);
	ok(!parse(&o, err, sizeof(err), NULL), "no options");
	ok(o.colls == 1u << COLL_BCAST && o.asgs == 1u << ASG_BLOCK && o.workers == 1 &&
		   o.nsizes == 1 && o.sizes[0] == 1u << 20 && o.iterations == 100 &&
		   o.warmup == 10 && !strcmp(o.transport, "auto") && o.validate &&
		   o.mode == MODE_OFFLOAD,
	   "defaults of the issue");
	ok(!parse(&o, err, sizeof(err), "-c", "gather,allgather", "-a", "direct,allin", "-A",
		  "cyclic,locality", "-w", "3", "-m", "256K:1M", "-i", "7", "-x", "0", "-t", "rma",
		  "--ppn", "4", "--no-validate", "-o", "f.json", NULL),
	   "every option");
	ok(o.colls == 6 && o.algs == 5 && o.asgs == 6 && o.workers == 3 && o.nsizes == 3 &&
		   o.iterations == 7 && o.warmup == 0 && !strcmp(o.transport, "rma") &&
		   o.ppn == 4 && !o.validate && !strcmp(o.output, "f.json"),
	   "every value stored");
	ok(!parse(&o, err, sizeof(err), "--collective=allgather", "--mode", "mpi", NULL) &&
		   o.mode == MODE_MPI,
	   "long forms, --mode mpi");
	ok(parse(&o, err, sizeof(err), "-c", "bcast,", NULL) &&
		   strstr(err, "unknown collective ''"),
	   "empty list item");
	ok(!parse(&o, err, sizeof(err), "-m", "1K,3K,24K", NULL) && o.sizes[2] == 24576,
	   "sizes need not be powers of two");
	ok(parse(&o, err, sizeof(err), "-m", "1K:3K", NULL) && strstr(err, "powers of two"),
	   "ranges are: %s", err);
	ok(parse(&o, err, sizeof(err), "-m", "2G", NULL) && strstr(err, "1G limit"),
	   "size over 1G");
	ok(parse(&o, err, sizeof(err), "-w", "x", NULL) && strstr(err, "not a number"),
	   "workers not a number");
	ok(parse(&o, err, sizeof(err), "stray", NULL) && strstr(err, "unexpected argument 'stray'"),
	   "stray argument");
	ok(parse(&o, err, sizeof(err), "-o", "", NULL) && strstr(err, "empty file name"),
	   "empty -o");
	ok(parse(&o, err, sizeof(err), "--mode", "mpi,bw", NULL), "one mode only");
	ok(!parse(&o, err, sizeof(err), NULL) && o.nradixes == 1 && o.radixes[0] == 2 &&
		   o.nchunks == 1 && o.chunks[0] == 65536 && o.nwindows == 1 && o.windows[0] == 2 &&
		   o.burst == 1,
	   "--radix, --chunk, --window, --burst default to 2, 64K, 2, 1");
	ok(!parse(&o, err, sizeof(err), "-c", "bcast,allgather,allreduce", "-a",
		  "knomial,ring,recdbl", "--radix", "8", NULL) &&
		   o.radixes[0] == 8 &&
		   o.algs == (1u << ALG_KNOMIAL | 1u << ALG_RING | 1u << ALG_RECDBL),
	   "the schedules, --radix 8");
	ok(!parse(&o, err, sizeof(err), "--chunk", "4K,5000,1M", "--window", "1,3", "--radix",
		  "2,4,8", NULL) &&
		   o.nchunks == 3 && o.chunks[1] == 5000 && o.chunks[2] == 1 << 20 &&
		   o.nwindows == 2 && o.windows[1] == 3 && o.nradixes == 3 && o.radixes[2] == 8,
	   "--chunk, --window and --radix take lists (point axes, as the tuner passes them)");
	ok(parse(&o, err, sizeof(err), "--chunk", "4K,4K", NULL) &&
		   strstr(err, "--chunk: 4K is listed twice"),
	   "a value twice: %s", err);
	ok(parse(&o, err, sizeof(err), "--window", "2,", NULL) &&
		   strstr(err, "--window: '2,' is not a comma list"),
	   "an empty item: %s", err);
	ok(parse(&o, err, sizeof(err), "--chunk", "1K,2G", NULL) &&
		   strstr(err, "--chunk: 2147483648 bytes is more than the 1G limit"),
	   "a chunk over 1G: %s", err);
	ok(parse(&o, err, sizeof(err), "--mode", "bw", "--window", "4", NULL) &&
		   strstr(err, "--mode bw takes --burst N"),
	   "bw: --window points to --burst: %s", err);
	ok(!parse(&o, err, sizeof(err), "--mode", "bw", "--burst", "16", NULL) && o.burst == 16 &&
		   o.windows[0] == 2,
	   "bw: --burst 16, the window untouched");
	ok(parse(&o, err, sizeof(err), "--radix", "9", NULL) &&
		   strstr(err, "--radix: 9 is out of range"),
	   "--radix 9: %s", err);
	ok(parse(&o, err, sizeof(err), "-c", "gather", "-a", "ring", NULL) &&
		   strstr(err, "no listed algorithm applies to gather (direct or knomial)"),
	   "ring is not a gather's: %s", err);
	ok(parse(&o, err, sizeof(err), "-c", "reduce", "-a", "recdbl", NULL) &&
		   strstr(err,
			  "no listed algorithm applies to reduce (slice or assigned or knomial)"),
	   "recdbl is not a reduce's: %s", err);
	ok(alg_is_default(ALG_ALLIN) && !alg_is_default(ALG_RING) &&
		   alg_is_pipelined(COLL_GATHER, ALG_KNOMIAL) &&
		   alg_is_pipelined(COLL_GATHER, ALG_DIRECT) &&
		   alg_is_pipelined(COLL_ALLGATHER, ALG_LEADER) &&
		   !alg_is_pipelined(COLL_BCAST, ALG_DIRECT) &&
		   alg_is_pipelined(COLL_BCAST, ALG_KNOMIAL) &&
		   alg_is_pipelined(COLL_REDUCE, ALG_SLICE),
	   "without -a, the algorithms of before; chunk applies to reductions, gather, allgather, "
	   "bcast knomial");
	ok(!parse(&o, err, sizeof(err), NULL) && o.calib_tolerance == 0.10,
	   "--calib-tolerance defaults to 0.10");
	ok(!parse(&o, err, sizeof(err), "--calib-tolerance", "0.25", NULL) &&
		   o.calib_tolerance == 0.25,
	   "--calib-tolerance 0.25");
	ok(parse(&o, err, sizeof(err), "--calib-tolerance", "1e-1", NULL) &&
		   strstr(err, "not a number"),
	   "--calib-tolerance takes plain decimals: %s", err);
	ok(parse(&o, err, sizeof(err), "--calib-tolerance", "1001", NULL) &&
		   strstr(err, "out of range"),
	   "--calib-tolerance over 1000: %s", err);

	ok(!kopts_parse_faults(NULL, &f, err, sizeof(err)) && f == 0, "no faults");
	ok(!kopts_parse_faults("hang,flip-byte", &f, err, sizeof(err)) &&
		   f == (FAULT_HANG | FAULT_FLIP_BYTE),
	   "both faults");
	ok(kopts_parse_faults("flip", &f, err, sizeof(err)), "unknown fault");

	parse(&o, err, sizeof(err), "-w", "3", NULL);
	ok(!kopts_check_size(&o, 7, err, sizeof(err)), "3 workers of 7 ranks");
	ok(!kopts_check_size(&o, 6, err, sizeof(err)),
	   "3 workers of 6 ranks: as many workers as hosts");
	ok(kopts_check_size(&o, 5, err, sizeof(err)) && strstr(err, "at most as many as hosts"),
	   "3 workers of 5 ranks: %s", err);
	parse(&o, err, sizeof(err), "--mode", "mpi", "-w", "3", NULL);
	ok(!kopts_check_size(&o, 2, err, sizeof(err)), "mpi mode ignores --workers");
	parse(&o, err, sizeof(err), "-c", "bcast,gather", "-m", "4K,64K", NULL);
	is_int(kopts_region_bytes(&o, 5, &send), 65536 * 6 + SCHED_FLAG_BYTES(6),
	       "gather: region = send + hosts x largest + flags");
	parse(&o, err, sizeof(err), "-m", "4K,64K", NULL);
	is_int(kopts_region_bytes(&o, 5, &send), 65536 * 2 + SCHED_FLAG_BYTES(6),
	       "bcast: region = send + largest + flags");
	{
		/* --help is made from the option table and the collectives'. */
		char *text = NULL, line[64];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int all = 1;

		kopts_usage(f);
		fclose(f);
		for (int c = 0; c < COLL_N; c++) {
			snprintf(line, sizeof(line), "  %s:", coll_names[c]);
			all &= !!strstr(text, line);
		}
		ok(all && strstr(text, " recdbl*\n") && strstr(text, "      --burst N ") &&
			   strstr(text, "  -c, --collective LIST   "),
		   "--help lists every collective, its algorithms, --burst");
		ok(strstr(text, "--chunk LIST        pipelined algorithms: bytes per step (default "
				"64K)") &&
			   strstr(text, "(default 2)\n      --window") == NULL &&
			   strstr(text, "chunks in flight (default 2)"),
		   "the axes' defaults are the kernel's");
		free(text);
	}
	return done_testing();
}
