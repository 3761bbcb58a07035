/*
 * The "perf" backend: perf_event counters per traced thread, events named as libpfm4 names them
 * (`-e task-clock,page-faults` is `--pmu perf:task-clock,page-faults`).
 */
#include "pmu.h"

#include <errno.h>
#include <inttypes.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/util.h"

struct perf_ev {
	char *name; /* as the user gave it */
	struct perf_event_attr attr;
	uint32_t leader;  /* index of its group's leader (itself for a leader) */
	uint32_t nr_group; /* for a leader: events in its group, itself included */
	uint64_t not_counting; /* reads where it had not run at all (multiplexed out) */
	uint64_t scaled;       /* reads scaled by time_enabled / time_running */
};

struct perf_thread {
	pid_t tid; /* 0: a free entry of the table */
	int *fds;
	uint64_t *last; /* last value returned: values stay monotonic */
};

struct perf_state {
	struct perf_ev *ev;
	uint32_t nr_ev;
	/* Open-addressing table of the counted threads, keyed by tid. */
	struct perf_thread *thr;
	size_t thr_size, nr_thr;
	uint64_t *buf; /* read() buffer: nr, enabled, running, values */
	uint64_t reads;
	int warned_open;
};

static int pfm_ready;

static int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int init_pfm(void)
{
	int ret;

	if (pfm_ready)
		return 0;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS)
		return error("cannot initialize libpfm4: %s", pfm_strerror(ret));
	pfm_ready = 1;
	return 0;
}

static int perf_probe(void)
{
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK) < 0)
		return error("this kernel has no perf_event support "
			     "(/proc/sys/kernel/perf_event_paranoid is missing)");
	return init_pfm();
}

static int paranoid_level(void)
{
	char buf[32];
	uint64_t v;

	if (read_text_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) < 0)
		return 99;
	if (buf[0] == '-')
		return -1;
	return parse_u64(buf, &v) < 0 ? 99 : (int)v;
}

#define SOFTWARE_EVENTS "task-clock, cpu-clock, page-faults, context-switches, cpu-migrations"

/* Why perf_event_open() refused an event, with what to do instead. */
static int open_error(const struct perf_ev *ev, int err)
{
	int paranoid;

	switch (err) {
	case EACCES:
	case EPERM:
		paranoid = paranoid_level();
		/* At 2 an unprivileged user counts its own processes at user level. */
		if (paranoid <= 2 || geteuid() == 0)
			return error("cannot count '%s': perf_event_open is refused although "
				     "perf_event_paranoid is %d (a container's seccomp profile or a "
				     "security module?); run outside the sandbox, or record without -e",
				     ev->name, paranoid);
		return error("cannot count '%s': permission denied (perf_event_paranoid is %d); "
			     "run as root, or allow counting your own processes: "
			     "sudo sysctl kernel.perf_event_paranoid=2",
			     ev->name, paranoid);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
		    ev->attr.type == PERF_TYPE_RAW)
			return error("cannot count '%s': not supported on this machine (no hardware "
				     "PMU: a VM without PMU passthrough?); software events work: "
				     SOFTWARE_EVENTS " (see 'pperf list')",
				     ev->name);
		return error("cannot count '%s': not supported on this machine (%s); see 'pperf "
			     "list' for what works",
			     ev->name, strerror(err));
	case EMFILE:
	case ENFILE:
		return error("cannot count '%s': too many open files (one per event and thread); "
			     "raise the limit with 'ulimit -n'",
			     ev->name);
	case EINVAL:
		return error("cannot count '%s': the kernel rejects its settings (modifiers?): %s",
			     ev->name, strerror(err));
	default:
		return error("cannot count '%s': %s", ev->name, strerror(err));
	}
}

