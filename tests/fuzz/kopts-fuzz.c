/*
 * tests/fuzz/kopts-fuzz.c: libFuzzer target for sweetspot-kernel's option
 * parser, kopts_parse(). The input is split into argv words at NUL or
 * newline (at most KOPTS_FUZZ_WORDS of them), each word its own allocation
 * so that AddressSanitizer sees a read past any of them. The kernel modules
 * are compiled in, as tests/unit/kernel-options-t.c does: the kernel has no
 * library to link.
 */
#include "../../kernels/sched/schedule.c"
#include "../../kernels/sched/coll.c"
#include "../../kernels/sched/coll_bcast.c"
#include "../../kernels/sched/coll_gather.c"
#include "../../kernels/sched/coll_allgather.c"
#include "../../kernels/options.c"
#include "../../kernels/sched/assign.c"

#define KOPTS_FUZZ_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Cuts data into words after argv[0]; returns argc. */
static int split_words(const uint8_t *data, size_t size, char **argv)
{
	size_t start = 0;
	int argc = 1;

	argv[0] = strdup("sweetspot-kernel");
	for (size_t i = 0; i <= size && argc < KOPTS_FUZZ_WORDS; i++) {
		if (i < size && data[i] != '\0' && data[i] != '\n')
			continue;
		argv[argc] = malloc(i - start + 1);
		memcpy(argv[argc], data + start, i - start);
		argv[argc][i - start] = '\0';
		argc++;
		start = i + 1;
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[KOPTS_FUZZ_WORDS + 1], *none[] = { "sweetspot-kernel", NULL };
	struct kopts o;
	char err[512];
	int argc = split_words(data, size, argv);

	kopts_parse(argc, argv, &o, err, sizeof(err));
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	/* Once more with no options, as the unit tests call it again and again:
	 * the parser must keep nothing of the words just freed. */
	kopts_parse(1, none, &o, err, sizeof(err));
	return 0;
}
