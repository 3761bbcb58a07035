/*
 * Upstream pperf's binary profile ("legacy", `pperf1`): its layout, its reader (behind
 * profile_reader_open(), which detects it by content) and its writer. docs/format.md describes
 * the layout and what upstream's sampler really writes. Tools use formats/profile.h.
 */
#ifndef PPERF_LEGACY_H
#define PPERF_LEGACY_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Header: magic u32, wall us u64, latency us u64, samples u64, PMU size u32, VMMaps u32. */
#define LEGACY_HEADER_SIZE 36
/* A thread in a sample: tid u32, PC u64, CPU time ns u64 (packed). */
#define LEGACY_THREAD_SIZE 20
/* A VMMap: address u64, size u64, a NUL-padded file name of 256 bytes. */
#define LEGACY_LABEL_SIZE 256
#define LEGACY_VMMAP_SIZE (16 + LEGACY_LABEL_SIZE)

/* The magic number: what the PMU value is. */
enum legacy_pmu {
	LEGACY_PMU_CUSTOM = 0,
	LEGACY_PMU_CURRENT = 1,
	LEGACY_PMU_VOLTAGE = 2,
	LEGACY_PMU_POWER = 3,
};

/*
 * 1 if the first bytes of a file (buf, len of them: 44 are needed, the header and a first
 * sample's time, but for a profile of its header alone) look like a legacy profile of
 * file_size bytes: a magic of 0-3 and counts that fit the file, or the all-zero header
 * upstream leaves when it is killed, followed by a sample stamped with a plausible wall-clock
 * time.
 */
int legacy_detect(const uint8_t *buf, size_t len, uint64_t file_size);
/* 1 if a sample's time of day (us since 1970) is one legacy_detect() finds plausible: from
 * 2001 to 2286. The writer stamps no sample otherwise. */
int legacy_plausible_time(uint64_t us);

/*
 * The reader: decodes a legacy profile into the records of profile.h (META flagged
 * META_LEGACY, one PROCESS, THREADs as tids appear, MMAPs of the VMMaps with their file names
 * as paths, SAMPLEs, a CHANNEL for the PMU value, TOTALS). It needs random access (the VMMaps
 * are at the end): an fd it can pread, or memory.
 */
struct legacy_reader;

struct legacy_reader *legacy_open_fd(int fd, const char *name);
struct legacy_reader *legacy_open_mem(const void *buf, size_t len, const char *name);
int legacy_read(struct legacy_reader *lr, struct profile_record *rec);
int legacy_truncated(const struct legacy_reader *lr);
void legacy_quiet(struct legacy_reader *lr);
uint64_t legacy_offset(const struct legacy_reader *lr);
const struct profile_meta *legacy_meta(const struct legacy_reader *lr);
uint32_t legacy_nr_channels(const struct legacy_reader *lr);
const struct profile_channel *legacy_channel(const struct legacy_reader *lr, uint32_t i);
void legacy_close(struct legacy_reader *lr);

/*
 * The writer: converts a whole profile (any format) into upstream's layout on fd, which must
 * be seekable (the header is written last, as upstream does). Only one process and one PMU
 * value fit: the first process is kept and the first system channel becomes the PMU value;
 * what is dropped is said in a warning. A profile whose clock reference puts a sample outside
 * legacy_plausible_time() is refused. Returns 0, or -1 after a message.
 */
int legacy_write(struct profile_reader *r, int fd, const char *name);

#endif