/* Open ev for one task; exclude the kernel when only that is refused, as perf does. */
static int open_event(struct perf_ev *ev, pid_t tid, int group_fd)
{
	int fd = event_open(&ev->attr, tid, -1, group_fd);

	if (fd < 0 && (errno == EACCES || errno == EPERM) && !ev->attr.exclude_kernel) {
		int saved = errno;

		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		fd = event_open(&ev->attr, tid, -1, group_fd);
		if (fd < 0) {
			ev->attr.exclude_kernel = 0;
			ev->attr.exclude_hv = 0;
			errno = saved;
		}
	}
	return fd;
}

/* libpfm4's attributes of ev->name: a PFM_ code, and no message (paired with encode_event()). */
static int pfm_encode(struct perf_ev *ev)
{
	pfm_perf_encode_arg_t arg = { 0 };

	memset(&ev->attr, 0, sizeof(ev->attr));
	arg.attr = &ev->attr;
	arg.size = sizeof(arg);
	/* User and kernel level unless the name's modifiers say otherwise, as perf stat does. */
	return pfm_get_os_event_encoding(ev->name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
}

static int encode_event(struct perf_ev *ev)
{
	int ret = pfm_encode(ev);

	if (ret == PFM_ERR_NOTFOUND)
		return error("unknown event '%s': libpfm4 does not know it on this machine; 'pperf "
			     "list' shows the events here (software events: " SOFTWARE_EVENTS ")",
			     ev->name);
	if (ret != PFM_SUCCESS)
		return error("bad event '%s': %s", ev->name, pfm_strerror(ret));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.disabled = 0;
	ev->attr.inherit = 0; /* every thread gets its own counters from thread_start */
	ev->attr.sample_period = 0;
	ev->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return 0;
}

static const char *event_unit(const struct perf_ev *ev)
{
	if (ev->attr.type == PERF_TYPE_SOFTWARE && (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
						    ev->attr.config == PERF_COUNT_SW_CPU_CLOCK))
		return "ns";
	return "count";
}

/*
 * Check every event on pperf itself, so an event this machine cannot count fails now with its
 * reason rather than at the first thread, and find which events can share a group: a group is
 * read with one read() and its members are scheduled together.
 */
static int check_events(struct perf_state *st)
{
	int *fds = xcalloc(st->nr_ev, sizeof(int));
	uint32_t leader = 0;
	int ret = 0;

	for (uint32_t i = 0; i < st->nr_ev; i++)
		fds[i] = -1;
	for (uint32_t i = 0; i < st->nr_ev; i++) {
		struct perf_ev *ev = &st->ev[i];
		int fd = open_event(ev, 0, -1);

		if (fd < 0) {
			ret = open_error(ev, errno);
			break;
		}
		close(fd);
		if (i > 0) {
			st->ev[i].attr.read_format |= PERF_FORMAT_GROUP;
			st->ev[leader].attr.read_format |= PERF_FORMAT_GROUP;
			fd = open_event(ev, 0, fds[leader]);
		}
		if (i == 0 || fd < 0) {
			/* A new group (also when the kernel refuses this one in the last). */
			ev->attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
			if (i > 0 && st->ev[leader].nr_group == 1)
				st->ev[leader].attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
			leader = i;
			fd = open_event(ev, 0, -1);
			if (fd < 0) {
				ret = open_error(ev, errno);
				break;
			}
		}
		fds[i] = fd;
		ev->leader = leader;
		st->ev[leader].nr_group++;
	}
	if (!ret && st->ev[leader].nr_group == 1)
		st->ev[leader].attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
	for (uint32_t i = 0; i < st->nr_ev; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}

static void free_state(struct perf_state *st)
{
	for (uint32_t i = 0; i < st->nr_ev; i++)
		free(st->ev[i].name);
	free(st->ev);
	free(st->thr);
	free(st->buf);
	free(st);
}

static int perf_open(struct pmu *pmu, const char *args)
{
	struct perf_state *st;
	char *list, *save = NULL;

	if (!args || !*args)
		return error("PMU backend 'perf' needs event names, e.g. '-e task-clock,page-faults' "
			     "or '--pmu perf:task-clock' (see 'pperf list')");
	if (init_pfm() < 0)
		return -1;
	st = xcalloc(1, sizeof(*st));
	list = xstrdup(args);
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct perf_ev *ev;

		for (uint32_t i = 0; i < st->nr_ev; i++)
			if (!strcmp(st->ev[i].name, name)) {
				error("event '%s' is given twice", name);
				goto fail;
			}
		st->ev = xreallocarray(st->ev, st->nr_ev + 1, sizeof(*st->ev));
		ev = &st->ev[st->nr_ev++];
		memset(ev, 0, sizeof(*ev));
		ev->name = xstrdup(name);
		if (encode_event(ev) < 0)
			goto fail;
	}
	if (!st->nr_ev) {
		error("no event in '%s' (give names separated by commas, e.g. task-clock,page-faults)",
		      args);
		goto fail;
	}
	if (check_events(st) < 0)
		goto fail;
	free(list);
	for (uint32_t i = 0; i < st->nr_ev; i++)
		pmu_add_channel(pmu, st->ev[i].name, event_unit(&st->ev[i]), CHANNEL_COUNTER,
				CHANNEL_THREAD, 1.0);
	st->buf = xcalloc(3 + st->nr_ev, sizeof(uint64_t));
	st->thr_size = 64;
	st->thr = xcalloc(st->thr_size, sizeof(*st->thr));
	pmu->priv = st;
	return 0;
fail:
	free(list);
	free_state(st);
	return -1;
}

static size_t thr_hash(const struct perf_state *st, pid_t tid)
{
	return ((size_t)tid * 2654435761u) & (st->thr_size - 1);
}

static struct perf_thread *thr_find(struct perf_state *st, pid_t tid)
{
	for (size_t i = thr_hash(st, tid);; i = (i + 1) & (st->thr_size - 1)) {
		if (st->thr[i].tid == tid)
			return &st->thr[i];
		if (!st->thr[i].tid)
			return NULL;
	}
}

static struct perf_thread *thr_insert(struct perf_state *st, pid_t tid)
{
	size_t i;

	if ((st->nr_thr + 1) * 2 > st->thr_size) {
		struct perf_thread *old = st->thr;
		size_t old_size = st->thr_size;

		st->thr_size *= 2;
		st->thr = xcalloc(st->thr_size, sizeof(*st->thr));
		for (size_t k = 0; k < old_size; k++) {
			if (!old[k].tid)
				continue;
			for (i = thr_hash(st, old[k].tid); st->thr[i].tid; i = (i + 1) & (st->thr_size - 1))
				;
			st->thr[i] = old[k];
		}
		free(old);
	}
	for (i = thr_hash(st, tid); st->thr[i].tid; i = (i + 1) & (st->thr_size - 1))
		;
	st->nr_thr++;
	st->thr[i].tid = tid;
	return &st->thr[i];
}

/* Remove an entry, moving later entries of its probe run back (no tombstones). */
static void thr_remove(struct perf_state *st, struct perf_thread *t)
{
	size_t mask = st->thr_size - 1, i = (size_t)(t - st->thr), j = i;

	st->thr[i].tid = 0;
	st->nr_thr--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!st->thr[j].tid)
			return;
		home = thr_hash(st, st->thr[j].tid);
		/* Leave it if its home lies cyclically in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		st->thr[i] = st->thr[j];
		st->thr[j].tid = 0;
		i = j;
	}
}

static void close_fds(const struct perf_state *st, int *fds)
{
	for (uint32_t e = 0; e < st->nr_ev; e++)
		if (fds[e] >= 0)
			close(fds[e]);
}

static int perf_thread_start(struct pmu *pmu, pid_t pid, pid_t tid)
{
	struct perf_state *st = pmu->priv;
	struct perf_thread *t;
	int *fds;

	(void)pid;
	if (thr_find(st, tid))
		return 0;
	fds = xcalloc(st->nr_ev, sizeof(int));
	for (uint32_t e = 0; e < st->nr_ev; e++)
		fds[e] = -1;
	for (uint32_t e = 0; e < st->nr_ev; e++) {
		struct perf_ev *ev = &st->ev[e];

		fds[e] = open_event(ev, tid, ev->leader == e ? -1 : fds[ev->leader]);
		if (fds[e] < 0) {
			int err = errno;

			close_fds(st, fds);
			free(fds);
			if (err == ESRCH) /* already gone: nothing to count */
				return 0;
			if (!st->warned_open) {
				st->warned_open = 1;
				errno = err;
				return error("cannot count '%s' in thread %d: %s", ev->name, (int)tid,
					     strerror(err));
			}
			return -1;
		}
	}
	t = thr_insert(st, tid);
	t->fds = fds;
	t->last = xcalloc(st->nr_ev, sizeof(uint64_t));
	return 0;
}

