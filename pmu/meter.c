/*
 * External power meters: "file" polls a sysfs/hwmon-style file, "exec" reads the output of a
 * long-running meter command. A thread of the backend takes the readings, so a slow, hung or
 * dead meter never stalls sampling: the read hook returns the reading nearest the sample time.
 */
#include "pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/util.h"
#include "args.h"

/* Readings are kept to a thousandth of the meter's unit (the raw values are integers). */
#define RAW_PER_UNIT 1000.0
#define RING 256
#define MAX_LINE 4096

enum meter_clock { CLOCK_ARRIVAL, CLOCK_REAL, CLOCK_MONO, CLOCK_REL };

struct reading {
	uint64_t time; /* CLOCK_MONOTONIC ns */
	int64_t raw;
};

struct meter {
	char *name, *what; /* channel name; "file 'PATH'" or "command 'CMD'" for messages */
	int exec;
	/* file */
	char *path;
	uint64_t interval_ns;
	/* exec */
	char *cmd;
	pid_t pid, watcher;
	int data_fd, status_fd;
	enum meter_clock clock;
	int64_t clock_offset; /* meter time + offset = CLOCK_MONOTONIC */
	uint64_t started;
	char line[MAX_LINE];
	size_t line_len;
	int bad_lines, long_lines;

	pthread_t thread;
	int thread_running;
	pthread_mutex_t lock;
	pthread_cond_t first; /* signalled at the first reading or failure */
	/* Under lock: */
	struct reading ring[RING];
	uint64_t nr_readings; /* ever; ring[(nr - 1) % RING] is the newest */
	uint64_t last_arrival;
	int failed;	    /* the first reading failed (not a number) */
	char failure[160];
	int ended, stopping;
	int recording; /* open() is done: problems are warnings now */
	/* Sampler side only. */
	uint64_t stale_ns;
	int stale;
	uint64_t stale_since, reads_held;
};

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* A line of a meter: "VALUE" or "TIME VALUE" (blank, comma, semicolon or tab separated). */
static int parse_line(const char *line, double *time, double *value, int *has_time)
{
	char buf[MAX_LINE], *save = NULL, *f[8];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = strtok_r(buf, " \t,;\r", &save); p && n < 8; p = strtok_r(NULL, " \t,;\r", &save))
		f[n++] = p;
	if (n == 0 || n > 2)
		return -1;
	if (parse_double(f[n - 1], value) < 0 || !isfinite(*value))
		return -1;
	*has_time = n == 2;
	if (n == 2 && (parse_double(f[0], time) < 0 || !isfinite(*time)))
		return -1;
	return 0;
}

/* A reading into the ring, m->lock held. */
static void add_reading_locked(struct meter *m, uint64_t time, double value)
{
	struct reading r = { .time = time, .raw = (int64_t)llround(value * RAW_PER_UNIT) };

	if (!(fabs(value * RAW_PER_UNIT) < 9e18))
		return;
	m->ring[m->nr_readings % RING] = r;
	m->nr_readings++;
	m->last_arrival = mono_ns();
	if (m->nr_readings == 1)
		pthread_cond_broadcast(&m->first);
}

static void add_reading(struct meter *m, uint64_t time, double value)
{
	pthread_mutex_lock(&m->lock);
	add_reading_locked(m, time, value);
	pthread_mutex_unlock(&m->lock);
}

static void fail_first(struct meter *m, const char *fmt, const char *arg)
{
	pthread_mutex_lock(&m->lock);
	if (!m->nr_readings && !m->failed) {
		m->failed = 1;
		snprintf(m->failure, sizeof(m->failure), fmt, arg);
		pthread_cond_broadcast(&m->first);
	}
	pthread_mutex_unlock(&m->lock);
}

