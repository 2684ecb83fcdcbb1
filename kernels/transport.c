/*
 * kernels/transport.c: the registry of transport backends, and the check for
 * an active verbs port that --transport auto/verbs need. A backend registers
 * by a line in backends[] (its constructor allocates the backend struct,
 * whose first member is struct transport, and sets ops).
 */
#include "transport.h"
#include "transport_verbs.h"

#include <infiniband/verbs.h>
#include <string.h>

struct transport *transport_rma_new(void);

static const struct {
	const char *name;
	struct transport *(*make)(void);
} backends[] = {
	{ "rma", transport_rma_new },
	{ "verbs", transport_verbs_new },
};

struct transport *transport_new(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].name, name))
			return backends[i].make();
	return NULL;
}

int transport_registered(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].name, name))
			return 1;
	return 0;
}

int transport_verbs_available(void)
{
	struct ibv_device **list;
	int n = 0, found = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	for (int i = 0; i < n && !found; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr attr;

		if (!ctx)
			continue;
		if (!ibv_query_device(ctx, &attr))
			for (int p = 1; p <= attr.phys_port_cnt && !found; p++) {
				struct ibv_port_attr pa;

				if (!ibv_query_port(ctx, (uint8_t)p, &pa) &&
				    pa.state == IBV_PORT_ACTIVE)
					found = 1;
			}
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return found;
}
