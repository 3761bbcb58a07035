/*
 * The "rapl" backend: RAPL energy counters, from the powercap sysfs tree (intel-rapl zones, also
 * used by AMD) or from perf's `power` PMU (energy-pkg, ...). Counters wrap around; the values
 * recorded are unwrapped (monotonic), as the profile format requires.
 */
#include "pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/util.h"
#include "args.h"

#define POWERCAP_ROOT "/sys/class/powercap"
#define POWER_PMU_ROOT "/sys/bus/event_source/devices/power"

/* The domain kinds a user selects, with their perf power PMU event names. */
static const struct {
	const char *domain, *perf_event;
} kinds[] = {
	{ "package", "energy-pkg" }, { "core", "energy-cores" }, { "uncore", "energy-gpu" },
	{ "dram", "energy-ram" },    { "psys", "energy-psys" },
};

struct rapl_counter {
	char *name;	    /* channel name */
	char *path;	    /* energy_uj (powercap) */
	int fd;
	uint64_t max_range; /* powercap: the counter wraps to 0 past this (µJ); 0 = unknown */
	uint64_t last_raw, value;
	int have;
	uint64_t bad_reads;
};

struct rapl_state {
	int perf; /* 1: perf power PMU counters, 0: powercap files */
	struct rapl_counter *c;
	uint32_t nr;
	uint64_t wraps;
};

/* Does a zone or event of kind `k` pass the domains= selection? */
static int selected(const char *sel, const char *domain)
{
	char *list, *save = NULL;
	int ok = 0;

	if (!sel)
		return 1;
	list = xstrdup(sel);
	for (char *d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save))
		if (!strncmp(domain, d, strlen(d)))
			ok = 1;
	free(list);
	return ok;
}

static int check_domains(const char *sel)
{
	char *list, *save = NULL;
	int ret = 0;

	if (!sel)
		return 0;
	list = xstrdup(sel);
	for (char *d = strtok_r(list, ",", &save); d && !ret; d = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(kinds); k++)
			if (!strcmp(d, kinds[k].domain))
				break;
		if (k == ARRAY_SIZE(kinds))
			ret = error("PMU backend 'rapl': unknown domain '%s' (domains: package, core, "
				    "uncore, dram, psys)",
				    d);
	}
	free(list);
	return ret;
}

static int read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];

	if (read_text_file(path, buf, sizeof(buf)) < 0)
		return -1;
	if (parse_u64(buf, v) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* pread() a counter file: the number in it, or -1 (unreadable, or caught while rewritten). */
static int pread_u64(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return parse_u64(buf, v);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * The powercap zones intel-rapl:P (package P) and intel-rapl:P:S (its subzones) under root,
 * selected by domain. Zones whose energy_uj cannot be opened are counted in *denied.
 */
static int open_powercap(struct rapl_state *st, const char *root, const char *sel, int *denied,
			 char *denied_path, size_t denied_size)
{
	struct dirent **ents;
	int n = scandir(root, &ents, NULL, by_name);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *z = ents[i]->d_name;
		char *dir, *path, name[128], parent[128] = "";
		uint64_t max = 0;
		struct rapl_counter *c;
		const char *colon;
		int fd;

		/* intel-rapl:0 and intel-rapl:0:1; "intel-rapl" itself is the control type. */
		if (strncmp(z, "intel-rapl:", 11) && strncmp(z, "amd-rapl:", 9))
			continue;
		dir = xasprintf("%s/%s", root, z);
		path = xasprintf("%s/name", dir);
		if (read_text_file(path, name, sizeof(name)) < 0 || !*name) {
			free(path);
			free(dir);
			continue;
		}
		free(path);
		if (!selected(sel, name)) {
			free(dir);
			continue;
		}
		/* A subzone is named after its package: package-0/core. */
		colon = strchr(strchr(z, ':') + 1, ':');
		if (colon) {
			char *ppath = xasprintf("%s/%.*s/name", root, (int)(colon - z), z);

			if (read_text_file(ppath, parent, sizeof(parent)) < 0)
				parent[0] = '\0';
			free(ppath);
		}
		path = xasprintf("%s/max_energy_range_uj", dir);
		if (read_u64_file(path, &max) < 0)
			max = 0;
		free(path);
		path = xasprintf("%s/energy_uj", dir);
		free(dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == EACCES || errno == EPERM) {
				if (!(*denied)++)
					snprintf(denied_path, denied_size, "%s", path);
			}
			free(path);
			continue;
		}
		st->c = xreallocarray(st->c, st->nr + 1, sizeof(*st->c));
		c = &st->c[st->nr++];
		*c = (struct rapl_counter){ .path = path, .fd = fd, .max_range = max };
		c->name = *parent ? xasprintf("%s/%s", parent, name) : xstrdup(name);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return 0;
}

/* A "event=0x02" file of a perf PMU: the config value. */
static int parse_event_config(const char *text, uint64_t *config)
{
	const char *p = strstr(text, "event=");
	char *end;

	if (!p)
		return -1;
	errno = 0;
	*config = strtoull(p + 6, &end, 0);
	return errno || end == p + 6 ? -1 : 0;
}

/* The first CPU of every package, from the PMU's cpumask ("0" or "0,18" or "0-1"). */
static int first_cpus(const char *root, int *cpus, int max)
{
	char buf[256], *p, *path = xasprintf("%s/cpumask", root);
	int n = 0;

	if (read_text_file(path, buf, sizeof(buf)) < 0) {
		free(path);
		return 0;
	}
	free(path);
	for (p = buf; *p && n < max;) {
		cpus[n++] = (int)strtol(p, &p, 10);
		while (*p && *p != ',')
			p++;
		if (*p == ',')
			p++;
	}
	return n;
}

static int open_power_pmu(struct rapl_state *st, const char *root, const char *sel, int *err)
{
	char buf[256], *path;
	uint64_t type;
	int cpus[64], ncpus;

	path = xasprintf("%s/type", root);
	if (read_u64_file(path, &type) < 0) {
		free(path);
		*err = ENOENT;
		return -1;
	}
	free(path);
	ncpus = first_cpus(root, cpus, (int)ARRAY_SIZE(cpus));
	if (!ncpus)
		cpus[ncpus++] = 0;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct perf_event_attr attr = { 0 };
		uint64_t config;
		double scale = 1;

		if (!selected(sel, kinds[k].domain))
			continue;
		path = xasprintf("%s/events/%s", root, kinds[k].perf_event);
		if (read_text_file(path, buf, sizeof(buf)) < 0 || parse_event_config(buf, &config) < 0) {
			free(path);
			continue;
		}
		free(path);
		path = xasprintf("%s/events/%s.scale", root, kinds[k].perf_event);
		if (read_text_file(path, buf, sizeof(buf)) < 0 || parse_double(buf, &scale) < 0)
			scale = 1;
		free(path);
		attr.size = sizeof(attr);
		attr.type = (uint32_t)type;
		attr.config = config;
		for (int i = 0; i < ncpus; i++) {
			int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1,
					      PERF_FLAG_FD_CLOEXEC);
			struct rapl_counter *c;

			if (fd < 0) {
				*err = errno;
				continue;
			}
			st->c = xreallocarray(st->c, st->nr + 1, sizeof(*st->c));
			c = &st->c[st->nr++];
			*c = (struct rapl_counter){ .fd = fd };
			c->name = ncpus > 1 ? xasprintf("%s:%d", kinds[k].perf_event, i) :
					      xstrdup(kinds[k].perf_event);
			/* The scale is in the unit file's unit, Joules for every energy event. */
			c->path = xasprintf("%.17g", scale);
		}
	}
	return 0;
}

