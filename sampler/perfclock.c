/* Samples at exact steps of each thread's task clock (see perfclock.h). */
#include "perfclock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <time.h>
#include <linux/perf_event.h>

#include "../arch/arch.h"

/* The buffer of each thread: 16 pages, 64 KiB, 1,170 samples of 56 bytes (at the default 1 kHz,
 * 1.2 s of its CPU time: the tracer reads them at every sampling instant), or 2 pages where
 * that is more than the locked-memory limits allow a user without CAP_IPC_LOCK; with call
 * stacks (72 bytes more, and 8 a frame), 64 pages first, 256 KiB: 1.2 s at 1 kHz for stacks
 * of 20 frames. */
static const unsigned ring_pages[] = { 64, 16, 2 };
/* With stack copies (8 KiB a sample by default, at 1 kHz 8 MiB a second of the thread's CPU
 * time): 1 MiB, 120 ms of it, or 256 KiB. */
static const unsigned ring_pages_stack[] = { 256, 64 };

/* The kernel's siginfo, as far as a perf event's fields go (asm-generic/siginfo.h). */
struct k_siginfo_perf {
	int32_t signo, err, code, pad;
	uint64_t addr;
	uint64_t data; /* the event's sig_data */
	uint32_t type, flags;
	uint8_t rest[128 - 40];
};

/* The event of both ways: thread tid's task clock, sampled every period_ns, removed at an exec
 * (required with sigtrap; the tracer opens a new one either way). */
static void task_clock_attr(struct perf_event_attr *attr, uint64_t period_ns)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_TASK_CLOCK;
	attr->sample_period = period_ns ? period_ns : 1;
	attr->remove_on_exec = 1;
	attr->exclude_hv = 1;
}

static long open_event(struct perf_event_attr *attr, pid_t tid)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd >= 0 ? fd : -errno;
}

int perfclock_open(pid_t tid, uint64_t period_ns, uint64_t cookie)
{
	struct perf_event_attr attr;

	task_clock_attr(&attr, period_ns);
	attr.sigtrap = 1;
	attr.sig_data = cookie;
	return (int)open_event(&attr, tid);
}

int perfclock_set_period(int fd, uint64_t period_ns)
{
	uint64_t p = period_ns ? period_ns : 1;

	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &p) == 0 ? 0 : -errno;
}

int perfclock_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 ? 0 : -errno;
}

/* The most entries of a kernel call chain: the PC and return addresses (the sysctl's default). */
#define CHAIN_MAX 127

/* What a buffer samples: the task clock (of both modes or of user mode alone), or page faults
 * taken in user mode. */
enum ring_kind { RING_CLOCK, RING_CLOCK_USER, RING_FAULTS };

static int open_ring(pid_t tid, uint64_t period_ns, uint32_t depth, uint32_t stack_size,
		     enum ring_kind kind, struct perfclock_ring *ring)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), nr_pages, first;
	const unsigned *pages;
	struct perf_event_attr attr;
	long fd;
	int err;

	memset(ring, 0, sizeof(*ring));
	task_clock_attr(&attr, period_ns);
	if (kind == RING_FAULTS) {
		/*
		 * One sample every `period_ns` faults, a step the tracer sets as it learns what
		 * a fault costs (perfclock_set_period()). Not the kernel's frequency mode: it
		 * sets the step from the faults counted between scheduler ticks as if the thread
		 * had run throughout, so a thread that shares its CPU got steps of 20,000 faults
		 * (100 ms of its time with no sample of them, then one that stood for it all).
		 */
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		/* with the count, the thread's CPU time since the event was opened */
		attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	attr.exclude_kernel = (uint64_t)(kind != RING_CLOCK);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ |
			   PERF_SAMPLE_REGS_USER;
	attr.sample_regs_user = 1ULL << arch_perf_pc_reg();
	if (stack_size) {
		attr.sample_type |= PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = arch_perf_dwarf_mask();
		attr.sample_stack_user = stack_size;
		ring->stack_size = stack_size;
	}
	ring->regs_mask = attr.sample_regs_user;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	if (depth) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
		attr.sample_max_stack = depth + 1 < CHAIN_MAX ? (uint16_t)(depth + 1) : CHAIN_MAX;
		ring->depth = depth;
	}
	fd = open_event(&attr, tid);
	if (fd < 0)
		return (int)fd;
	/* the sizes to try: with stack copies theirs; with call stacks from the largest; else
	 * from the next (faults, which come at about the clock's rate or less, the one after) */
	pages = stack_size ? ring_pages_stack : ring_pages;
	nr_pages = stack_size ? sizeof(ring_pages_stack) / sizeof(ring_pages_stack[0]) :
				sizeof(ring_pages) / sizeof(ring_pages[0]);
	first = stack_size || depth ? 0 : 1;
	first += !stack_size && kind == RING_FAULTS;
	/* For the tests: every size refused, as where the memory a user may lock for perf's
	 * buffers has run out (see record-truth.sh for the real thing), so that what takes over
	 * is tested with any program. */
	if (getenv("PPERF_TEST_NO_BUFFERS"))
		first = nr_pages;
	errno = EPERM;
	for (size_t i = first; i < nr_pages; i++) {
		ring->data_size = page * pages[i];
		ring->base = mmap(NULL, page + ring->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				  (int)fd, 0);
		if (ring->base != MAP_FAILED) {
			ring->fd = (int)fd;
			ring->page = page;
			ring->faults = kind == RING_FAULTS;
			return 0;
		}
	}
	err = errno;
	close((int)fd);
	memset(ring, 0, sizeof(*ring));
	return -err;
}

