/*
 * kernels/options.c: parsing and checking sweetspot-kernel's options. Lists
 * (collectives, algorithms, assignments) are comma separated words; sizes go
 * through tuner/parse.c. Every error is one sentence in the caller's buffer;
 * main() decides who prints it (rank 0) and exits 2.
 */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

const char *const coll_names[COLL_N] = { "bcast", "gather", "allgather" };
const char *const alg_names[ALG_N] = { "direct", "leader", "allin" };
const char *const mode_names[3] = { "offload", "mpi", "bw" };

const char kopts_usage_text[] =
	"usage: sweetspot-kernel [options]   (launched with mpirun or srun; the\n"
	"       W workers are the highest ranks, the other ranks are hosts)\n"
	"  -c, --collective LIST   bcast,gather,allgather              (default bcast)\n"
	"  -a, --algorithm LIST    direct (bcast, gather), leader|allin (allgather);\n"
	"                          default: all that apply\n"
	"  -A, --assignment LIST   block,cyclic,locality               (default block)\n"
	"  -w, --workers N         worker ranks, 1 <= N < hosts, N <= ranks/2 (default 1)\n"
	"  -m, --sizes LIST|RANGE  e.g. 256K,1M or 256K:4M (powers of two) (default 1M)\n"
	"  -i, --iterations N      timed iterations per point          (default 100)\n"
	"  -x, --warmup N          untimed iterations first            (default 10)\n"
	"  -t, --transport NAME    rma | verbs | auto (verbs when a device exists)\n"
	"      --device NAME       verbs device (default: the first with an active port)\n"
	"      --ib-port N         its port (default 1)\n"
	"      --gid-index N       RoCE GID (default: the first RoCE v2 one, IPv4-mapped\n"
	"                          preferred)\n"
	"      --ppn N             host ranks per node (for locality); default: from\n"
	"                          the ranks' host names\n"
	"      --mode MODE         offload (default) | mpi (host-only MPI collectives)\n"
	"                          | bw (transport write bandwidth, rank 0 to rank 1)\n"
	"      --no-validate       skip the byte check (it is on by default)\n"
	"  -o, --output FILE       JSON lines (default stdout)\n"
	"  -h, --help              this text\n"
	"  -V, --version           the version\n"
	"Environment: SWEETSPOT_FAULT=flip-byte,hang,bad-rkey (tests), SLURMD_NODENAME and\n"
	"SWEETSPOT_HOSTNAME (host names reported instead of gethostname()).\n";

int alg_applies(enum coll c, enum alg a)
{
	if (c == COLL_ALLGATHER)
		return a == ALG_LEADER || a == ALG_ALLIN;
	return a == ALG_DIRECT;
}

/* A comma list of words from names[n] into a bit mask; what names it. */
static int parse_words(const char *s, const char *const *names, int n,
		       const char *what, unsigned *out, char *err, size_t errlen)
{
	const char *p = s;

	*out = 0;
	if (!*s) {
		snprintf(err, errlen, "empty %s list", what);
		return -1;
	}
	while (1) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 0; i < n; i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len))
				break;
		if (i == n) {
			char list[128] = "";

			for (int j = 0; j < n; j++) {
				strcat(list, j ? ", " : "");
				strcat(list, names[j]);
			}
			snprintf(err, errlen, "unknown %s '%.*s' (one of: %s)", what,
				 (int)len, p, list);
			return -1;
		}
		*out |= 1u << i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return 0;
}

int kopts_parse_faults(const char *s, unsigned *out, char *err, size_t errlen)
{
	static const char *const names[] = { "flip-byte", "hang", "bad-rkey" };
	unsigned bits;

	*out = 0;
	if (!s || !*s)
		return 0;
	if (parse_words(s, names, 3, "fault in SWEETSPOT_FAULT", &bits, err, errlen))
		return -1;
	*out = (bits & 1 ? FAULT_FLIP_BYTE : 0) | (bits & 2 ? FAULT_HANG : 0) |
	       (bits & 4 ? FAULT_BAD_RKEY : 0);
	return 0;
}

