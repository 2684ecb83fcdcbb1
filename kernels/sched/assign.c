/*
 * kernels/sched/assign.c: the work assignment rules (block, cyclic, locality) and
 * the mapping of ranks to nodes that locality needs.
 */
#include "assign.h"

#include <string.h>

const char *const asg_names[ASG_N] = { "block", "cyclic", "locality" };

static void assign_block(int H, int W, int *owner)
{
	int chunk = H / W, h = 0;

	for (int w = 0; w < W; w++)
		for (int i = 0; i < chunk; i++)
			owner[h++] = w;
	/* The paper's extra pass: the remainder starts again at worker 0. */
	for (int w = 0; h < H; w++)
		owner[h++] = w;
}

static void assign_locality(int H, int W, const int *host_node, const int *worker_node, int *owner)
{
	int next = 0;

	for (int h = 0; h < H; h++) {
		int nlocal = 0, idx = 0;

		/* The position of h among its node's hosts picks the local worker. */
		for (int w = 0; w < W; w++)
			nlocal += worker_node[w] == host_node[h];
		if (!nlocal) {
			owner[h] = -1;
			continue;
		}
		for (int g = 0; g < h; g++)
			idx += host_node[g] == host_node[h];
		idx %= nlocal;
		for (int w = 0; w < W; w++)
			if (worker_node[w] == host_node[h] && idx-- == 0) {
				owner[h] = w;
				break;
			}
	}
	for (int h = 0; h < H; h++)
		if (owner[h] < 0)
			owner[h] = next++ % W;
}

int assign_hosts(enum asg kind, int H, int W, const int *host_node, const int *worker_node,
		 int *owner)
{
	if (H < 1 || W < 1)
		return -1;
	switch (kind) {
	case ASG_BLOCK:
		assign_block(H, W, owner);
		return 0;
	case ASG_CYCLIC:
		for (int h = 0; h < H; h++)
			owner[h] = h % W;
		return 0;
	case ASG_LOCALITY:
		if (!host_node || !worker_node)
			return -1;
		assign_locality(H, W, host_node, worker_node, owner);
		return 0;
	default:
		return -1;
	}
}

/* Nonzero when worker name w belongs to host name h: equal, or h followed
 * by a separator ("node01-bf", "node01.dpu"). */
static size_t node_match(const char *w, const char *h)
{
	size_t n = strlen(h);

	if (strncmp(w, h, n))
		return 0;
	if (!w[n] || w[n] == '-' || w[n] == '.' || w[n] == '_')
		return n + 1;
	return 0;
}

int assign_nodes(const char *const *names, int H, int W, int ppn, int *host_node, int *worker_node)
{
	int nodes = 0;

	if (ppn > 0) {
		nodes = (H + ppn - 1) / ppn;
		for (int h = 0; h < H; h++)
			host_node[h] = h / ppn;
		for (int w = 0; w < W; w++)
			worker_node[w] = (int)((long long)w * nodes / W);
		return nodes;
	}
	for (int h = 0; h < H; h++) {
		int g;

		for (g = 0; g < h; g++)
			if (!strcmp(names[g], names[h]))
				break;
		host_node[h] = g < h ? host_node[g] : nodes++;
	}
	for (int w = 0; w < W; w++) {
		size_t best = 0;

		worker_node[w] = -1;
		for (int h = 0; h < H; h++) {
			size_t m = node_match(names[H + w], names[h]);

			if (m > best) {
				best = m;
				worker_node[w] = host_node[h];
			}
		}
	}
	return nodes;
}
