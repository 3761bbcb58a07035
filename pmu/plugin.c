/*
 * The "plugin" backend: a third-party backend in a shared object, written against the public
 * header include/pperf-plugin.h (`--pmu plugin:PATH.so[:ARGS]`).
 */
#include "pmu.h"

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../include/pperf-plugin.h"
#include "../lib/util.h"

struct plugin_state {
	void *dl;
	char *path;
	const struct pperf_plugin *p;
	void *state;
	uint32_t size; /* of the plugin's struct: hooks past it are absent */
	struct pmu *pmu;
	uint32_t nr_system, nr_thread;
};

/* A hook of the plugin's struct, if the plugin's version of the struct has it. */
#define HOOK(st, member)                                                                           \
	((st)->size >= offsetof(struct pperf_plugin, member) + sizeof((st)->p->member) ?          \
		 (st)->p->member :                                                                 \
		 NULL)

static int host_add_channel(void *cookie, const char *name, const char *unit,
			    enum pperf_plugin_kind kind, enum pperf_plugin_scope scope, double scale)
{
	struct plugin_state *st = cookie;

	if (!name || !*name || !unit || !*unit)
		return error("plugin '%s': a channel needs a name and a unit", st->path);
	if (kind != PPERF_KIND_COUNTER && kind != PPERF_KIND_INSTANT)
		return error("plugin '%s': channel '%s' has an unknown kind %d", st->path, name,
			     (int)kind);
	if (scope != PPERF_SCOPE_SYSTEM && scope != PPERF_SCOPE_THREAD)
		return error("plugin '%s': channel '%s' has an unknown scope %d", st->path, name,
			     (int)scope);
	if (!isfinite(scale) || scale == 0)
		return error("plugin '%s': channel '%s' has a scale of %g", st->path, name, scale);
	if (st->nr_system + st->nr_thread >= 256)
		return error("plugin '%s': too many channels (at most 256)", st->path);
	pmu_add_channel(st->pmu, name, unit,
			kind == PPERF_KIND_COUNTER ? CHANNEL_COUNTER : CHANNEL_INSTANT,
			scope == PPERF_SCOPE_THREAD ? CHANNEL_THREAD : CHANNEL_SYSTEM, scale);
	return scope == PPERF_SCOPE_THREAD ? (int)st->nr_thread++ : (int)st->nr_system++;
}

static void release(struct plugin_state *st)
{
	if (st->dl)
		dlclose(st->dl);
	free(st->path);
	free(st);
}

static int plugin_open(struct pmu *pmu, const char *args)
{
	struct pperf_plugin_host host = {
		.abi_major = PPERF_PLUGIN_ABI_MAJOR,
		.abi_minor = PPERF_PLUGIN_ABI_MINOR,
		.add_channel = host_add_channel,
		.error = error,
		.warning = warning,
	};
	struct plugin_state *st;
	const char *colon, *pargs = NULL;
	const struct pperf_plugin *p;

	if (!args || !*args)
		return error("PMU backend 'plugin' needs the path of a plugin: --pmu "
			     "plugin:PATH.so[:ARGS] (see include/pperf-plugin.h)");
	st = xcalloc(1, sizeof(*st));
	colon = strchr(args, ':');
	st->path = colon ? xstrndup(args, (size_t)(colon - args)) : xstrdup(args);
	if (colon)
		pargs = colon + 1;
	/* dlopen() searches the library path for a bare name; a plugin is a file. */
	if (!strchr(st->path, '/')) {
		char *rel = xasprintf("./%s", st->path);

		free(st->path);
		st->path = rel;
	}
	st->dl = dlopen(st->path, RTLD_NOW | RTLD_LOCAL);
	if (!st->dl) {
		error("cannot load plugin '%s': %s", st->path, dlerror());
		goto fail;
	}
	p = dlsym(st->dl, PPERF_PLUGIN_SYMBOL);
	if (!p) {
		error("'%s' is not a pperf plugin: it has no '" PPERF_PLUGIN_SYMBOL
		      "' symbol (see include/pperf-plugin.h)",
		      st->path);
		goto fail;
	}
	if (p->abi_major != PPERF_PLUGIN_ABI_MAJOR) {
		error("plugin '%s' is built for plugin interface %u.%u, this pperf has %u.%u; "
		      "rebuild it against this pperf's include/pperf-plugin.h",
		      st->path, p->abi_major, p->abi_minor, PPERF_PLUGIN_ABI_MAJOR,
		      PPERF_PLUGIN_ABI_MINOR);
		goto fail;
	}
	st->p = p;
	st->size = p->size;
	if (st->size < offsetof(struct pperf_plugin, close) || !p->open) {
		error("plugin '%s' is incomplete: its struct pperf_plugin has %u bytes and%s an open "
		      "hook",
		      st->path, st->size, p->open ? "" : " no");
		goto fail;
	}
	st->pmu = pmu;
	host.cookie = st;
	if (p->open(&host, pargs, &st->state) < 0) {
		if (pperf_verbose)
			fprintf(stderr, "pperf: plugin '%s' refused to open\n", st->path);
		goto fail;
	}
	if ((st->nr_system && !HOOK(st, read)) || (st->nr_thread && !HOOK(st, read_thread))) {
		error("plugin '%s' declares %s channels but has no %s hook", st->path,
		      st->nr_system && !HOOK(st, read) ? "system" : "per-thread",
		      st->nr_system && !HOOK(st, read) ? "read" : "read_thread");
		if (HOOK(st, close))
			p->close(st->state);
		goto fail;
	}
	pmu->priv = st;
	return 0;
fail:
	release(st);
	return -1;
}

static int plugin_read(struct pmu *pmu, int64_t *values)
{
	struct plugin_state *st = pmu->priv;

	return st->p->read(st->state, values) < 0 ? -1 : 0;
}

static int plugin_thread_start(struct pmu *pmu, pid_t pid, pid_t tid)
{
	struct plugin_state *st = pmu->priv;
	int (*fn)(void *, pid_t, pid_t) = HOOK(st, thread_start);

	return fn && fn(st->state, pid, tid) < 0 ? -1 : 0;
}

static void plugin_thread_end(struct pmu *pmu, pid_t tid)
{
	struct plugin_state *st = pmu->priv;
	void (*fn)(void *, pid_t) = HOOK(st, thread_end);

	if (fn)
		fn(st->state, tid);
}

static int plugin_read_thread(struct pmu *pmu, pid_t tid, int64_t *values)
{
	struct plugin_state *st = pmu->priv;

	return st->p->read_thread(st->state, tid, values) < 0 ? -1 : 0;
}

static void plugin_close(struct pmu *pmu)
{
	struct plugin_state *st = pmu->priv;
	void (*fn)(void *);

	if (!st)
		return;
	fn = HOOK(st, close);
	if (fn)
		fn(st->state);
	release(st);
	pmu->priv = NULL;
}

const struct pmu_ops pmu_plugin_ops = {
	.name = "plugin",
	.args = "PATH.so[:ARGS]   a backend built against include/pperf-plugin.h (interface 1.0)",
	.help = "a third-party backend in a shared object",
	.open = plugin_open,
	.read = plugin_read,
	.thread_start = plugin_thread_start,
	.thread_end = plugin_thread_end,
	.read_thread = plugin_read_thread,
	.close = plugin_close,
};
