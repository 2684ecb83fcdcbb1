/* tests/unit/kernel-assign-t.c: the block, cyclic and locality rules, and
 * ranks to nodes from host names or --ppn. The kernel's modules are plain C
 * compiled into the MPI program; the test builds them in directly. */
#include "tap.h"
#include "../../kernels/sched/assign.c"

static const char *owners(const int *o, int n)
{
	static char buf[256];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? " " : "", o[i]);
	return buf;
}

int main(void)
{
	int o[16], hn[16], wn[8], n;

	plan(16);
	assign_hosts(ASG_BLOCK, 8, 4, NULL, NULL, o);
	is_str(owners(o, 8), "0 0 1 1 2 2 3 3", "block 8/4: chunks of 2");
	assign_hosts(ASG_BLOCK, 7, 3, NULL, NULL, o);
	is_str(owners(o, 7), "0 0 1 1 2 2 0", "block 7/3: the remainder starts again at worker 0");
	assign_hosts(ASG_BLOCK, 5, 3, NULL, NULL, o);
	is_str(owners(o, 5), "0 1 2 0 1", "block 5/3: chunks of 1, remainder to 0 and 1");
	assign_hosts(ASG_CYCLIC, 7, 3, NULL, NULL, o);
	is_str(owners(o, 7), "0 1 2 0 1 2 0", "cyclic 7/3");
	ok(assign_hosts(ASG_BLOCK, 4, 0, NULL, NULL, o) == -1, "no workers: refused");

	/* Two nodes of 3 hosts, one worker each on its DPU. */
	{
		const char *names[] = { "n1", "n1", "n1", "n2", "n2", "n2", "n2-bf", "n1-bf" };

		n = assign_nodes(names, 6, 2, 0, hn, wn);
		is_int(n, 2, "two host nodes from names");
		is_str(owners(hn, 6), "0 0 0 1 1 1", "hosts' nodes in order of first appearance");
		is_str(owners(wn, 2), "1 0", "n2-bf is on n2, n1-bf on n1");
		assign_hosts(ASG_LOCALITY, 6, 2, hn, wn, o);
		is_str(owners(o, 6), "1 1 1 0 0 0", "locality: each worker serves its own node");
	}
	/* Three nodes, two workers on node 0 (onload), none elsewhere. */
	{
		const char *names[] = { "a", "a", "b", "b", "c", "c", "a", "a" };

		assign_nodes(names, 6, 2, 0, hn, wn);
		is_str(owners(wn, 2), "0 0", "onload workers on the hosts' own node");
		assign_hosts(ASG_LOCALITY, 6, 2, hn, wn, o);
		is_str(owners(o, 6), "0 1 0 1 0 1",
		       "locality: own node's hosts split, the rest cyclic");
	}
	{
		const char *names[] = { "node1", "node1", "node10", "node10", "node10-bf", "zzz" };

		assign_nodes(names, 4, 2, 0, hn, wn);
		is_str(owners(wn, 2), "1 -1",
		       "node10-bf is node10's (not node1's); zzz is on no node");
		assign_hosts(ASG_LOCALITY, 4, 2, hn, wn, o);
		is_str(owners(o, 4), "0 1 0 0", "locality: host-less worker takes only the rest");
	}
	/* --ppn: hosts h/ppn, workers spread in blocks over the nodes. */
	n = assign_nodes(NULL, 8, 4, 2, hn, wn);
	is_int(n, 4, "--ppn 2: 8 hosts on 4 nodes");
	is_str(owners(wn, 4), "0 1 2 3", "--ppn 2: one worker per node");
	assign_nodes(NULL, 8, 2, 2, hn, wn);
	is_str(owners(wn, 2), "0 2", "--ppn 2, 2 workers: nodes 0 and 2");
	return done_testing();
}