static void perf_thread_end(struct pmu *pmu, pid_t tid)
{
	struct perf_state *st = pmu->priv;
	struct perf_thread *t = thr_find(st, tid);

	if (!t)
		return;
	close_fds(st, t->fds);
	free(t->fds);
	free(t->last);
	thr_remove(st, t);
}

/* A counter's value over the whole time it was enabled; held when it has not run at all. */
static uint64_t scale_value(struct perf_ev *ev, uint64_t raw, uint64_t enabled, uint64_t running,
			    uint64_t last)
{
	uint64_t v = raw;

	if (!running) {
		if (enabled)
			ev->not_counting++;
		return last;
	}
	if (running < enabled) {
		ev->scaled++;
		v = (uint64_t)((long double)raw * (long double)enabled / (long double)running);
	}
	return v < last ? last : v;
}

static int perf_read_thread(struct pmu *pmu, pid_t tid, int64_t *values)
{
	struct perf_state *st = pmu->priv;
	struct perf_thread *t = thr_find(st, tid);
	uint64_t *b = st->buf;
	int ret = 0;

	if (!t)
		return 0;
	st->reads++;
	for (uint32_t e = 0; e < st->nr_ev; e++) {
		struct perf_ev *ev = &st->ev[e];
		ssize_t want, n;

		if (ev->leader != e)
			continue;
		if (ev->nr_group > 1) {
			want = (ssize_t)((3 + ev->nr_group) * sizeof(uint64_t));
			n = read(t->fds[e], b, (size_t)want);
			if (n != want || b[0] != ev->nr_group) {
				ret = -1;
				continue;
			}
			/* Members follow their leader in the order they joined. */
			for (uint32_t m = e, k = 0; m < st->nr_ev; m++) {
				if (st->ev[m].leader != e)
					continue;
				t->last[m] = scale_value(&st->ev[m], b[3 + k++], b[1], b[2], t->last[m]);
			}
		} else {
			want = 3 * sizeof(uint64_t);
			n = read(t->fds[e], b, (size_t)want);
			if (n != want) {
				ret = -1;
				continue;
			}
			t->last[e] = scale_value(ev, b[0], b[1], b[2], t->last[e]);
		}
	}
	for (uint32_t e = 0; e < st->nr_ev; e++)
		values[e] = (int64_t)t->last[e];
	return ret;
}

