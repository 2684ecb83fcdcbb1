/*
 * kernels/transport_verbs.h: the libibverbs backend of the transport
 * interface (kernels/transport.h): one protection domain, one registered
 * region per rank, RC queue pairs to the ranks this rank talks to, RDMA
 * READ and WRITE with a send window and selective signalling. Reached only
 * through transport_new("verbs") and the ops table.
 */
#ifndef SWEETSPOT_TRANSPORT_VERBS_H
#define SWEETSPOT_TRANSPORT_VERBS_H

#include "transport.h"

/* A fresh, unconnected verbs transport (ops set, nothing acquired), owned
 * by the caller: run ops->init, then ops->fini, then free(). NULL when out
 * of memory. */
struct transport *transport_verbs_new(void);

#endif
