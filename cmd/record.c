/* pperf record: run or attach to a program and write its profile. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../pmu/pmu.h"
#include "../sampler/perfclock.h"
#include "../sampler/procfs.h"
#include "../sampler/tracer.h"
#include "cmd.h"
#include "record.h"

static const char record_usage[] =
	"usage: pperf record [options] -- COMMAND [ARGS...]\n"
	"       pperf record [options] -p PID\n"
	"\n"
	"Run COMMAND (or attach to process PID) under ptrace and sample its threads (at the ticks\n"
	"of their CPU clocks, or all at once: --sampling), following its threads and child\n"
	"processes.\n"
	"\n"
	"  -o, --output FILE      write the profile to FILE (default pperf.data; '-': stdout),\n"
	"                         mode 0600; a previous FILE becomes FILE.old once the program\n"
	"                         has started (a device such as /dev/null is written in place)\n"
	"      --no-output        record nothing (measure the sampler alone)\n"
	"  -F, --freq HZ          target sampling frequency (default 1000; -f, --frequency too)\n"
	"  -p, --pid PID          attach to a running process and all its threads\n"
	"      --duration SEC     stop recording after SEC seconds (fractions allowed)\n"
	"      --no-inherit       trace only the first process, not its children\n"
	"  -e, --event EV[,EV]    count perf events per thread (libpfm4 names; see 'pperf list')\n"
	"      --pmu NAME[:ARGS]  read a PMU backend at every sample (repeatable; 'pperf list')\n"
	"  -g                     record call stacks (= --call-graph fp)\n"
	"      --call-graph fp    record each thread-sample's frame-pointer call stack\n"
	"      --call-graph dwarf[,SIZE]\n"
	"                         record each thread-sample's registers and the top SIZE\n"
	"                         bytes of its stack (default 8192, at most 65528), unwound\n"
	"                         later with the ELF files' call frame information\n"
	"      --sampling cpu     sample each thread at steps of its own CPU clock (the default\n"
	"                         where perf_event_open allows the task clock): its exact\n"
	"                         steps, else the ticks of a CPU-clock timer\n"
	"      --sampling ticks   the ticks of a CPU-clock timer in each thread, even where\n"
	"                         the task clock could be had\n"
	"      --sampling snapshot\n"
	"                         stop every thread at once at each sampling instant\n"
	"                         (upstream pperf's way; the default where the task clock is\n"
	"                         refused altogether)\n"
	"  -r, --randomize        take the first sample at a random point of the first period\n"
	"      --core-isolation   run the sampler on the last online CPU, the program on the others\n"
	"      --fifo PRIO        run the sampler (only) with SCHED_FIFO priority PRIO (1-99)\n"
	"      --rr PRIO          run the sampler (only) with SCHED_RR priority PRIO (1-99)\n"
	"  -v, --verbose          print sampling statistics at the end\n"
	"  -q, --quiet            print nothing but errors\n"
	"  -h, --help             show this help\n"
	"      --version          show pperf's version\n"
	"\n"
	"Exit status: the program's own (128+N if signal N killed it); 0 after -p;\n"
	"127 if COMMAND is not found, 126 if it cannot be executed, 1 or 2 on pperf's errors.\n";

enum {
	OPT_NO_OUTPUT = 256,
	OPT_DURATION,
	OPT_NO_INHERIT,
	OPT_PMU,
	OPT_CORE_ISOLATION,
	OPT_FIFO,
	OPT_RR,
	OPT_CALL_GRAPH,
	OPT_SAMPLING,
};

void record_add_pmu(struct record_args *a, char *spec)
{
	ALLOC_GROW(a->pmu_specs, a->alloc_pmu_specs, a->nr_pmu_specs + 1);
	a->pmu_specs[a->nr_pmu_specs++] = spec;
}

int record_parse_prio(const char *cmd, const char *opt, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || v < 1 || v > 99)
		usage_error(cmd, "%s takes a priority from 1 to 99, not '%s'", opt, arg);
	return (int)v;
}

/* --call-graph fp | dwarf[,SIZE]: SIZE rounded up to 8 bytes, as perf does. */
static void parse_call_graph(const char *cmd, const char *arg, struct tracer_options *o)
{
	uint64_t v;

	if (!strcmp(arg, "fp")) {
		o->call_graph = CALL_GRAPH_FP;
	} else if (!strcmp(arg, "dwarf")) {
		o->call_graph = CALL_GRAPH_DWARF;
		o->stack_size = 8192;
	} else if (!strncmp(arg, "dwarf,", 6)) {
		if (parse_u64(arg + 6, &v) < 0 || !v || v > 65528)
			usage_error(cmd, "--call-graph dwarf,SIZE takes a size from 8 to 65528 bytes, "
					 "not '%s'", arg + 6);
		o->call_graph = CALL_GRAPH_DWARF;
		o->stack_size = (uint32_t)((v + 7) & ~7ull);
	} else {
		usage_error(cmd, "--call-graph takes fp or dwarf[,SIZE], not '%s'", arg);
	}
}

