/* The traced tasks (threads) and processes, looked up by id. */
#include "tasks.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

#define TASK_HASH(tid) ((unsigned)(tid) % 1024)
#define PROC_HASH(pid) ((unsigned)(pid) % 256)

struct task *task_find(struct task_table *tt, pid_t tid)
{
	for (struct task *t = tt->task_hash[TASK_HASH(tid)]; t; t = t->hash_next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct process *process_find(struct task_table *tt, pid_t pid)
{
	for (struct process *p = tt->proc_hash[PROC_HASH(pid)]; p; p = p->hash_next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct task *task_add(struct task_table *tt, pid_t pid, pid_t tid, int *new_proc)
{
	struct process *p = process_find(tt, pid);
	struct task *t = xcalloc(1, sizeof(*t));

	*new_proc = !p;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->hash_next = tt->proc_hash[PROC_HASH(pid)];
		tt->proc_hash[PROC_HASH(pid)] = p;
		tt->nr_procs++;
	}
	p->nr_tasks++;
	t->tid = tid;
	t->proc = p;
	t->state = TASK_NEW;
	t->timer_id = -1;
	t->cputime.fd = -1;
	t->asleep.fd = t->asleep.stat_fd = -1;
	t->hash_next = tt->task_hash[TASK_HASH(tid)];
	tt->task_hash[TASK_HASH(tid)] = t;
	ALLOC_GROW(tt->tasks, tt->alloc, tt->nr + 1);
	tt->tasks[tt->nr++] = t;
	return t;
}

struct process *task_remove(struct task_table *tt, struct task *t)
{
	struct task **pp = &tt->task_hash[TASK_HASH(t->tid)];
	struct process *p = t->proc;

	while (*pp != t)
		pp = &(*pp)->hash_next;
	*pp = t->hash_next;
	for (size_t i = 0; i < tt->nr; i++)
		if (tt->tasks[i] == t) {
			tt->tasks[i] = tt->tasks[--tt->nr];
			break;
		}
	cputime_close(&t->cputime);
	asleep_close(&t->asleep);
	reading_line_release(&t->chans);
	free(t->slept_stack.regs);
	free(t->slept_stack.data);
	free(t->ran_stack.regs);
	free(t->ran_stack.data);
	free(t);
	return --p->nr_tasks == 0 ? p : NULL;
}

void process_remove(struct task_table *tt, struct process *p)
{
	struct process **pp = &tt->proc_hash[PROC_HASH(p->pid)];

	while (*pp != p)
		pp = &(*pp)->hash_next;
	*pp = p->hash_next;
	maps_release(&p->maps);
	free(p->dead_timers);
	free(p);
	tt->nr_procs--;
}

void task_table_release(struct task_table *tt)
{
	while (tt->nr) {
		struct process *p = task_remove(tt, tt->tasks[tt->nr - 1]);

		if (p)
			process_remove(tt, p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(tt->proc_hash); i++)
		while (tt->proc_hash[i])
			process_remove(tt, tt->proc_hash[i]);
	free(tt->tasks);
	memset(tt, 0, sizeof(*tt));
}
