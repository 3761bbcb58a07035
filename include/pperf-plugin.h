/*
 * pperf-plugin.h: the interface of third-party PMU backends for pperf, loaded at run time with
 * `pperf record --pmu plugin:PATH.so[:ARGS]`. This header is self-contained (C99, no pperf
 * internals); copy it into your project, or build with the installed one:
 * `cc -shared -fPIC $(pkg-config --cflags pperf-plugin) ...`.
 * Example: examples/plugin/pperf-minflt.c.
 *
 * A plugin is a shared object that exports one symbol, `pperf_plugin`, a const struct
 * pperf_plugin filled in with PPERF_PLUGIN_INIT. pperf calls its hooks from one thread:
 *
 *   open()          once, before recording, with ARGS (or NULL); declares channels through the
 *                   host's add_channel() and returns a state pointer for the other hooks
 *   thread_start()  when a traced thread appears (it is stopped), with its pid and tid
 *   read()          at every sampling instant (and at a thread's stop for its clock): the
 *                   raw values of the system channels, in the order declared
 *   read_thread()   at every sampling instant, for every sampled thread: its per-thread
 *                   channels
 *   thread_end()    when a traced thread is gone
 *   close()         once, at the end
 *
 * read() and read_thread() run between the program's own work (on the task clock, the default
 * where perf events are allowed, the program is not even stopped: the samples in between get
 * values on the straight line between two readings): they must not block. Read a slow source
 * in a thread of your own and return its latest value. A value of a counter channel
 * must never decrease (unwrap a hardware counter that wraps around); an instantaneous channel
 * (power, current) may take any value. value in unit = raw value * scale.
 *
 * Versioning: PPERF_PLUGIN_ABI_MAJOR changes when this interface changes incompatibly; pperf
 * refuses a plugin built for another major version. A minor version only appends members at
 * the end of the structs; `size` tells pperf which of them a plugin has, and pperf fills in
 * abi_minor of the host so a plugin can check for newer host functions.
 *
 * Version history: 1.0 (pperf 0.1): the interface below.
 */
#ifndef PPERF_PLUGIN_H
#define PPERF_PLUGIN_H

#include <stdint.h>
#include <sys/types.h>

#define PPERF_PLUGIN_ABI_MAJOR 1
#define PPERF_PLUGIN_ABI_MINOR 0

/* What a channel's value means. */
enum pperf_plugin_kind {
	PPERF_KIND_COUNTER = 0, /* cumulative (energy, events): the increase per sample counts */
	PPERF_KIND_INSTANT = 1, /* a reading at the sample time (power, current, voltage) */
};

/* Whose value it is. */
enum pperf_plugin_scope {
	PPERF_SCOPE_SYSTEM = 0, /* one value per sample, filled in by read() */
	PPERF_SCOPE_THREAD = 1, /* one value per sampled thread, filled in by read_thread() */
};

/* What pperf offers a plugin (valid during open() only, except error and warning). */
struct pperf_plugin_host {
	uint32_t abi_major, abi_minor; /* of the pperf that loaded the plugin */
	void *cookie;		       /* pass to add_channel() */
	/*
	 * Declare a channel: name (e.g. "board-power"), unit ("W", "J", "count", ...), kind,
	 * scope, scale. Returns its index among the plugin's channels of that scope, or -1
	 * after a message. System and per-thread channels are numbered separately, each from 0
	 * in the order declared: that is the order of values[] in read() and read_thread().
	 */
	int (*add_channel)(void *cookie, const char *name, const char *unit,
			   enum pperf_plugin_kind kind, enum pperf_plugin_scope scope, double scale);
	/* Print "error: ..." (lowercase, no full stop, naming what failed); returns -1. */
	int (*error)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	/* Print "warning: ...". */
	void (*warning)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

struct pperf_plugin {
	uint32_t abi_major, abi_minor; /* PPERF_PLUGIN_ABI_MAJOR/MINOR the plugin was built with */
	uint32_t size;		       /* sizeof(struct pperf_plugin) the plugin was built with */
	const char *name;	       /* short name, for messages and channel names */
	const char *args;	       /* one line on its arguments */
	const char *help;	       /* one line on what it measures */
	/* 0 and *state set, or -1 after host->error(). Required. */
	int (*open)(const struct pperf_plugin_host *host, const char *args, void **state);
	/* Required when system channels were declared. 0, or -1 (values are then kept). */
	int (*read)(void *state, int64_t *values);
	/* Optional (NULL): per-thread work. */
	int (*thread_start)(void *state, pid_t pid, pid_t tid);
	void (*thread_end)(void *state, pid_t tid);
	/* Required when per-thread channels were declared. */
	int (*read_thread)(void *state, pid_t tid, int64_t *values);
	/* Optional: release the state. */
	void (*close)(void *state);
};

/* The name of the symbol pperf looks up. */
#define PPERF_PLUGIN_SYMBOL "pperf_plugin"

/* Start of a plugin's definition: const struct pperf_plugin pperf_plugin = { PPERF_PLUGIN_INIT, ... */
#define PPERF_PLUGIN_INIT                                                                          \
	.abi_major = PPERF_PLUGIN_ABI_MAJOR, .abi_minor = PPERF_PLUGIN_ABI_MINOR,                  \
	.size = sizeof(struct pperf_plugin)

#endif