static void parse_args(struct record_args *a, int argc, char **argv, int *cmd_at)
{
	static const struct option record_opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-output", no_argument, NULL, OPT_NO_OUTPUT },
		{ "freq", required_argument, NULL, 'F' },
		{ "frequency", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "event", required_argument, NULL, 'e' },
		{ "pmu", required_argument, NULL, OPT_PMU },
		{ "randomize", no_argument, NULL, 'r' },
		{ "core-isolation", no_argument, NULL, OPT_CORE_ISOLATION },
		{ "fifo", required_argument, NULL, OPT_FIFO },
		{ "rr", required_argument, NULL, OPT_RR },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "sampling", required_argument, NULL, OPT_SAMPLING },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "record";
	struct cmd_parser parser = { cmd, "+o:F:f:p:e:grvq", record_opts, record_usage };
	int c;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		uint64_t pid;
		double d;

		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case OPT_NO_OUTPUT:
			a->no_output = 1;
			break;
		case 'F':
		case 'f':
			if (parse_double(optarg, &a->freq) < 0 || !(a->freq > 0) || a->freq > 1e6)
				usage_error(cmd, "the frequency must be a number of Hz above 0 and at "
						 "most 1000000, not '%s'",
					    optarg);
			break;
		case 'p':
			if (parse_u64(optarg, &pid) < 0 || pid == 0 || pid > 0x7fffffff)
				usage_error(cmd, "-p takes a process id, not '%s'", optarg);
			a->pid = (pid_t)pid;
			break;
		case OPT_DURATION:
			if (parse_double(optarg, &d) < 0 || !(d > 0) || d > 1e7)
				usage_error(cmd, "--duration takes a number of seconds above 0, not "
						 "'%s'",
					    optarg);
			a->topt.duration_ns = (uint64_t)(d * 1e9);
			break;
		case OPT_NO_INHERIT:
			a->topt.inherit = 0;
			break;
		case 'e':
			record_add_pmu(a, xasprintf("perf:%s", optarg));
			break;
		case OPT_PMU:
			record_add_pmu(a, xstrdup(optarg));
			break;
		case 'r':
			a->topt.randomize = 1;
			break;
		case OPT_CORE_ISOLATION:
			a->topt.core_isolation = 1;
			break;
		case 'g':
			a->topt.call_graph = CALL_GRAPH_FP;
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(cmd, optarg, &a->topt);
			break;
		case OPT_SAMPLING:
			if (!strcmp(optarg, "cpu"))
				a->sampling = SAMPLING_CPU;
			else if (!strcmp(optarg, "ticks"))
				a->sampling = SAMPLING_TICKS;
			else if (!strcmp(optarg, "snapshot"))
				a->sampling = SAMPLING_SNAPSHOT;
			else
				usage_error(cmd, "--sampling takes 'cpu', 'ticks' or 'snapshot', not '%s'",
					    optarg);
			break;
		case OPT_FIFO:
		case OPT_RR:
			a->topt.sched_policy = c == OPT_FIFO ? SCHED_FIFO : SCHED_RR;
			a->topt.sched_priority = record_parse_prio(cmd, c == OPT_FIFO ? "--fifo" : "--rr",
							    optarg);
			break;
		case 'v':
			pperf_verbose = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		}
	}
	*cmd_at = optind;
}

/*
 * A sampler that missed many deadlines could not keep up: its stops take longer than the period,
 * or it (or the threads it waits for) waited for a CPU. The shares stay unbiased (only threads
 * found on a CPU are charged), but rest on fewer samples. Say so, and what helps.
 */