int perfclock_open_ring(pid_t tid, uint64_t period_ns, uint32_t depth, uint32_t stack_size,
			struct perfclock_ring *ring)
{
	return open_ring(tid, period_ns, depth, stack_size, RING_CLOCK, ring);
}

int perfclock_open_ring_user(pid_t tid, uint64_t period_ns, uint32_t depth, uint32_t stack_size,
			     struct perfclock_ring *ring)
{
	return open_ring(tid, period_ns, depth, stack_size, RING_CLOCK_USER, ring);
}

int perfclock_open_faults(pid_t tid, uint64_t faults, uint32_t depth, uint32_t stack_size,
			  struct perfclock_ring *ring)
{
	return open_ring(tid, faults, depth, stack_size, RING_FAULTS, ring);
}

int perfclock_user_usable(void)
{
	struct perf_event_attr attr;
	long fd;

	task_clock_attr(&attr, 3600 * 1000000000ULL);
	attr.exclude_kernel = 1;
	fd = open_event(&attr, 0);
	if (fd < 0)
		return (int)fd;
	close((int)fd);
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	fd = open_event(&attr, 0);
	if (fd < 0)
		return (int)fd;
	close((int)fd);
	return 0;
}

/* Copy n bytes at offset off of the data area, which wraps around. */
static void ring_copy(const struct perfclock_ring *ring, uint64_t off, void *to, size_t n)
{
	const uint8_t *data = (const uint8_t *)ring->base + ring->page;
	size_t at = (size_t)(off % ring->data_size), first = ring->data_size - at;

	if (first > n)
		first = n;
	memcpy(to, data + at, first);
	memcpy((uint8_t *)to + first, data, n - first);
}

/*
 * A sample's call chain at offset off of the data area (n entries, as the kernel wrote them):
 * the return addresses after the PC into frames (at most depth), and whether it was cut. The
 * chain holds context markers (PERF_CONTEXT_USER...), then the user PC, then the callers'
 * return addresses, innermost first; the kernel's walk ends at a frame pointer it cannot
 * read (0 after the outermost frame, or a frame pointer that is none: code without them) or
 * at its limit. A return address of 0 is the outermost frame's; any other end is a cut.
 */
static void read_chain(const struct perfclock_ring *ring, uint64_t off, uint64_t n,
		       uint64_t *frames, struct perfclock_sample *s)
{
	uint64_t ip;
	int user_pc = 0;

	s->nr_frames = 0;
	s->truncated = 1;
	for (uint64_t i = 0; i < n; i++) {
		ring_copy(ring, off + i * 8, &ip, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* a context marker */
		if (!user_pc) {
			user_pc = 1; /* the PC itself */
			continue;
		}
		if (!ip) {
			s->truncated = 0;
			break;
		}
		if (s->nr_frames == ring->depth)
			break;
		frames[s->nr_frames++] = ip;
	}
}

/*
 * The user registers and stack copy of the sample whose registers start at offset at of the
 * data area and whose record ends at end, into out and bufs: where they end, or 0 if they do
 * not fit in the record (not the kernel's).
 */
static uint64_t read_regs_stack(const struct perfclock_ring *ring, uint64_t at, uint64_t end,
				const struct perfclock_bufs *bufs, uint32_t i,
				struct perfclock_sample *out)
{
	uint64_t abi = 0, v[PERFCLOCK_MAX_REGS], size = 0, dyn = 0, pc = 0, sp = 0;
	uint32_t nr = (uint32_t)__builtin_popcountll(ring->regs_mask);

	if (at + sizeof(abi) > end || nr > PERFCLOCK_MAX_REGS)
		return 0;
	ring_copy(ring, at, &abi, sizeof(abi));
	at += sizeof(abi);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE) {
		nr = 0; /* (a kernel thread's: none) */
	} else {
		if (at + nr * sizeof(uint64_t) > end)
			return 0;
		ring_copy(ring, at, v, nr * sizeof(uint64_t));
		at += nr * sizeof(uint64_t);
	}
	if (!ring->stack_size) {
		/* the PC alone */
		if (nr)
			out->pc = v[0];
		return at;
	}
	if (at + sizeof(size) > end)
		return 0;
	ring_copy(ring, at, &size, sizeof(size));
	at += sizeof(size);
	if (size) {
		if (size > ring->stack_size || at + size + sizeof(dyn) > end)
			return 0;
		ring_copy(ring, at + size, &dyn, sizeof(dyn));
		if (dyn > size)
			dyn = size;
		ring_copy(ring, at, bufs->stack + (size_t)i * ring->stack_size, (size_t)dyn);
		at += size + sizeof(dyn);
	}
	if (nr) {
		out->nr_regs = arch_perf_to_dwarf(v, bufs->regs + (size_t)i * PERFCLOCK_MAX_REGS, &pc,
						  &sp);
		out->pc = pc;
		out->sp = sp;
		out->stack_len = (uint32_t)dyn;
	}
	return at;
}