static int parse_int_opt(const char *name, const char *s, uint64_t min, uint64_t max,
			 int *out, char *err, size_t errlen)
{
	char why[160];
	uint64_t v;

	if (parse_uint(s, min, max, &v, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", name, why);
		return -1;
	}
	*out = (int)v;
	return 0;
}

enum { OPT_PPN = 256, OPT_NO_VALIDATE, OPT_MODE, OPT_DEVICE, OPT_IB_PORT, OPT_GID_INDEX };

int kopts_parse(int argc, char **argv, struct kopts *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "collective", required_argument, NULL, 'c' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "assignment", required_argument, NULL, 'A' },
		{ "workers", required_argument, NULL, 'w' },
		{ "sizes", required_argument, NULL, 'm' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'x' },
		{ "transport", required_argument, NULL, 't' },
		{ "ppn", required_argument, NULL, OPT_PPN },
		{ "no-validate", no_argument, NULL, OPT_NO_VALIDATE },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "ib-port", required_argument, NULL, OPT_IB_PORT },
		{ "gid-index", required_argument, NULL, OPT_GID_INDEX },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char why[200];
	unsigned bits;
	int c;

	*o = (struct kopts){
		.mode = MODE_OFFLOAD, .colls = 1u << COLL_BCAST, .algs = 0,
		.asgs = 1u << ASG_BLOCK, .workers = 1, .sizes = { 1u << 20 },
		.nsizes = 1, .iterations = 100, .warmup = 10, .transport = "auto",
		.ppn = 0, .validate = 1, .output = NULL,
		.device = NULL, .ib_port = 1, .gid_index = -1,
	};
	opterr = 0;	/* every rank parses: the messages are ours, printed once */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:a:A:w:m:i:x:t:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_words(optarg, coll_names, COLL_N, "collective", &o->colls, err, errlen))
				return -1;
			break;
		case 'a':
			if (parse_words(optarg, alg_names, ALG_N, "algorithm", &o->algs, err, errlen))
				return -1;
			break;
		case 'A':
			if (parse_words(optarg, asg_names, ASG_N, "assignment", &o->asgs, err, errlen))
				return -1;
			break;
		case 'w':
			if (!strcmp(optarg, "0")) {
				snprintf(err, errlen, "--workers 0: at least one worker is needed");
				return -1;
			}
			if (parse_int_opt("--workers", optarg, 1, 1 << 20, &o->workers, err, errlen))
				return -1;
			break;
		case 'm':
			if (parse_sizes(optarg, 1, o->sizes, KOPTS_MAX_SIZES, &o->nsizes,
					why, sizeof(why))) {
				snprintf(err, errlen, "--sizes: %s", why);
				return -1;
			}
			for (size_t i = 0; i < o->nsizes; i++)
				if (o->sizes[i] > KOPTS_MAX_BYTES) {
					snprintf(err, errlen, "--sizes: %llu bytes is more than the 1G limit",
						 (unsigned long long)o->sizes[i]);
					return -1;
				}
			break;
		case 'i':
			if (parse_int_opt("--iterations", optarg, 1, 100000000, &o->iterations, err, errlen))
				return -1;
			break;
		case 'x':
			if (parse_int_opt("--warmup", optarg, 0, 100000000, &o->warmup, err, errlen))
				return -1;
			break;
		case 't':
			if (strcmp(optarg, "rma") && strcmp(optarg, "verbs") && strcmp(optarg, "auto")) {
				snprintf(err, errlen, "unknown transport '%s' (one of: rma, verbs, auto)", optarg);
				return -1;
			}
			snprintf(o->transport, sizeof(o->transport), "%s", optarg);
			break;
		case OPT_PPN:
			if (parse_int_opt("--ppn", optarg, 1, 1 << 20, &o->ppn, err, errlen))
				return -1;
			break;
		case OPT_DEVICE:
			if (!*optarg || strlen(optarg) >= 64) {
				snprintf(err, errlen, "--device: '%s' is not a device name", optarg);
				return -1;
			}
			o->device = optarg;
			break;
		case OPT_IB_PORT:
			if (parse_int_opt("--ib-port", optarg, 1, 255, &o->ib_port, err, errlen))
				return -1;
			break;
		case OPT_GID_INDEX:
			if (parse_int_opt("--gid-index", optarg, 0, 65535, &o->gid_index, err, errlen))
				return -1;
			break;
		case OPT_NO_VALIDATE:
			o->validate = 0;
			break;
		case OPT_MODE:
			if (parse_words(optarg, mode_names, 3, "mode", &bits, err, errlen))
				return -1;
			if (bits & (bits - 1)) {
				snprintf(err, errlen, "--mode takes one mode, not '%s'", optarg);
				return -1;
			}
			o->mode = bits == 1 ? MODE_OFFLOAD : bits == 2 ? MODE_MPI : MODE_BW;
			break;
		case 'o':
			if (!*optarg) {
				snprintf(err, errlen, "--output: empty file name");
				return -1;
			}
			o->output = optarg;
			break;
		case 'h':
			o->help = 1;
			break;
		case 'V':
			o->version = 1;
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				snprintf(err, errlen, "unknown option '-%c' (see --help)", optopt);
			else
				snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
		return -1;
	}
	/* Each listed collective needs one listed algorithm of its own, and
	 * each listed algorithm must serve one listed collective. */
	if (o->algs && o->mode == MODE_OFFLOAD) {
		for (int cc = 0; cc < COLL_N; cc++) {
			int any = 0;

			if (!(o->colls & (1u << cc)))
				continue;
			for (int a = 0; a < ALG_N; a++)
				any |= (o->algs & (1u << a)) && alg_applies(cc, a);
			if (!any) {
				snprintf(err, errlen, "no listed algorithm applies to %s (%s)",
					 coll_names[cc], cc == COLL_ALLGATHER ? "leader or allin" : "direct");
				return -1;
			}
		}
		for (int a = 0; a < ALG_N; a++) {
			int any = 0;

			if (!(o->algs & (1u << a)))
				continue;
			for (int cc = 0; cc < COLL_N; cc++)
				any |= (o->colls & (1u << cc)) && alg_applies(cc, a);
			if (!any) {
				snprintf(err, errlen, "algorithm %s applies to none of the listed collectives",
					 alg_names[a]);
				return -1;
			}
		}
	}
	return 0;
}

