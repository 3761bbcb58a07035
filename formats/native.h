/*
 * Constants of the native profile format shared by its writer and reader (docs/format.md).
 * Not part of the profile interface: tools use formats/profile.h.
 */
#ifndef PPERF_NATIVE_H
#define PPERF_NATIVE_H

#include <stdint.h>

/* "PPRF", then CR LF SUB LF: a file that went through a text-mode transfer is recognised. */
#define NATIVE_MAGIC "PPRF\r\n\x1a\n"
#define NATIVE_MAGIC_SIZE 8
#define NATIVE_HEADER_SIZE 16
#define NATIVE_VERSION_MAJOR 1
#define NATIVE_VERSION_MINOR 2

/* A thread's state in a sample (format 1.1), in the low 3 bits of its CPU delta's change. */
enum native_state_code {
	STATE_ONCPU = 0,	 /* on a CPU: stands for the time since its previous sample */
	STATE_OFFCPU = 1,	 /* waiting for a CPU */
	STATE_ASLEEP = 2,	 /* asleep in the kernel */
	STATE_HELD = 3,		 /* in a stop */
	STATE_ONCPU_WEIGHED = 4, /* on a CPU, and an svarint follows: its weight minus that time */
	STATE_EDGE = 5,		 /* stopped at a system call's end, its place at the instant unknown */
};

/* A USTACK thread's flag in the file alone (format 1.2; the others are profile_ustack_flags):
 * its registers are those of its previous copy, and its register count is 0. */
#define NATIVE_USTACK_SAME_REGS (1u << 1)

/* The largest record a reader accepts: more is corruption, not a profile. */
#define NATIVE_MAX_RECORD (64u << 20)

/* The keys of the META record's key/value entries. */
enum native_meta_key {
	META_HOSTNAME = 1,
	META_OSRELEASE = 2,
	META_ARCH = 3,
	META_CPU_MODEL = 4,
	META_PPERF_VERSION = 5,
	META_CPUID = 6,
	META_NR_CPUS_ONLINE = 7,
	META_NR_CPUS_AVAIL = 8,
	META_MEM_TOTAL_KB = 9,
	META_ARGV = 10,
	META_FREQ_HZ = 11, /* IEEE 754 double, 8 bytes little-endian */
	META_PERIOD_NS = 12,
	META_CLOCKID = 13,
	META_REF_CLOCK_NS = 14,
	META_REF_REALTIME_NS = 15,
	META_START_TIME = 16,
	META_FLAGS = 17,
};

#endif