/*
 * For the tests: a task clock's counts read ahead by PPERF_TEST_CLOCK_LEAD parts in a million
 * of them, as where the hypervisor steals that much of a thread's time (which the clock counts
 * and the thread's CPU time does not; the tracer follows it, clockline.c,
 * clock_line_follow()), or behind where it is negative, as where the switches to a preempted
 * thread, which the clock misses, cost more than that; so that what a steady lead does is
 * tested on any machine.
 */
static uint64_t test_lead(uint64_t count)
{
	static double lead;
	static int known;

	if (!known) {
		const char *env = getenv("PPERF_TEST_CLOCK_LEAD");

		lead = env ? strtod(env, NULL) / 1e6 : 0;
		if (!(lead > -1 && lead < 1))
			lead = 0;
		known = 1;
	}
	return lead ? (uint64_t)((double)count * (1 + lead)) : count;
}

int perfclock_ring_count(const struct perfclock_ring *ring, uint64_t *count)
{
	if (read(ring->fd, count, sizeof(*count)) != sizeof(*count))
		return -1;
	if (!ring->faults)
		*count = test_lead(*count);
	return 0;
}

int perfclock_ring_pending(const struct perfclock_ring *ring)
{
	const struct perf_event_mmap_page *ctl = ring->base;

	return ctl && __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE) != ctl->data_tail;
}

