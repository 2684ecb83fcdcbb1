/*
 * kernels/sched/assign.h: which worker serves which host rank, and on which node
 * every rank sits. Pure C (no MPI) so the unit tests can check the rules.
 * Hosts are 0..H-1, workers are numbered 0..W-1 here (ranks H..H+W-1).
 */
#ifndef SWEETSPOT_ASSIGN_H
#define SWEETSPOT_ASSIGN_H

enum asg { ASG_BLOCK, ASG_CYCLIC, ASG_LOCALITY, ASG_N };

extern const char *const asg_names[ASG_N];

/*
 * owner[h] = the worker serving host h.
 * block: contiguous chunks of H/W hosts per worker; the H%W hosts left over
 *   go one each to workers 0, 1, ... again (the DPU-Bench rule).
 * cyclic: host h to worker h%W.
 * locality: each node's hosts go round robin to the workers on that node;
 *   hosts of nodes without a worker go round robin to all workers.
 *   host_node[h] and worker_node[w] are node numbers (-1: on no host's node).
 * Returns 0, or -1 on nonsensical arguments.
 */
int assign_hosts(enum asg kind, int H, int W, const int *host_node, const int *worker_node,
		 int *owner);

/*
 * Node numbers from host names: names[r] for every rank r < H+W.
 * ppn > 0: host h is on node h/ppn; with n such nodes, worker w on node
 * w*n/W (workers spread in blocks over the nodes, as DPU hostfiles list
 * them). ppn == 0: hosts with the same name share a node (numbered in order
 * of first appearance); a worker is on the node whose name equals its own,
 * or is the longest prefix of its own followed by '-', '.' or '_'
 * ("node01-bf" is node01's DPU); else -1. Returns the number of host nodes.
 */
int assign_nodes(const char *const *names, int H, int W, int ppn, int *host_node, int *worker_node);

#endif