static void warn_missed(const struct tracer_stats *st, int rt, int cpu_clock)
{
	/* Sampled at their CPU clocks, threads lose nothing: the sampling instants then only
	 * place them for wall-time weights. */
	if (cpu_clock && !st->timer_refused)
		return;
	if (st->samples_ideal < 100 || st->missed * 20 < st->samples_ideal)
		return;
	warning("%llu of %llu sampling deadlines missed: stops took longer than the period, or the "
		"sampler or the program waited for a CPU (fewer samples: the shares are less precise); %s",
		(unsigned long long)st->missed, (unsigned long long)st->samples_ideal,
		rt ? "try a lower -F or --core-isolation"
		   : "try a lower -F, --fifo 1 or --core-isolation");
}

/*
 * Each sample interrupts a thread on its CPU (the kernel's timer for the task clock and the
 * ticks, a stop in snapshots), and the interrupt's own time is the thread's: 50-75 us each on
 * our VM, where a tight loop of tests/progs/truth took 3-30 % longer at 2 kHz, 40-100 % at
 * 5 kHz and 2-3 times as long at 10 kHz (perf's cpu-clock alike), and its shares moved
 * (docs/benchmark.md). Above RATE_DEAR_HZ, say so; not where every thread was timed at the
 * CPU-clock ticks, which come at the kernel's HZ whatever -F asks for.
 */
#define RATE_DEAR_HZ 2000.0

static void warn_rate(const struct tracer_stats *st, double freq)
{
	if (freq <= RATE_DEAR_HZ || (st->timer_threads && !st->task_clock_threads))
		return;
	warning("at %.0f Hz the sampling interrupts cost the program CPU time of their own (tens "
		"of microseconds each on a VM: a loop 2-3 times as long at 10 kHz on ours), which can "
		"change where it spends its time; compare with a run at -F 1000 (README, -F)",
		freq);
}