size_t perfclock_ring_read(struct perfclock_ring *ring, struct perfclock_sample *out, size_t max,
			   const struct perfclock_bufs *bufs, uint32_t first)
{
	struct perf_event_mmap_page *ctl = ring->base;
	uint64_t head, tail;
	size_t n = 0;

	if (!ctl)
		return 0;
	head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	tail = ctl->data_tail;
	/* (the kernel writes a record only where all of it fits) */
	if (ring->rec_max && head - tail + ring->rec_max > ring->data_size)
		ring->was_full = 1;
	while (n < max && head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header eh;
		/* ip, pid and tid, time, the count (and of faults, the CPU time) */
		uint64_t f[5] = { 0 };

		ring_copy(ring, tail, &eh, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size > head - tail) {
			tail = head; /* not the kernel's: start again from what comes next */
			break;
		}
		if (eh.size > ring->rec_max)
			ring->rec_max = eh.size;
		if (eh.type == PERF_RECORD_SAMPLE &&
		    eh.size >= sizeof(eh) + (5 + (size_t)ring->faults) * sizeof(uint64_t)) {
			uint64_t at = tail + sizeof(eh), nr = 0, body = eh.size - sizeof(eh);
			size_t head_words = 4 + (size_t)ring->faults;

			/* ip, pid and tid, time, the count (and of faults, the CPU time); then the
			 * chain (with a depth): its length, its entries; then the registers' ABI
			 * and the PC */
			ring_copy(ring, at, f, head_words * sizeof(uint64_t));
			out[n] = (struct perfclock_sample){ .time = f[2],
							    .clock = ring->faults ? f[3] : test_lead(f[3]),
							    .running = ring->faults ? f[4] : 0,
							    .tid = (uint32_t)(f[1] >> 32),
							    .frames_at = first + (uint32_t)n,
							    .fault = ring->faults };
			at += head_words * sizeof(uint64_t);
			if (ring->depth && body >= (head_words + 1) * sizeof(uint64_t)) {
				ring_copy(ring, at, &nr, sizeof(nr));
				if (nr > (body - (head_words + 1) * sizeof(uint64_t)) / sizeof(uint64_t))
					nr = 0; /* not the kernel's */
				read_chain(ring, at + sizeof(nr), nr,
					   bufs->frames + (size_t)out[n].frames_at * ring->depth,
					   &out[n]);
				at += (1 + nr) * sizeof(uint64_t);
			}
			/* then the registers' ABI and the registers (and the stack copy) */
			if (!read_regs_stack(ring, at, tail + eh.size, bufs, first + (uint32_t)n,
					     &out[n]) ||
			    !out[n].pc) {
				out[n].pc = f[0] >> 63 ? 0 : f[0]; /* the PC, if a user one */
				out[n].stack_len = out[n].nr_regs = 0;
			}
			ring->last_clock = out[n].clock;
			out[n].lost_before = ring->lost_since;
			ring->lost_since = 0;
			n++;
		} else if (eh.type == PERF_RECORD_LOST && eh.size >= sizeof(eh) + 16) {
			ring_copy(ring, tail + sizeof(eh) + 8, &f[0], 8);
			ring->lost += f[0];
			ring->lost_since += f[0];
		}
		tail += eh.size;
	}
	__atomic_store_n(&ctl->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

void perfclock_ring_close(struct perfclock_ring *ring)
{
	if (ring->base) {
		munmap(ring->base, ring->page + ring->data_size);
		close(ring->fd);
	}
	memset(ring, 0, sizeof(*ring));
}

int perfclock_open_switches(pid_t tid, struct perfclock_ring *ring)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;
	long fd;
	int err;

	memset(ring, 0, sizeof(*ring));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
	attr.sample_regs_user = arch_perf_dwarf_mask();
	attr.write_backward = 1;
	attr.remove_on_exec = 1;
	attr.exclude_hv = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fd = open_event(&attr, tid);
	if (fd < 0)
		return (int)fd;
	/* one page: about 20 switches, of which the newest is the one read */
	ring->data_size = page;
	ring->base = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (ring->base == MAP_FAILED) {
		err = errno;
		close((int)fd);
		memset(ring, 0, sizeof(*ring));
		return -err;
	}
	ring->fd = (int)fd;
	ring->page = page;
	ring->regs_mask = attr.sample_regs_user;
	return 0;
}

uint32_t perfclock_switches_last(const struct perfclock_ring *ring, uint64_t *dwarf, uint64_t *pc,
				 uint64_t *sp, uint64_t *time)
{
	struct perf_event_mmap_page *ctl = ring->base;
	struct perf_event_header eh;
	uint64_t head, v[PERFCLOCK_MAX_REGS], abi, at;
	uint32_t nr = (uint32_t)__builtin_popcountll(ring->regs_mask), got;
	/* pid and tid, time, the registers' ABI, then the registers */
	size_t need = sizeof(eh) + 3 * sizeof(uint64_t) + nr * sizeof(uint64_t);

	*time = 0;
	if (!ctl || nr > PERFCLOCK_MAX_REGS)
		return 0;
	/* written backward: the newest record starts at the head */
	head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	ring_copy(ring, head, &eh, sizeof(eh));
	if (eh.type != PERF_RECORD_SAMPLE || eh.size < need || eh.size > ring->data_size)
		return 0;
	ring_copy(ring, head + sizeof(eh) + sizeof(uint64_t), &at, sizeof(at));
	ring_copy(ring, head + sizeof(eh) + 2 * sizeof(uint64_t), &abi, sizeof(abi));
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	ring_copy(ring, head + sizeof(eh) + 3 * sizeof(uint64_t), v, nr * sizeof(uint64_t));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE) != head)
		return 0; /* another switch meanwhile: not asleep where it was read */
	got = arch_perf_to_dwarf(v, dwarf, pc, sp);
	*time = got ? at : 0; /* set only with the registers it goes with */
	return got;
}

int perfclock_usable(void)
{
	/* a period of an hour of CPU time: it never fires before it is closed */
	int fd = perfclock_open(0, 3600 * 1000000000ULL, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int perfclock_signals_interrupt(void)
{
	static int known = -1;
	struct utsname u;
	int major = 0, minor = 0;

	if (known < 0)
		known = !arch_rewinds_calls &&
			(uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
			 major < 6 || (major == 6 && minor < 12));
	return known;
}

int perfclock_is_ours(pid_t tid, uint64_t cookie)
{
	struct k_siginfo_perf info;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &info) < 0)
		return 0;
	return info.signo == SIGTRAP && info.code == PERFCLOCK_CODE && info.data == cookie;
}
