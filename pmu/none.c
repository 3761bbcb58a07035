/*
 * The backends that measure nothing: "none" declares no channel (a plain time profile), "dummy"
 * declares one channel that always reads 0, as upstream pperf's dummy sampler does.
 */
#include "pmu.h"

#include "../lib/util.h"

static int none_open(struct pmu *pmu, const char *args)
{
	(void)pmu;
	if (args && *args)
		return error("PMU backend 'none' takes no arguments (got '%s')", args);
	return 0;
}

static int none_read(struct pmu *pmu, int64_t *values)
{
	(void)pmu;
	(void)values;
	return 0;
}

const struct pmu_ops pmu_none_ops = {
	.name = "none",
	.args = "",
	.help = "no PMU: time profile only (the default)",
	.open = none_open,
	.read = none_read,
};

static int dummy_open(struct pmu *pmu, const char *args)
{
	if (args && *args)
		return error("PMU backend 'dummy' takes no arguments (got '%s')", args);
	pmu_add_channel(pmu, "dummy", "count", CHANNEL_INSTANT, CHANNEL_SYSTEM, 1.0);
	return 0;
}

static int dummy_read(struct pmu *pmu, int64_t *values)
{
	(void)pmu;
	values[0] = 0;
	return 0;
}

const struct pmu_ops pmu_dummy_ops = {
	.name = "dummy",
	.args = "",
	.help = "one channel that always reads 0 (upstream pperf's dummy sampler)",
	.open = dummy_open,
	.read = dummy_read,
};