int kopts_check_size(const struct kopts *o, int size, char *err, size_t errlen)
{
	int hosts = size - o->workers;
	uint64_t send;

	if (o->mode == MODE_BW) {
		if (size < 2) {
			snprintf(err, errlen, "--mode bw needs at least 2 ranks, not %d", size);
			return -1;
		}
		return 0;
	}
	if (o->mode == MODE_MPI) {
		if (o->ppn > size) {
			snprintf(err, errlen, "--ppn %d is more than the %d ranks", o->ppn, size);
			return -1;
		}
		return 0;
	}
	if (o->workers >= hosts) {
		snprintf(err, errlen, "--workers %d leaves %d host rank%s of %d: workers must be fewer than hosts",
			 o->workers, hosts > 0 ? hosts : 0, hosts == 1 ? "" : "s", size);
		return -1;
	}
	if (o->workers > size / 2) {
		snprintf(err, errlen, "--workers %d is more than half of the %d ranks", o->workers, size);
		return -1;
	}
	if (o->ppn > hosts) {
		snprintf(err, errlen, "--ppn %d is more than the %d host ranks", o->ppn, hosts);
		return -1;
	}
	if (kopts_region_bytes(o, hosts, &send) > (16ull << 30)) {
		snprintf(err, errlen, "the largest size times %d hosts needs more than 16G per rank", hosts);
		return -1;
	}
	return 0;
}

uint64_t kopts_region_bytes(const struct kopts *o, int hosts, uint64_t *send_area)
{
	uint64_t mmax = 0;

	for (size_t i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > mmax)
			mmax = o->sizes[i];
	*send_area = mmax;
	if (o->colls & ((1u << COLL_GATHER) | (1u << COLL_ALLGATHER)))
		return mmax + (uint64_t)hosts * mmax;
	return 2 * mmax;
}