/* The reading of the file backend's thread, every interval; blocking reads only block it. */
static void *file_thread(void *arg)
{
	struct meter *m = arg;
	uint64_t next = mono_ns();
	int warned = 0;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		struct timespec ts;
		char buf[128];
		ssize_t n = -1;
		uint64_t t0, t1;
		double v, tm;
		int fd, has_time, err = 0;

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		t0 = mono_ns();
		/* Opened every time: a FIFO or a file on a slow bus may block here. */
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			err = errno;
			close(fd);
		} else {
			err = errno;
		}
		t1 = mono_ns();
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (n >= 0) {
			buf[n] = '\0';
			if (n && buf[n - 1] == '\n')
				buf[n - 1] = '\0';
		}
		if (n > 0 && parse_line(buf, &tm, &v, &has_time) == 0) {
			add_reading(m, t0 + (t1 - t0) / 2, v);
			if (warned) {
				warning("meter '%s': %s readable again", m->name, m->what);
				warned = 0;
			}
		} else if (n == 0) {
			/* Caught while being rewritten: try again at the next interval. */
		} else if (n > 0) {
			fail_first(m, "'%s' is not a number", buf);
			if (!warned++)
				warning("meter '%s': %s holds '%s', not a number; the last reading is "
					"held",
					m->name, m->what, buf);
		} else {
			fail_first(m, "%s", strerror(err));
			if (!warned++)
				warning("meter '%s': cannot read %s: %s; the last reading is held",
					m->name, m->what, strerror(err));
		}
		pthread_mutex_lock(&m->lock);
		if (m->stopping) {
			pthread_mutex_unlock(&m->lock);
			return NULL;
		}
		pthread_mutex_unlock(&m->lock);
		next += m->interval_ns;
		if (next < t1)
			next = t1;
		ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
		ts.tv_nsec = (long)(next % NSEC_PER_SEC);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	}
}

/* One line of the meter, m->lock held. */
static void take_line(struct meter *m, const char *line, uint64_t arrival)
{
	double v, tm;
	int has_time;
	uint64_t time = arrival;

	if (parse_line(line, &tm, &v, &has_time) < 0) {
		/* A header or a message of the meter. */
		if (!m->bad_lines++ && *line)
			warning("meter '%s': ignoring a line of %s that is not a reading: '%.60s'",
				m->name, m->what, line);
		return;
	}
	if (has_time && m->clock != CLOCK_ARRIVAL) {
		int64_t t = (int64_t)llround(tm * 1e9) + m->clock_offset;

		time = t > 0 ? (uint64_t)t : 0;
	}
	add_reading_locked(m, time, v);
}

static void report_end(struct meter *m)
{
	int status = -1;
	double after = (double)(mono_ns() - m->started) / 1e9;
	struct pollfd p = { .fd = m->status_fd, .events = POLLIN };

	/* The watcher writes the meter's wait status when it has reaped it. */
	if (poll(&p, 1, 1000) > 0 && read(m->status_fd, &status, sizeof(status)) != sizeof(status))
		status = -1;
	pthread_mutex_lock(&m->lock);
	m->ended = 1;
	/* Before the recording starts, open() reports it as an error instead. */
	if (m->stopping || (!m->nr_readings && !m->recording)) {
		if (!m->nr_readings && !m->failed) {
			m->failed = 1;
			snprintf(m->failure, sizeof(m->failure), "it ended before its first reading");
			pthread_cond_broadcast(&m->first);
		}
		pthread_mutex_unlock(&m->lock);
		return;
	}
	pthread_mutex_unlock(&m->lock);
	if (status != -1 && WIFSIGNALED(status))
		warning("meter '%s': %s was killed by signal %d after %.2f s; the recording goes on "
			"with its last reading held",
			m->name, m->what, WTERMSIG(status), after);
	else if (status != -1)
		warning("meter '%s': %s exited with status %d after %.2f s; the recording goes on "
			"with its last reading held",
			m->name, m->what, WEXITSTATUS(status), after);
	else
		warning("meter '%s': %s closed its output after %.2f s; the recording goes on with "
			"its last reading held",
			m->name, m->what, after);
}

