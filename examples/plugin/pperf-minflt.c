/*
 * An example pperf plugin: the minor page faults of every traced thread (a per-thread counter
 * from /proc/PID/task/TID/stat) and the system's runnable threads (an instantaneous reading
 * from /proc/stat). Build: cc -shared -fPIC -O2 -I include -o pperf-minflt.so pperf-minflt.c
 * Use:   pperf record --pmu plugin:./pperf-minflt.so[:major] -- PROGRAM  (major: major faults)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pperf-plugin.h"

struct thread {
	pid_t tid;
	int fd; /* /proc/PID/task/TID/stat, kept open: one pread per sample */
	int64_t last;
};

struct state {
	int field; /* of /proc/.../stat: 10 minflt, 12 majflt */
	int stat_fd;
	struct thread *t;
	size_t nr, alloc;
};

static int minflt_open(const struct pperf_plugin_host *host, const char *args, void **out)
{
	struct state *st;
	int field = 10;

	if (args && !strcmp(args, "major"))
		field = 12;
	else if (args && *args)
		return host->error("plugin 'minflt': unknown argument '%s' (it takes 'major' or nothing)",
				   args);
	st = calloc(1, sizeof(*st));
	if (!st)
		return host->error("plugin 'minflt': out of memory");
	st->field = field;
	st->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (st->stat_fd < 0) {
		free(st);
		return host->error("plugin 'minflt': cannot open '/proc/stat'");
	}
	if (host->add_channel(host->cookie, field == 10 ? "minflt" : "majflt", "count",
			      PPERF_KIND_COUNTER, PPERF_SCOPE_THREAD, 1.0) < 0 ||
	    host->add_channel(host->cookie, "procs_running", "count", PPERF_KIND_INSTANT,
			      PPERF_SCOPE_SYSTEM, 1.0) < 0) {
		close(st->stat_fd);
		free(st);
		return -1;
	}
	*out = st;
	return 0;
}

static int minflt_read(void *state, int64_t *values)
{
	struct state *st = state;
	char buf[8192], *p;
	ssize_t n = pread(st->stat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nprocs_running ");
	if (!p)
		return -1;
	values[0] = strtoll(p + 15, NULL, 10);
	return 0;
}

static struct thread *find(struct state *st, pid_t tid)
{
	for (size_t i = 0; i < st->nr; i++)
		if (st->t[i].tid == tid)
			return &st->t[i];
	return NULL;
}

static int minflt_thread_start(void *state, pid_t pid, pid_t tid)
{
	struct state *st = state;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone already */
	if (st->nr == st->alloc) {
		size_t alloc = st->alloc ? 2 * st->alloc : 16;
		struct thread *t = realloc(st->t, alloc * sizeof(*t));

		if (!t) {
			close(fd);
			return -1;
		}
		st->t = t;
		st->alloc = alloc;
	}
	st->t[st->nr++] = (struct thread){ .tid = tid, .fd = fd };
	return 0;
}

static void minflt_thread_end(void *state, pid_t tid)
{
	struct state *st = state;
	struct thread *t = find(st, tid);

	if (!t)
		return;
	close(t->fd);
	*t = st->t[--st->nr];
}

static int minflt_read_thread(void *state, pid_t tid, int64_t *values)
{
	struct state *st = state;
	struct thread *t = find(st, tid);
	char buf[1024], *p;
	ssize_t n;

	if (!t)
		return 0;
	n = pread(t->fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		/* Fields count from 1 = pid; 2 = (comm) may hold spaces: start after its ')'. */
		p = strrchr(buf, ')');
		for (int f = 2; p && f < st->field; f++)
			p = strchr(p + 1, ' ');
		if (p) {
			int64_t v = strtoll(p + 1, NULL, 10);

			if (v > t->last) /* a counter never decreases */
				t->last = v;
		}
	}
	values[0] = t->last;
	return 0;
}

static void minflt_close(void *state)
{
	struct state *st = state;

	for (size_t i = 0; i < st->nr; i++)
		close(st->t[i].fd);
	close(st->stat_fd);
	free(st->t);
	free(st);
}

const struct pperf_plugin pperf_plugin = {
	PPERF_PLUGIN_INIT,
	.name = "minflt",
	.args = "[major]",
	.help = "page faults per thread (/proc/PID/task/TID/stat) and runnable threads (/proc/stat)",
	.open = minflt_open,
	.read = minflt_read,
	.thread_start = minflt_thread_start,
	.thread_end = minflt_thread_end,
	.read_thread = minflt_read_thread,
	.close = minflt_close,
};