static void print_stats(const struct tracer_stats *st, const struct record_args *a,
			const char *out, uint64_t bytes)
{
	double wall = (double)st->wall_ns / 1e9;

	fprintf(stderr, "pperf: wall time   %12.3f s\n", wall);
	fprintf(stderr, "pperf: samples     %12llu (ideal %llu, %llu deadlines missed)\n",
		(unsigned long long)st->samples, (unsigned long long)st->samples_ideal,
		(unsigned long long)st->missed);
	fprintf(stderr, "pperf: frequency   %12.2f Hz (target %.2f Hz, %.1f%%)\n",
		wall > 0 ? (double)st->samples / wall : 0.0, a->freq,
		wall > 0 ? 100.0 * (double)st->samples / wall / a->freq : 0.0);
	fprintf(stderr, "pperf: stopped     %12.3f ms (%.1f us per sample, %.1f us at most)\n",
		(double)st->stopped_ns / 1e6,
		st->samples ? (double)st->stopped_ns / 1e3 / (double)st->samples : 0.0,
		(double)st->max_stop_ns / 1e3);
	fprintf(stderr, "pperf: held        %12.1f us per thread stop (%llu stops)\n",
		st->held ? (double)st->held_ns / 1e3 / (double)st->held : 0.0,
		(unsigned long long)st->held);
	fprintf(stderr, "pperf: threads     %12.2f per sample (%llu thread-samples, %llu on a CPU, "
		"%llu read asleep)\n",
		st->samples ? (double)st->thread_samples / (double)st->samples : 0.0,
		(unsigned long long)st->thread_samples, (unsigned long long)st->oncpu_samples,
		(unsigned long long)st->asleep_samples);
	if (a->topt.call_graph && st->asleep_samples)
		fprintf(stderr, "pperf: asleep      %12llu of %llu thread-samples read asleep with the "
			"stack they went to sleep with (needs kernel-mode perf events: README, Call "
			"stacks)\n",
			(unsigned long long)st->asleep_stacks, (unsigned long long)st->asleep_samples);
	if (st->unseen_samples)
		fprintf(stderr, "pperf: unseen      %12llu thread-samples on a CPU at the instant whose "
			"place is lost (%.1f%%: the sampler got their CPU late, at a system call's "
			"end; they lean the shares: README, Limits)\n",
			(unsigned long long)st->unseen_samples,
			100.0 * (double)st->unseen_samples /
				(double)(st->oncpu_samples + st->unseen_samples));
	if (st->restops)
		fprintf(stderr, "pperf: restopped   %12llu times a thread that stopped at a short system "
			"call's end, where the interrupt may have come before the call: let go and "
			"interrupted again\n",
			(unsigned long long)st->restops);
	if (st->set_aside)
		fprintf(stderr, "pperf: set aside   %12llu samples whose threads had not all stopped a "
			"quarter of a period after the instant (waiting for a CPU): the others went "
			"on, and the sample was written once they stopped\n",
			(unsigned long long)st->set_aside);
	if (st->after_call_samples)
		fprintf(stderr, "pperf: after calls %12llu thread-samples on a CPU weighed 0: their threads "
			"were let go from a system call's end where they stood for no CPU time, so "
			"they were found right after that call too often (README, Limits)\n",
			(unsigned long long)st->after_call_samples);
	fprintf(stderr, "pperf: CPU clocks  %12llu thread-samples at their steps (%llu threads timed: "
		"%llu on the task clock, %llu of them through a buffer, %llu at CPU-clock timers' "
		"ticks; %llu refused)\n",
		(unsigned long long)st->timer_samples, (unsigned long long)st->timer_threads,
		(unsigned long long)st->task_clock_threads, (unsigned long long)st->ring_threads,
		(unsigned long long)(st->timer_threads - st->task_clock_threads),
		(unsigned long long)st->timer_refused);
	if (st->task_clock_threads > st->ring_threads)
		fprintf(stderr, "pperf: no buffer   %12llu threads on the task clock at its signals (the "
			"memory a user may lock for perf buffers ran out: perf_event_mlock_kb)\n",
			(unsigned long long)(st->task_clock_threads - st->ring_threads));
	if (st->signals_refused)
		fprintf(stderr, "pperf: no buffer   %12llu threads at CPU-clock ticks (no buffer, and "
			"this kernel (< 6.12) sends the task clock's signals at once: they would end "
			"sleeping calls with EINTR)\n",
			(unsigned long long)st->signals_refused);
	if (st->ring_lost)
		fprintf(stderr, "pperf: dropped     %12llu task-clock samples, their buffer full (their "
			"CPU time given to the samples kept before them)\n",
			(unsigned long long)st->ring_lost);
	if (a->task_clock_errno)
		fprintf(stderr, "pperf: task clock  %12s (perf_event_open: %s; kernel-mode samples "
			"need root, CAP_PERFMON or kernel.perf_event_paranoid <= 1)%s\n",
			a->topt.user_ring ? "user mode" : "refused", strerror(a->task_clock_errno),
			a->topt.user_ring ? ": user time through buffers, the ticks place kernel time" :
			a->topt.cpu_clock ? ": at CPU-clock ticks" :
					    ": snapshots");
	if (st->user_ring_threads)
		fprintf(stderr, "pperf: user time   %12llu threads with their user time through a "
			"buffer, their ticks for their time in the kernel alone\n",
			(unsigned long long)st->user_ring_threads);
	fprintf(stderr, "pperf: signals     %12llu of the program passed through\n",
		(unsigned long long)st->foreign_signals);
	if (out)
		fprintf(stderr, "pperf: profile     %12.1f KiB in '%s' (%.2f bytes per thread-sample)\n",
			(double)bytes / 1024, out,
			st->thread_samples ? (double)bytes / (double)st->thread_samples : 0.0);
}

/* The command line of a process we attach to, for the profile; its pid if unreadable. */
static int attached_cmdline(pid_t pid, char ***argvp)
{
	static char buf[8192];
	static char *args[64];
	char path[64];
	ssize_t n;
	int fd, argc = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read_full(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, sizeof(buf), "%d", (int)pid);
		n = (ssize_t)strlen(buf) + 1;
	}
	buf[n] = '\0';
	for (char *p = buf; p < buf + n && argc < (int)ARRAY_SIZE(args) - 1; p += strlen(p) + 1)
		args[argc++] = p;
	args[argc] = NULL;
	*argvp = args;
	return argc;
}