static void perf_close(struct pmu *pmu)
{
	struct perf_state *st = pmu->priv;

	if (!st)
		return;
	for (size_t i = 0; i < st->thr_size; i++)
		if (st->thr[i].tid) {
			close_fds(st, st->thr[i].fds);
			free(st->thr[i].fds);
			free(st->thr[i].last);
		}
	for (uint32_t e = 0; e < st->nr_ev; e++) {
		struct perf_ev *ev = &st->ev[e];

		if (ev->not_counting)
			warning("event '%s' was not counting (multiplexed out) in %" PRIu64 " of %" PRIu64
				" thread reads: its value was held there",
				ev->name, ev->not_counting, st->reads);
		else if (ev->scaled && pperf_verbose)
			fprintf(stderr, "pperf: event '%s' was multiplexed: %" PRIu64 " of %" PRIu64
					" reads scaled by time enabled / time running\n",
				ev->name, ev->scaled, st->reads);
	}
	free_state(st);
	pmu->priv = NULL;
}

/*
 * Whether `name` can be counted here, as the note before its description in `pperf list`:
 * encoded by libpfm4 and opened on pperf itself, or why not. Nothing on stderr: the list is
 * about this machine, not an error.
 */
static const char *list_note(const char *name, char *buf, size_t size)
{
	struct perf_ev ev = { .name = (char *)name };
	int ret = pfm_encode(&ev), fd;

	if (ret != PFM_SUCCESS) {
		snprintf(buf, size, "(not encoded: %s) ", pfm_strerror(ret));
		return buf;
	}
	fd = open_event(&ev, 0, -1);
	if (fd < 0)
		return "(cannot be counted here) ";
	close(fd);
	return "";
}