/* The exec backend's thread: every line of the meter as it comes. */
static void *exec_thread(void *arg)
{
	struct meter *m = arg;
	char buf[4096];

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		ssize_t n;
		uint64_t now;

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		n = read(m->data_fd, buf, sizeof(buf));
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			report_end(m);
			return NULL;
		}
		now = mono_ns();
		/*
		 * The lines of one read are added together: the recording starts at the first
		 * reading, and a sample taken between two lines of one write (three readings
		 * stamped t-100 s, t, t+100 s) read the first alone, the nearest then.
		 */
		pthread_mutex_lock(&m->lock);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (m->line_len < sizeof(m->line) - 1)
					m->line[m->line_len++] = buf[i];
				else
					m->long_lines = 1;
				continue;
			}
			m->line[m->line_len] = '\0';
			if (!m->long_lines)
				take_line(m, m->line, now);
			m->line_len = 0;
			m->long_lines = 0;
		}
		pthread_mutex_unlock(&m->lock);
	}
}

/*
 * Start the meter command through a watcher process: the tracer reaps every child of pperf
 * (waitpid(-1)), so the watcher, our child, reaps the meter and passes its status on a pipe.
 */
static int start_command(struct meter *m)
{
	int data[2], status[2];
	pid_t w;

	if (pipe2(data, O_CLOEXEC) < 0 || pipe2(status, O_CLOEXEC) < 0)
		return error_errno("meter '%s': cannot make a pipe", m->name);
	m->started = mono_ns();
	w = fork();
	if (w < 0)
		return error_errno("meter '%s': cannot start %s", m->name, m->what);
	if (w == 0) {
		pid_t pid = fork();
		int st = -1;

		if (pid == 0) {
			int null = open("/dev/null", O_RDONLY);
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);

			setpgid(0, 0);
			dup2(null, 0);
			dup2(data[1], 1);
			signal(SIGPIPE, SIG_DFL);
			execl("/bin/sh", "sh", "-c", m->cmd, (char *)NULL);
			_exit(127);
		}
		close(data[0]);
		close(data[1]);
		if (pid > 0) {
			setpgid(pid, pid);
			if (write(status[1], &pid, sizeof(pid)) != sizeof(pid))
				_exit(1);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		}
		if (write(status[1], &st, sizeof(st)) != sizeof(st))
			_exit(1);
		_exit(0);
	}
	close(data[1]);
	close(status[1]);
	m->watcher = w;
	m->data_fd = data[0];
	m->status_fd = status[0];
	if (read_full(m->status_fd, &m->pid, sizeof(m->pid)) != sizeof(m->pid) || m->pid <= 0) {
		close(m->data_fd);
		close(m->status_fd);
		waitpid(w, NULL, 0);
		return error("meter '%s': cannot start %s", m->name, m->what);
	}
	return 0;
}

/*
 * Start the reading thread with every signal blocked: the tracer waits for SIGCHLD (and the
 * program's signals) with sigtimedwait/signalfd, and a signal the kernel handed to this
 * thread instead would be lost to it.
 */
static int start_thread(struct meter *m, void *(*fn)(void *))
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&m->thread, NULL, fn, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return error("meter '%s': cannot start a thread: %s", m->name, strerror(ret));
	m->thread_running = 1;
	return 0;
}

static void free_meter(struct meter *m)
{
	free(m->name);
	free(m->what);
	free(m->path);
	free(m->cmd);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->first);
	free(m);
}

