/* tests/unit/kernel-options-t.c: sweetspot-kernel's option parsing and the
 * checks that need the number of ranks. */
#include "tap.h"
#include "../../kernels/options.c"
#include "../../kernels/assign.c"

static int parse(struct kopts *o, char *err, size_t len, ...)
{
	char *argv[16] = { "sweetspot-kernel" };
	int argc = 1;
	va_list ap;

	va_start(ap, len);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return kopts_parse(argc, argv, o, err, len);
}

int main(void)
{
	struct kopts o;
	char err[320];
	unsigned f;
	uint64_t send;

	plan(20);
	ok(!parse(&o, err, sizeof(err), NULL), "no options");
	ok(o.colls == 1u << COLL_BCAST && o.asgs == 1u << ASG_BLOCK && o.workers == 1 &&
	   o.nsizes == 1 && o.sizes[0] == 1u << 20 && o.iterations == 100 && o.warmup == 10 &&
	   !strcmp(o.transport, "auto") && o.validate && o.mode == MODE_OFFLOAD, "defaults of the issue");
	ok(!parse(&o, err, sizeof(err), "-c", "gather,allgather", "-a", "direct,allin", "-A", "cyclic,locality",
		  "-w", "3", "-m", "256K:1M", "-i", "7", "-x", "0", "-t", "rma", "--ppn", "4",
		  "--no-validate", "-o", "f.json", NULL), "every option");
	ok(o.colls == 6 && o.algs == 5 && o.asgs == 6 && o.workers == 3 && o.nsizes == 3 &&
	   o.iterations == 7 && o.warmup == 0 && !strcmp(o.transport, "rma") && o.ppn == 4 &&
	   !o.validate && !strcmp(o.output, "f.json"), "every value stored");
	ok(!parse(&o, err, sizeof(err), "--collective=allgather", "--mode", "mpi", NULL) && o.mode == MODE_MPI,
	   "long forms, --mode mpi");
	ok(parse(&o, err, sizeof(err), "-c", "bcast,", NULL) && strstr(err, "unknown collective ''"), "empty list item");
	ok(parse(&o, err, sizeof(err), "-m", "1K,3K", NULL) && strstr(err, "not a power of two"), "size not pow2: %s", err);
	ok(parse(&o, err, sizeof(err), "-m", "2G", NULL) && strstr(err, "1G limit"), "size over 1G");
	ok(parse(&o, err, sizeof(err), "-w", "x", NULL) && strstr(err, "not a number"), "workers not a number");
	ok(parse(&o, err, sizeof(err), "stray", NULL) && strstr(err, "unexpected argument 'stray'"), "stray argument");
	ok(parse(&o, err, sizeof(err), "-o", "", NULL) && strstr(err, "empty file name"), "empty -o");
	ok(parse(&o, err, sizeof(err), "--mode", "mpi,bw", NULL), "one mode only");

	ok(!kopts_parse_faults(NULL, &f, err, sizeof(err)) && f == 0, "no faults");
	ok(!kopts_parse_faults("hang,flip-byte", &f, err, sizeof(err)) && f == (FAULT_HANG | FAULT_FLIP_BYTE), "both faults");
	ok(kopts_parse_faults("flip", &f, err, sizeof(err)), "unknown fault");

	parse(&o, err, sizeof(err), "-w", "3", NULL);
	ok(!kopts_check_size(&o, 7, err, sizeof(err)), "3 workers of 7 ranks");
	ok(kopts_check_size(&o, 6, err, sizeof(err)) && strstr(err, "fewer than hosts"), "3 workers of 6 ranks");
	parse(&o, err, sizeof(err), "--mode", "mpi", "-w", "3", NULL);
	ok(!kopts_check_size(&o, 2, err, sizeof(err)), "mpi mode ignores --workers");
	parse(&o, err, sizeof(err), "-c", "bcast,gather", "-m", "4K,64K", NULL);
	is_int(kopts_region_bytes(&o, 5, &send), 65536 * 6, "gather: region = send + hosts x largest");
	parse(&o, err, sizeof(err), "-m", "4K,64K", NULL);
	is_int(kopts_region_bytes(&o, 5, &send), 65536 * 2, "bcast: region = send + largest");
	return done_testing();
}