static void fill_meta(struct profile_meta *m, const struct record_args *a, int argc,
		      char *const *argv, uint32_t flags)
{
	struct timespec mono, real;

	proc_machine_meta(m);
	m->pperf_version = pperf_version;
	m->flags = flags;
	m->argc = (uint32_t)argc;
	m->argv = (const char *const *)argv;
	m->freq_hz = a->freq;
	m->period_ns = (uint64_t)(1e9 / a->freq + 0.5);
	m->clockid = CLOCK_MONOTONIC;
	/* One reference pair ties the sample clock to wall-clock time (for external meters). */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	m->ref_clock_ns = (uint64_t)mono.tv_sec * NSEC_PER_SEC + (uint64_t)mono.tv_nsec;
	m->ref_realtime_ns = (uint64_t)real.tv_sec * NSEC_PER_SEC + (uint64_t)real.tv_nsec;
	m->start_time = m->ref_clock_ns;
}

void record_args_init(struct record_args *a, const char *name)
{
	*a = (struct record_args){ .name = name, .freq = 1000.0, .output = "pperf.data",
				   .outfile_flags = OUTFILE_KEEP_OLD };
	a->topt.inherit = 1;
	a->topt.child_stdout_fd = -1;
}

int record_run(struct record_args *a, char **cmd_argv, int cmd_argc, int *written,
	       struct tracer_stats *stats)
{
	struct pmu_set pmus = { 0 };
	int clock_err = 0, user_clock = 0; /* the task clock: why refused, or 0; of user mode alone */
	struct profile_writer *writer = NULL;
	struct profile_meta meta = { 0 };
	struct outfile out = { .fd = -1 };
	struct tracer *t;
	int status, fd = -1, ret = EXIT_FAIL;
	const char *cmd = a->name;
	char **attach_argv = NULL;

	*written = 0;
	*stats = (struct tracer_stats){ 0 };
	if (a->pid && cmd_argc)
		usage_error(cmd, "give either -p PID or a command, not both");
	if (!a->pid && !cmd_argc)
		usage_error(cmd, "no command to record: pperf record [options] -- COMMAND");
	if (a->no_output)
		a->output = NULL;

	for (size_t i = 0; i < a->nr_pmu_specs; i++)
		if (pmu_set_add(&pmus, a->pmu_specs[i]) < 0)
			goto out;

	if (a->output) {
		/*
		 * The profile goes to a temporary beside FILE, which becomes FILE once the program
		 * has started (or been attached to), and is written there as recording goes: a
		 * failed start leaves FILE as it was, a killed recorder a readable FILE. FILE's
		 * previous profile becomes FILE.old then, unless the flags say otherwise.
		 */
		if (outfile_open(&out, a->output, a->outfile_flags, NULL) < 0)
			goto out;
		fd = out.fd;
		if (fd == STDOUT_FILENO)
			a->topt.child_stdout_fd = STDERR_FILENO; /* keep the stream clean */
	}
	if (a->pid) {
		int n = attached_cmdline(a->pid, &attach_argv);

		fill_meta(&meta, a, n, attach_argv,
			  META_ATTACHED | (a->topt.inherit ? META_INHERIT : 0));
	} else {
		fill_meta(&meta, a, cmd_argc, cmd_argv, a->topt.inherit ? META_INHERIT : 0);
	}
	if (a->topt.randomize)
		meta.flags |= META_RANDOMIZED;
	if (a->topt.call_graph)
		meta.flags |= META_CALL_GRAPH;
	/* Each thread on its task clock (kernel-mode or user-mode) where the kernel allows one;
	 * where it refuses both, snapshots, unless the ticks are asked for (--sampling cpu or
	 * ticks): beside busy processes the ticks see a thread only where the scheduler lets it
	 * run across one, and lean by several points (README, Limits), where the snapshots' own
	 * instants do not. */
	/* (each probe opens an event on pperf itself: once each) */
	if (a->sampling == SAMPLING_CPU || a->sampling == SAMPLING_AUTO) {
		clock_err = perfclock_usable();
		user_clock = clock_err < 0 && perfclock_user_usable() == 0;
	}
	a->topt.cpu_clock = a->sampling == SAMPLING_TICKS ? CPU_CLOCK_TICKS :
			    a->sampling == SAMPLING_CPU ||
					    (a->sampling == SAMPLING_AUTO && (clock_err == 0 || user_clock)) ?
						    CPU_CLOCK_EXACT :
						    CPU_CLOCK_NONE;
	a->task_clock_errno = clock_err < 0 ? -clock_err : 0; /* -v says why, and what instead */
	if (a->topt.cpu_clock == CPU_CLOCK_EXACT) {
		/* exact steps of each thread's task clock, where the kernel gives them */
		if (clock_err < 0) {
			a->topt.cpu_clock = CPU_CLOCK_TICKS;
			/* user time on the task clock all the same, through buffers of user
			 * mode alone; the ticks place the time in the kernel */
			a->topt.user_ring = user_clock;
			if (a->topt.user_ring)
				meta.flags |= META_USER_CLOCK;
		} else {
			meta.flags |= META_TASK_CLOCK;
		}
	}
	if (a->topt.cpu_clock)
		meta.flags |= META_CPU_CLOCK;
	if (fd >= 0) {
		writer = profile_writer_open(fd, a->output, &meta);
		if (!writer) {
			outfile_abort(&out);
			goto out;
		}
		for (uint32_t i = 0; i < pmus.nr_channels; i++) {
			const struct pmu_channel *c = pmu_set_channel(&pmus, i);
			struct profile_record rec = { .type = PROFILE_CHANNEL };
			const struct pmu *owner = NULL;

			for (uint32_t p = 0; p < pmus.nr_pmus; p++)
				if (i >= pmus.pmus[p].first_channel &&
				    i < pmus.pmus[p].first_channel + pmus.pmus[p].nr_channels)
					owner = &pmus.pmus[p];
			rec.channel = (struct profile_channel){
				.index = i, .kind = c->kind, .scope = c->scope, .name = c->name,
				.unit = c->unit, .backend = owner ? owner->ops->name : "",
				.scale = c->scale
			};
			if (profile_write(writer, &rec) < 0) {
				profile_writer_close(writer);
				outfile_abort(&out);
				goto out;
			}
		}
	}