static void free_state(struct rapl_state *st)
{
	for (uint32_t i = 0; i < st->nr; i++) {
		if (st->c[i].fd >= 0)
			close(st->c[i].fd);
		free(st->c[i].name);
		free(st->c[i].path);
	}
	free(st->c);
	free(st);
}

static int rapl_read(struct pmu *pmu, int64_t *values);

static int rapl_open(struct pmu *pmu, const char *args)
{
	static const char *const keys[] = { "root", "domains", "source", "power_root", NULL };
	struct pmu_args pa;
	struct rapl_state *st;
	const char *root, *proot, *sel, *source;
	char denied_path[512] = "";
	int denied = 0, perr = 0, want_perf, want_powercap, scanned;
	int64_t *tmp;

	if (pmu_args_parse(&pa, "rapl", args, keys, NULL) < 0)
		return -1;
	root = pmu_args_get(&pa, "root") ?: POWERCAP_ROOT;
	proot = pmu_args_get(&pa, "power_root") ?: POWER_PMU_ROOT;
	sel = pmu_args_get(&pa, "domains");
	source = pmu_args_get(&pa, "source") ?: "auto";
	want_powercap = !strcmp(source, "auto") || !strcmp(source, "powercap");
	want_perf = !strcmp(source, "auto") || !strcmp(source, "perf");
	if (!want_perf && !want_powercap) {
		error("PMU backend 'rapl': source=%s is neither 'powercap', 'perf' nor 'auto'", source);
		goto fail_args;
	}
	if (check_domains(sel) < 0)
		goto fail_args;
	st = xcalloc(1, sizeof(*st));
	scanned = want_powercap &&
		  open_powercap(st, root, sel, &denied, denied_path, sizeof(denied_path)) == 0;
	if (want_powercap && !scanned && strcmp(source, "auto")) {
		error_errno("PMU backend 'rapl': cannot read the powercap tree '%s'", root);
		goto fail;
	}
	if (!st->nr && want_perf) {
		open_power_pmu(st, proot, sel, &perr);
		st->perf = st->nr > 0;
	}
	if (!st->nr) {
		if (denied)
			error("cannot read RAPL energy: '%s' is readable by root only (since Linux "
			      "5.10); run pperf as root, or grant read access until the next boot: "
			      "sudo chmod o+r %s/intel-rapl:*/energy_uj%s",
			      denied_path, root,
			      want_perf ? " (or the perf power PMU: sudo sysctl "
					  "kernel.perf_event_paranoid=0)" :
					  "");
		else if (perr == EACCES || perr == EPERM)
			error("cannot read RAPL energy: the perf power PMU '%s' needs "
			      "system-wide counting; run pperf as root or: sudo sysctl "
			      "kernel.perf_event_paranoid=0",
			      proot);
		else if (sel)
			error("no RAPL domain '%s' on this machine: neither '%s' (powercap) nor '%s' "
			      "(perf power PMU) has it; 'pperf list rapl' shows what there is",
			      sel, root, proot);
		else
			error("no RAPL energy counters here: '%s' has no intel-rapl zone and perf "
			      "has no power PMU ('%s'); a VM, or the driver is not loaded (sudo "
			      "modprobe intel_rapl_msr)",
			      root, proot);
		goto fail;
	}
	for (uint32_t i = 0; i < st->nr; i++) {
		double scale = 1e-6;

		if (st->perf)
			parse_double(st->c[i].path, &scale);
		pmu_add_channel(pmu, st->c[i].name, "J", CHANNEL_COUNTER, CHANNEL_SYSTEM, scale);
	}
	pmu->priv = st;
	pmu_args_release(&pa);
	/* A first reading, so the first sample's interval starts at the recording's start. */
	tmp = xcalloc(st->nr, sizeof(*tmp));
	rapl_read(pmu, tmp);
	free(tmp);
	return 0;
fail:
	free_state(st);
fail_args:
	pmu_args_release(&pa);
	return -1;
}

