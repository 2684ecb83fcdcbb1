/*
 * kernels/hosts.c: the host name of each rank, gathered to every rank, for
 * the rank_hosts field of the output and the locality assignment.
 */
#include "hosts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *local_name(char *buf, size_t len)
{
	const char *s;

	if ((s = getenv("SLURMD_NODENAME")) && *s) {
		snprintf(buf, len, "%s", s);
		return "SLURMD_NODENAME";
	}
	if ((s = getenv("SWEETSPOT_HOSTNAME")) && *s) {
		snprintf(buf, len, "%s", s);
		return "SWEETSPOT_HOSTNAME";
	}
	if (gethostname(buf, len))
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	return "gethostname";
}

int hosts_gather(MPI_Comm comm, struct hostinfo *hi)
{
	static const char *const sources[] = { "SLURMD_NODENAME", "SWEETSPOT_HOSTNAME",
					       "gethostname" };
	char mine[HOST_NAME_LEN], *all;
	const char *src;
	int size, srcidx;

	memset(mine, 0, sizeof(mine));
	src = local_name(mine, sizeof(mine));
	srcidx = !strcmp(src, sources[0]) ? 0 : !strcmp(src, sources[1]) ? 1 : 2;
	MPI_Comm_size(comm, &size);
	all = xmalloc((size_t)size * HOST_NAME_LEN);
	hi->names = xcalloc((size_t)size, sizeof(*hi->names));
	if (MPI_Allgather(mine, HOST_NAME_LEN, MPI_CHAR, all, HOST_NAME_LEN, MPI_CHAR, comm) !=
	    MPI_SUCCESS) {
		free(all);
		return -1;
	}
	MPI_Bcast(&srcidx, 1, MPI_INT, 0, comm);
	for (int r = 0; r < size; r++) {
		hi->names[r] = xstrdup(all + (size_t)r * HOST_NAME_LEN);
	}
	hi->size = size;
	hi->source = sources[srcidx];
	free(all);
	return 0;
}

void hosts_release(struct hostinfo *hi)
{
	for (int r = 0; r < hi->size; r++)
		free(hi->names[r]);
	free(hi->names);
	hi->names = NULL;
	hi->size = 0;
}

int hosts_distinct(const struct hostinfo *hi, int n, int *most)
{
	int distinct = 0;

	*most = 0;
	for (int r = 0; r < n; r++) {
		int first = 1, count = 0;

		for (int q = 0; q < n; q++)
			if (!strcmp(hi->names[q], hi->names[r])) {
				count++;
				if (q < r)
					first = 0;
			}
		distinct += first;
		if (count > *most)
			*most = count;
	}
	return distinct;
}