static void stop_meter(struct meter *m)
{
	pthread_mutex_lock(&m->lock);
	m->stopping = 1;
	pthread_mutex_unlock(&m->lock);
	if (m->exec && m->pid > 0)
		kill(-m->pid, SIGTERM);
	if (m->thread_running) {
		struct timespec ts;

		/* The exec thread ends at the meter's end of output; a thread blocked in a hung
		 * read is cancelled (read() is a cancellation point; everything else runs with
		 * cancellation disabled). */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (!m->exec || pthread_timedjoin_np(m->thread, NULL, &ts)) {
			if (m->exec && m->pid > 0)
				kill(-m->pid, SIGKILL);
			pthread_cancel(m->thread);
			pthread_join(m->thread, NULL);
		}
	}
	if (m->exec) {
		if (m->pid > 0)
			kill(-m->pid, SIGKILL);
		if (m->data_fd >= 0)
			close(m->data_fd);
		if (m->status_fd >= 0)
			close(m->status_fd);
		/* The tracer may have reaped the watcher already. */
		if (m->watcher > 0)
			waitpid(m->watcher, NULL, 0);
	}
}

static int parse_common(struct meter *m, const struct pmu_args *pa, struct pmu *pmu,
			const char *def_name)
{
	const char *unit = pmu_args_get(pa, "unit") ?: "W";
	const char *kind = pmu_args_get(pa, "kind") ?: "instant";
	double scale, stale;
	uint32_t k;

	if (pmu_args_double(pa, "scale", 1.0, -1e300, 1e300, &scale) < 0 ||
	    pmu_args_double(pa, "stale", 1.0, 0.001, 3600, &stale) < 0)
		return -1;
	if (!strcmp(kind, "instant"))
		k = CHANNEL_INSTANT;
	else if (!strcmp(kind, "counter"))
		k = CHANNEL_COUNTER;
	else
		return error("PMU backend '%s': kind=%s is neither 'instant' (power, current) nor "
			     "'counter' (energy)",
			     pa->backend, kind);
	if (scale == 0)
		return error("PMU backend '%s': scale=0 would make every reading 0", pa->backend);
	if (!*unit)
		return error("PMU backend '%s': unit= is empty", pa->backend);
	m->name = xstrdup(pmu_args_get(pa, "name") ?: def_name);
	if (!*m->name)
		return error("PMU backend '%s': name= is empty", pa->backend);
	m->stale_ns = (uint64_t)(stale * 1e9);
	pmu_add_channel(pmu, m->name, unit, k, CHANNEL_SYSTEM, scale / RAW_PER_UNIT);
	return 0;
}

/* Wait for the first reading (up to 1 s) so the first samples have a value. */
static int wait_first(struct meter *m)
{
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	pthread_mutex_lock(&m->lock);
	while (!m->nr_readings && !m->failed)
		if (pthread_cond_timedwait(&m->first, &m->lock, &ts) == ETIMEDOUT)
			break;
	if (m->failed)
		ret = error("meter '%s': no reading from %s: %s", m->name, m->what, m->failure);
	else
		m->recording = 1;
	if (!m->failed && !m->nr_readings)
		warning("meter '%s': no reading from %s within 1 s; the recording goes on and its "
			"values are 0 until one comes",
			m->name, m->what);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* Start the meter's reading thread and wait for its first reading: then the meter is pmu's;
 * if either fails, it is stopped and freed. */
static int run_meter(struct pmu *pmu, struct meter *m, void *(*thread)(void *))
{
	pmu->priv = m;
	if (start_thread(m, thread) == 0 && wait_first(m) == 0)
		return 0;
	pmu->priv = NULL;
	stop_meter(m);
	free_meter(m);
	return -1;
}

static struct meter *new_meter(void)
{
	struct meter *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->first, NULL);
	m->data_fd = m->status_fd = -1;
	return m;
}