/* An event's unit masks, under it as EVENT:MASK: each with whether it can be counted. */
static void list_umasks(FILE *out, const char *event, int idx, const pfm_event_info_t *einfo)
{
	for (int a = 0; a < einfo->nattrs; a++) {
		pfm_event_attr_info_t ainfo = { .size = sizeof(ainfo) };
		char *name, buf[128];

		if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) != PFM_SUCCESS ||
		    ainfo.type != PFM_ATTR_UMASK)
			continue;
		name = xasprintf("%s:%s", event, ainfo.name);
		fprintf(out, "      %-38s %s%s%s\n", name, list_note(name, buf, sizeof(buf)),
			ainfo.is_dfl ? "(default) " : "", ainfo.desc ? ainfo.desc : "");
		free(name);
	}
}

/*
 * `pperf list`: every event of every PMU libpfm4 finds here, and whether it can be counted; an
 * event with unit masks has them listed under it (one of them is needed when none is the
 * default).
 */
static void perf_list(FILE *out)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;

	if (init_pfm() < 0)
		return;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		fprintf(out, "  events of libpfm4 PMU '%s' (%s):\n", pinfo.name, pinfo.desc);
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			struct perf_ev ev = { 0 };
			const char *note;
			char buf[128];
			int umasks = 0;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			ev.name = xasprintf("%s::%s", pinfo.name, einfo.name);
			for (int a = 0; a < einfo.nattrs; a++) {
				pfm_event_attr_info_t ainfo = { .size = sizeof(ainfo) };

				umasks += pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT,
								  &ainfo) == PFM_SUCCESS &&
					  ainfo.type == PFM_ATTR_UMASK;
			}
			/* Without a default mask the event alone is no event: say so, not why. */
			if (umasks && pfm_encode(&ev) == PFM_ERR_UMASK)
				note = "(needs one of the unit masks below) ";
			else
				note = list_note(ev.name, buf, sizeof(buf));
			fprintf(out, "    %-40s %s%s\n", ev.name, note, einfo.desc ? einfo.desc : "");
			if (umasks)
				list_umasks(out, ev.name, i, &einfo);
			free(ev.name);
		}
	}
}

const struct pmu_ops pmu_perf_ops = {
	.name = "perf",
	.args = "EVENT[,EVENT...]   libpfm4 event names with modifiers (e.g. task-clock,"
		"page-faults, INST_RETIRED:ANY_P:u)",
	.help = "perf_event counters per traced thread, grouped where possible (-e is "
		"--pmu perf:...)",
	.probe = perf_probe,
	.open = perf_open,
	.thread_start = perf_thread_start,
	.thread_end = perf_thread_end,
	.read_thread = perf_read_thread,
	.close = perf_close,
	.list = perf_list,
};