	a->topt.freq_hz = a->freq;
	a->topt.pmus = &pmus;
	a->topt.writer = writer;
	t = tracer_new(&a->topt);
	status = !t ? EXIT_FAIL : a->pid ? (tracer_attach(t, a->pid) < 0 ? EXIT_FAIL : 0) :
					  tracer_start(t, cmd_argv);
	if (status) {
		/* Nothing started: FILE stays as it was, its .old too. */
		tracer_free(t);
		if (writer)
			profile_writer_close(writer);
		if (a->output)
			outfile_abort(&out);
		ret = status;
		goto out;
	}
	/* Recording has started: the profile takes its name (a failure leaves it where it is,
	 * and says so; recording goes on). */
	status = a->output ? outfile_publish(&out) : 0;
	ret = tracer_run(t);
	if (status < 0 && ret == 0)
		ret = EXIT_FAIL;

	if (writer) {
		uint64_t bytes = profile_writer_size(writer);
		/* where the profile is: FILE, or the temporary if it could not take FILE's name */
		char *where = xstrdup(outfile_name(&out));

		*written = status == 0;
		if (profile_writer_close(writer) < 0) {
			*written = 0;
			if (ret == 0)
				ret = EXIT_FAIL;
		}
		if (outfile_close(&out) < 0) {
			*written = 0;
			if (ret == 0)
				ret = EXIT_FAIL;
		}
		if (pperf_verbose && !a->own_stats)
			print_stats(tracer_stats(t), a, where, bytes);
		else if (!a->quiet && !a->own_stats)
			fprintf(stderr, "pperf: recorded %llu samples (%llu thread-samples) to '%s', "
					"%.1f KiB\n",
				(unsigned long long)tracer_stats(t)->sample_records,
				(unsigned long long)tracer_stats(t)->thread_samples,
				where, (double)bytes / 1024);
		free(where);
	} else if (pperf_verbose && !a->own_stats) {
		print_stats(tracer_stats(t), a, NULL, 0);
	}
	if (!a->quiet) {
		warn_missed(tracer_stats(t), a->topt.sched_policy, a->topt.cpu_clock);
		warn_rate(tracer_stats(t), a->freq);
	}
	*stats = *tracer_stats(t);
	tracer_free(t);
out:
	pmu_set_close(&pmus);
	for (size_t i = 0; i < a->nr_pmu_specs; i++)
		free(a->pmu_specs[i]);
	free(a->pmu_specs);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct tracer_stats st;
	int cmd_at, written;

	record_args_init(&a, "record");
	parse_args(&a, argc, argv, &cmd_at);
	return record_run(&a, argv + cmd_at, argc - cmd_at, &written, &st);
}
