/* The PMU registry and the set of backends open in one recording. */
#include "pmu.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

extern const struct pmu_ops pmu_none_ops;
extern const struct pmu_ops pmu_dummy_ops;
extern const struct pmu_ops pmu_perf_ops;
extern const struct pmu_ops pmu_rapl_ops;
extern const struct pmu_ops pmu_file_ops;
extern const struct pmu_ops pmu_exec_ops;
extern const struct pmu_ops pmu_plugin_ops;

/* Every backend; `pperf list` shows them in this order. */
static const struct pmu_ops *const backends[] = {
	&pmu_none_ops,
	&pmu_dummy_ops,
	&pmu_perf_ops,
	&pmu_rapl_ops,
	&pmu_file_ops,
	&pmu_exec_ops,
	&pmu_plugin_ops,
	NULL,
};

const struct pmu_ops *const *pmu_backends(void)
{
	return backends;
}

const struct pmu_ops *pmu_find(const char *name)
{
	for (size_t i = 0; backends[i]; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

int pmu_add_channel(struct pmu *pmu, const char *name, const char *unit, uint32_t kind,
		    uint32_t scope, double scale)
{
	struct pmu_channel *c;

	ALLOC_GROW(pmu->channels, pmu->alloc_channels, pmu->nr_channels + 1);
	c = &pmu->channels[pmu->nr_channels];
	c->name = xstrdup(name);
	c->unit = xstrdup(unit);
	c->kind = kind;
	c->scope = scope;
	c->scale = scale;
	if (scope == CHANNEL_THREAD)
		pmu->nr_thread++;
	else
		pmu->nr_system++;
	return (int)pmu->nr_channels++;
}

/* System channels first, then per-thread ones, so read() and read_thread() fill runs. */
static void order_channels(struct pmu *pmu)
{
	struct pmu_channel *sorted = xcalloc(pmu->nr_channels, sizeof(*sorted));
	uint32_t n = 0;

	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < pmu->nr_channels; i++)
			if ((pmu->channels[i].scope == CHANNEL_THREAD) == pass)
				sorted[n++] = pmu->channels[i];
	free(pmu->channels);
	pmu->channels = sorted;
	pmu->alloc_channels = pmu->nr_channels;
}

int pmu_set_add(struct pmu_set *set, const char *spec)
{
	char *name = xstrdup(spec), *args = strchr(name, ':');
	const struct pmu_ops *ops;
	struct pmu pmu = { 0 };

	if (args)
		*args++ = '\0';
	ops = pmu_find(name);
	if (!ops) {
		error("unknown PMU backend '%s' (see 'pperf list')", name);
		free(name);
		return -1;
	}
	pmu.ops = ops;
	if ((ops->probe && ops->probe() < 0) || ops->open(&pmu, args) < 0) {
		free(name);
		return -1;
	}
	free(name);
	order_channels(&pmu);
	pmu.first_channel = set->nr_channels;
	set->pmus = xreallocarray(set->pmus, set->nr_pmus + 1, sizeof(*set->pmus));
	set->pmus[set->nr_pmus++] = pmu;
	set->nr_channels += pmu.nr_channels;
	return 0;
}

const struct pmu_channel *pmu_set_channel(const struct pmu_set *set, uint32_t i)
{
	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		const struct pmu *pmu = &set->pmus[p];

		if (i >= pmu->first_channel && i < pmu->first_channel + pmu->nr_channels)
			return &pmu->channels[i - pmu->first_channel];
	}
	return NULL;
}

int pmu_set_read(struct pmu_set *set, int64_t *values)
{
	int ret = 0;

	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		struct pmu *pmu = &set->pmus[p];

		if (pmu->nr_system && pmu->ops->read(pmu, values + pmu->first_channel) < 0)
			ret = -1;
	}
	return ret;
}

int pmu_set_thread_start(struct pmu_set *set, pid_t pid, pid_t tid)
{
	int ret = 0;

	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		struct pmu *pmu = &set->pmus[p];

		if (pmu->ops->thread_start && pmu->ops->thread_start(pmu, pid, tid) < 0)
			ret = -1;
	}
	return ret;
}

void pmu_set_thread_end(struct pmu_set *set, pid_t tid)
{
	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		struct pmu *pmu = &set->pmus[p];

		if (pmu->ops->thread_end)
			pmu->ops->thread_end(pmu, tid);
	}
}

int pmu_set_read_thread(struct pmu_set *set, pid_t tid, int64_t *values)
{
	int ret = 0;

	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		struct pmu *pmu = &set->pmus[p];

		if (pmu->nr_thread && pmu->ops->read_thread &&
		    pmu->ops->read_thread(pmu, tid, values + pmu->first_channel + pmu->nr_system) < 0)
			ret = -1;
	}
	return ret;
}

int pmu_set_has_thread_channels(const struct pmu_set *set)
{
	for (uint32_t p = 0; p < set->nr_pmus; p++)
		if (set->pmus[p].nr_thread)
			return 1;
	return 0;
}

void pmu_set_close(struct pmu_set *set)
{
	for (uint32_t p = 0; p < set->nr_pmus; p++) {
		struct pmu *pmu = &set->pmus[p];

		if (pmu->ops->close)
			pmu->ops->close(pmu);
		for (uint32_t i = 0; i < pmu->nr_channels; i++) {
			free((char *)pmu->channels[i].name);
			free((char *)pmu->channels[i].unit);
		}
		free(pmu->channels);
	}
	free(set->pmus);
	*set = (struct pmu_set){ 0 };
}
