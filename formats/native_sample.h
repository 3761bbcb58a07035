/*
 * The native decoder's two halves (formats/native_read.c, formats/native_sample.c): the cursor
 * over a record's payload that decodes its numbers, and what samples are decoded against. Not
 * part of the profile interface: tools use formats/profile.h.
 */
#ifndef PPERF_NATIVE_SAMPLE_H
#define PPERF_NATIVE_SAMPLE_H

#include <stdint.h>

#include "profile.h"

struct native_reader;

/*
 * A cursor over the current record's payload (native_read.c). The first failure says what
 * and at which offset of the file, and marks the reader failed; later reads return 0.
 */
struct native_cursor {
	struct native_reader *r;
	const uint8_t *p, *end;
	int bad;
};

uint64_t cur_u(struct native_cursor *c);			  /* a varint */
uint32_t cur_u32(struct native_cursor *c, const char *what); /* one that fits 32 bits */
int64_t cur_s(struct native_cursor *c);			  /* a zigzag varint */
/* -1 after "corrupt profile at offset ...: RECORD record: what" (the first failure only). */
int cur_fail(struct native_cursor *c, const char *what);

/*
 * What the native format's samples are coded against and carry (native_sample.c): each thread
 * slot's previous values, the channels' previous readings, and the STACK and USTACK records
 * waiting for the sample they belong to.
 */
struct native_samples;

/* After META: samples take their interval and encoding from meta, which must stay valid. */
struct native_samples *samples_new(const struct profile_meta *meta);
void samples_free(struct native_samples *s);

/* A CHANNEL record: nr_channels now, its previous reading 0. */
void samples_add_channel(struct native_samples *s, uint32_t nr_channels);
/* The thread slots given so far, live or ended. */
uint32_t samples_nr_slots(const struct native_samples *s);
/* A THREAD record: the thread gets the next slot (t->slot). */
void samples_add_thread(struct native_samples *s, const struct profile_thread *t,
			uint32_t nr_channels);
/* A THREAD_END record: fills in its pid and tid; -1 if the slot is not live. */
int samples_end_thread(struct native_samples *s, struct profile_thread_end *te);

/*
 * STACK and USTACK records: kept for the sample that follows (1: nothing to hand out), -1 if
 * corrupt.
 */
int samples_stacks(struct native_samples *s, struct native_cursor *c);
int samples_ustacks(struct native_samples *s, struct native_cursor *c);

/*
 * Decode one sample of a SAMPLE record from c into rec->sample, with its deltas and the stacks
 * kept for it attached; what rec points to stays valid until the next call. 0, or -1 if corrupt.
 */
int samples_decode(struct native_samples *s, struct native_cursor *c,
		   const struct profile_channel *channels, uint32_t nr_channels,
		   struct profile_record *rec);

#endif
