/* What the sampler reads from /proc: CPU times, thread names, process ids, the machine. */
#include "procfs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../lib/util.h"

int cputime_open(struct cputime_src *src, pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	src->from_stat = 0;
	if (src->fd >= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	src->from_stat = 1;
	return src->fd >= 0 ? 0 : -1;
}

int cputime_read(const struct cputime_src *src, uint64_t *ns, struct sched_counts *sc)
{
	char buf[512], *p;
	ssize_t n;

	if (sc)
		*sc = (struct sched_counts){ .switches = CPUTIME_NO_SWITCHES };
	if (src->fd < 0)
		return -1;
	n = pread(src->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!src->from_stat) {
		/* "cpu_ns run_delay_ns pcount": pcount counts the times the thread was given a
		 * CPU; all three are 0 when the kernel keeps no scheduler statistics */
		unsigned long long run_delay = 0, pcount = 0;

		*ns = strtoull(buf, &p, 10);
		if (sc && sscanf(p, "%llu %llu", &run_delay, &pcount) == 2 && pcount)
			*sc = (struct sched_counts){ .switches = pcount, .waited_ns = run_delay };
		return 0;
	}
	/* stat: fields 14 and 15 (utime, stime, in clock ticks) follow the ")" ending comm. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	{
		unsigned long long utime, stime;
		static long hz;

		if (!hz)
			hz = sysconf(_SC_CLK_TCK);
		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			   &stime) != 2)
			return -1;
		*ns = (utime + stime) * (NSEC_PER_SEC / (uint64_t)hz);
	}
	return 0;
}

void cputime_close(struct cputime_src *src)
{
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
}

int asleep_open(struct asleep_src *src, pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	src->stat_fd = src->fd >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	return src->fd >= 0 ? 0 : -1;
}

/* The state letter in an open stat file (R, S, D, Z, X...), or 0 if it cannot be read. */
static char stat_state(int fd)
{
	char buf[512], *p;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name in parentheses may hold anything */
	return p && p[1] == ' ' ? p[2] : 0;
}

int asleep_state(const struct asleep_src *src)
{
	char state = stat_state(src->stat_fd);

	return state == 'S' || state == 'D';
}

int proc_thread_ended(pid_t tid)
{
	char path[64], state;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	state = stat_state(fd);
	if (fd >= 0)
		close(fd);
	return !state || state == 'Z' || state == 'X';
}

/*
 * The file holds "running" for a thread on a CPU or runnable; otherwise the system call number
 * (-1 outside a call), for a call its six arguments, then the stack pointer and the PC, in hex.
 */
int asleep_read(const struct asleep_src *src, uint64_t *pc, long *call, uint64_t args[6],
		uint64_t *sp)
{
	char buf[256], *last, *p;
	ssize_t n;

	if (src->fd < 0)
		return -1;
	n = pread(src->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!strncmp(buf, "running", 7))
		return 0;
	*call = strtol(buf, &p, 10);
	for (int i = 0; args && i < 6; i++)
		args[i] = *call >= 0 ? strtoull(p, &p, 16) : 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	last = strrchr(buf, ' ');
	if (!last || strncmp(last + 1, "0x", 2))
		return -1;
	*pc = strtoull(last + 1, NULL, 16);
	if (sp) {
		/* the stack pointer comes before the PC */
		*last = '\0';
		p = strrchr(buf, ' ');
		*sp = p ? strtoull(p + 1, NULL, 16) : 0;
	}
	return *pc ? 1 : -1;
}

void asleep_close(struct asleep_src *src)
{
	if (src->fd >= 0)
		close(src->fd);
	if (src->stat_fd >= 0)
		close(src->stat_fd);
	src->fd = src->stat_fd = -1;
}

int proc_read_comm(pid_t pid, pid_t tid, char buf[16])
{
	char path[64], tmp[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_text_file(path, tmp, sizeof(tmp)) < 0)
		return -1;
	memcpy(buf, tmp, 15);
	buf[15] = '\0';
	return 0;
}

int proc_read_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], buf[2048], *p;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	if (p && sscanf(p + 6, "%d", tgid) == 1)
		found++;
	p = strstr(buf, "\nPPid:");
	if (p && sscanf(p + 6, "%d", ppid) == 1)
		found++;
	return found == 2 ? 0 : -1;
}

int proc_voluntary_switches(pid_t pid, pid_t tid, uint64_t *n)
{
	static const char key[] = "\nvoluntary_ctxt_switches:";
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, key);
	return p && sscanf(p + sizeof(key) - 1, "%" SCNu64, n) == 1 ? 0 : -1;
}

/* The value of the first "key : value" line of /proc/cpuinfo with that key. */
static int cpuinfo_value(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[1024];
	size_t klen = strlen(key);
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) || !colon || (line[klen] != ' ' && line[klen] != '\t'))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

void proc_machine_meta(struct profile_meta *meta)
{
	static struct utsname uts;
	static char cpu_model[256], cpuid[128];
	char vendor[64], family[16], model[16], stepping[16], buf[4096], *p;

	uname(&uts);
	meta->hostname = uts.nodename;
	meta->osrelease = uts.release;
	meta->arch = uts.machine;
	if (cpuinfo_value("model name", cpu_model, sizeof(cpu_model)) < 0 &&
	    cpuinfo_value("Model", cpu_model, sizeof(cpu_model)) < 0)
		snprintf(cpu_model, sizeof(cpu_model), "%s", uts.machine);
	meta->cpu_model = cpu_model;
	cpuid[0] = '\0';
	/* perf's x86 CPUID string: vendor,family,model,stepping. */
	if (!cpuinfo_value("vendor_id", vendor, sizeof(vendor)) &&
	    !cpuinfo_value("cpu family", family, sizeof(family)) &&
	    !cpuinfo_value("model", model, sizeof(model)) &&
	    !cpuinfo_value("stepping", stepping, sizeof(stepping)))
		snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, family, model, stepping);
	meta->cpuid = cpuid;
	meta->nr_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	meta->nr_cpus_avail = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	meta->mem_total_kb = 0;
	if (read_text_file("/proc/meminfo", buf, sizeof(buf)) >= 0 &&
	    (p = strstr(buf, "MemTotal:")))
		meta->mem_total_kb = strtoull(p + 9, NULL, 10);
}