static int rapl_read(struct pmu *pmu, int64_t *values)
{
	struct rapl_state *st = pmu->priv;

	for (uint32_t i = 0; i < st->nr; i++) {
		struct rapl_counter *c = &st->c[i];
		uint64_t raw;

		if (st->perf) {
			if (read(c->fd, &raw, sizeof(raw)) != sizeof(raw))
				raw = c->last_raw, c->bad_reads++;
		} else if (pread_u64(c->fd, &raw) < 0) {
			/* Caught while the file was rewritten, or a read error: hold. */
			c->bad_reads++;
			values[i] = (int64_t)c->value;
			continue;
		}
		if (!c->have) {
			c->have = 1;
			c->value = raw;
		} else if (raw >= c->last_raw) {
			c->value += raw - c->last_raw;
		} else {
			/* Wrapped around past max_energy_range_uj (perf's counters do not wrap). */
			st->wraps++;
			c->value += c->max_range > c->last_raw ? c->max_range - c->last_raw + raw : raw;
		}
		c->last_raw = raw;
		values[i] = (int64_t)c->value;
	}
	return 0;
}

static void rapl_close(struct pmu *pmu)
{
	struct rapl_state *st = pmu->priv;

	if (!st)
		return;
	if (pperf_verbose)
		fprintf(stderr, "pperf: rapl: %llu wraparounds unwrapped\n",
			(unsigned long long)st->wraps);
	for (uint32_t i = 0; i < st->nr; i++)
		if (st->c[i].bad_reads > 16)
			warning("RAPL counter '%s' could not be read %llu times (its value was held)",
				st->c[i].name, (unsigned long long)st->c[i].bad_reads);
	free_state(st);
	pmu->priv = NULL;
}

static void rapl_list(FILE *out)
{
	struct rapl_state st = { 0 };
	char denied_path[512];
	int denied = 0, perr = 0;

	if (open_powercap(&st, POWERCAP_ROOT, NULL, &denied, denied_path, sizeof(denied_path)) < 0)
		fprintf(out, "    no powercap tree here (%s)\n", POWERCAP_ROOT);
	for (uint32_t i = 0; i < st.nr; i++)
		fprintf(out, "    %-24s %s\n", st.c[i].name, st.c[i].path);
	if (denied)
		fprintf(out, "    %d zone(s) readable by root only, e.g. %s\n", denied, denied_path);
	for (uint32_t i = 0; i < st.nr; i++) {
		close(st.c[i].fd);
		free(st.c[i].name);
		free(st.c[i].path);
	}
	free(st.c);
	st = (struct rapl_state){ 0 };
	if (open_power_pmu(&st, POWER_PMU_ROOT, NULL, &perr) < 0)
		fprintf(out, "    no perf power PMU here (%s)\n", POWER_PMU_ROOT);
	for (uint32_t i = 0; i < st.nr; i++) {
		fprintf(out, "    power/%-18s scale %s J\n", st.c[i].name, st.c[i].path);
		close(st.c[i].fd);
		free(st.c[i].name);
		free(st.c[i].path);
	}
	free(st.c);
}

const struct pmu_ops pmu_rapl_ops = {
	.name = "rapl",
	.args = "[domains=package,core,uncore,dram,psys][,source=auto|powercap|perf]"
		"[,root=DIR][,power_root=DIR]",
	.help = "RAPL energy counters (J) from /sys/class/powercap or perf's power PMU, "
		"wraparound handled",
	.open = rapl_open,
	.read = rapl_read,
	.close = rapl_close,
	.list = rapl_list,
};