static int file_open(struct pmu *pmu, const char *args)
{
	static const char *const keys[] = { "path", "unit", "scale", "name", "kind", "interval",
					    "stale", NULL };
	struct pmu_args pa;
	struct meter *m = new_meter();
	const char *path, *base;
	double interval;
	struct stat st;

	if (pmu_args_parse(&pa, "file", args, keys, NULL) < 0)
		goto fail;
	path = pmu_args_get(&pa, "path");
	if (!path || !*path) {
		error("PMU backend 'file' needs path=FILE, e.g. "
		      "--pmu file:path=/sys/class/hwmon/hwmon0/power1_input,unit=W,scale=1e-6");
		goto fail;
	}
	if (stat(path, &st) < 0) {
		error_errno("meter file '%s'", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		error("meter file '%s' is a directory", path);
		goto fail;
	}
	if (access(path, R_OK) < 0) {
		error_errno("cannot read meter file '%s' (grant read access: sudo chmod o+r '%s')",
			    path, path);
		goto fail;
	}
	if (pmu_args_double(&pa, "interval", 10, 0.1, 60000, &interval) < 0)
		goto fail;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (parse_common(m, &pa, pmu, base) < 0)
		goto fail;
	m->path = xstrdup(path);
	m->what = xasprintf("file '%s'", path);
	m->interval_ns = (uint64_t)(interval * 1e6);
	pmu_args_release(&pa);
	return run_meter(pmu, m, file_thread);
fail:
	pmu_args_release(&pa);
	free_meter(m);
	return -1;
}

static int exec_open(struct pmu *pmu, const char *args)
{
	static const char *const keys[] = { "cmd", "unit", "scale", "name", "kind", "clock",
					    "stale", NULL };
	struct pmu_args pa;
	struct meter *m = new_meter();
	const char *cmd, *clock;

	m->exec = 1;
	if (pmu_args_parse(&pa, "exec", args, keys, "cmd") < 0)
		goto fail;
	cmd = pmu_args_get(&pa, "cmd");
	if (!cmd || !*cmd) {
		error("PMU backend 'exec' needs cmd=COMMAND (last: it takes the rest, commas "
		      "included), e.g. --pmu exec:unit=W,cmd=my-meter --interval 10");
		goto fail;
	}
	clock = pmu_args_get(&pa, "clock") ?: "arrival";
	if (!strcmp(clock, "arrival")) {
		m->clock = CLOCK_ARRIVAL;
	} else if (!strcmp(clock, "realtime")) {
		m->clock = CLOCK_REAL;
		m->clock_offset = (int64_t)(mono_ns() - clock_ns(CLOCK_REALTIME));
	} else if (!strcmp(clock, "monotonic")) {
		m->clock = CLOCK_MONO;
	} else if (!strcmp(clock, "relative")) {
		m->clock = CLOCK_REL;
	} else {
		error("PMU backend 'exec': clock=%s is not one of arrival, realtime, monotonic, "
		      "relative",
		      clock);
		goto fail;
	}
	if (parse_common(m, &pa, pmu, "meter") < 0)
		goto fail;
	m->cmd = xstrdup(cmd);
	m->what = xasprintf("command '%s'", cmd);
	pmu_args_release(&pa);
	if (start_command(m) < 0) {
		free_meter(m);
		return -1;
	}
	if (m->clock == CLOCK_REL)
		m->clock_offset = (int64_t)m->started;
	return run_meter(pmu, m, exec_thread);
fail:
	pmu_args_release(&pa);
	free_meter(m);
	return -1;
}

/* The reading nearest now, and a word when the meter goes quiet or comes back. */
static int meter_read(struct pmu *pmu, int64_t *values)
{
	struct meter *m = pmu->priv;
	uint64_t now = mono_ns(), best_d = UINT64_MAX, arrival, n;
	int64_t v = 0;
	int ended;

	pthread_mutex_lock(&m->lock);
	n = m->nr_readings;
	for (uint64_t k = 0; k < RING && k < n; k++) {
		const struct reading *r = &m->ring[(n - 1 - k) % RING];
		uint64_t d = r->time > now ? r->time - now : now - r->time;

		if (d < best_d) {
			best_d = d;
			v = r->raw;
		} else if (r->time < now) {
			break; /* older ones are further away */
		}
	}
	arrival = m->last_arrival;
	ended = m->ended;
	pthread_mutex_unlock(&m->lock);
	values[0] = v;
	if (ended)
		return 0;
	if (n && now - arrival > m->stale_ns) {
		m->reads_held++;
		if (!m->stale) {
			m->stale = 1;
			m->stale_since = arrival;
			warning("meter '%s': no reading from %s for %.1f s (it hangs?); the "
				"recording goes on with its last reading held",
				m->name, m->what, (double)(now - arrival) / 1e9);
		}
	} else if (m->stale && now - arrival <= m->stale_ns) {
		m->stale = 0;
		warning("meter '%s': readings resumed after %.1f s", m->name,
			(double)(arrival - m->stale_since) / 1e9);
	}
	return 0;
}

static void meter_close(struct pmu *pmu)
{
	struct meter *m = pmu->priv;

	if (!m)
		return;
	stop_meter(m);
	if (pperf_verbose)
		fprintf(stderr, "pperf: meter '%s': %llu readings, %llu samples with a held one\n",
			m->name, (unsigned long long)m->nr_readings,
			(unsigned long long)m->reads_held);
	free_meter(m);
	pmu->priv = NULL;
}

/* `pperf list file`: the hwmon power, current, voltage and energy sensors of this machine. */
static void file_list(FILE *out)
{
	static const struct {
		const char *prefix, *unit, *scale;
	} kinds[] = {
		{ "power", "W", "1e-6" }, { "energy", "J", "1e-6" }, { "curr", "A", "1e-3" },
		{ "in", "V", "1e-3" },
	};
	DIR *d = opendir("/sys/class/hwmon");
	struct dirent *e;
	int found = 0;

	if (!d) {
		fprintf(out, "    no hwmon sensors here (/sys/class/hwmon)\n");
		return;
	}
	while ((e = readdir(d))) {
		char *dir, *path, name[64] = "?";
		DIR *h;
		struct dirent *f;

		if (e->d_name[0] == '.')
			continue;
		dir = xasprintf("/sys/class/hwmon/%s", e->d_name);
		path = xasprintf("%s/name", dir);
		read_text_file(path, name, sizeof(name));
		free(path);
		h = opendir(dir);
		while (h && (f = readdir(h))) {
			size_t len = strlen(f->d_name);

			if (len < 7 || strcmp(f->d_name + len - 6, "_input"))
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
				if (!strncmp(f->d_name, kinds[k].prefix, strlen(kinds[k].prefix))) {
					fprintf(out, "    path=%s/%s,unit=%s,scale=%s   (%s)\n", dir,
						f->d_name, kinds[k].unit, kinds[k].scale, name);
					found++;
				}
		}
		if (h)
			closedir(h);
		free(dir);
	}
	closedir(d);
	if (!found)
		fprintf(out, "    no hwmon power, energy, current or voltage sensor here\n");
}

const struct pmu_ops pmu_file_ops = {
	.name = "file",
	.args = "path=FILE[,unit=W][,scale=1][,kind=instant|counter][,name=NAME][,interval=MS]"
		"[,stale=SEC]",
	.help = "a meter file polled by a thread every interval (hwmon power1_input: unit=W,"
		"scale=1e-6)",
	.open = file_open,
	.read = meter_read,
	.close = meter_close,
	.list = file_list,
};

const struct pmu_ops pmu_exec_ops = {
	.name = "exec",
	.args = "[unit=W,][scale=1,][kind=instant|counter,][name=NAME,][clock=arrival|realtime|"
		"monotonic|relative,][stale=SEC,]cmd=COMMAND...",
	.help = "a meter command printing one reading per line ('VALUE' or 'SECONDS VALUE')",
	.open = exec_open,
	.read = meter_read,
	.close = meter_close,
};
