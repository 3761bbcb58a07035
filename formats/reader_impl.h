/*
 * What the profile reader (formats/reader.c) shares with the decoders of the formats it reads
 * (native_read.c, legacy_read.c): the input it buffers and the functions each decoder provides.
 * Not part of the profile interface: tools use formats/profile.h.
 */
#ifndef PPERF_READER_IMPL_H
#define PPERF_READER_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

/* The profile's bytes, read forward: a file or a pipe through a buffer, or a buffer in memory. */
struct reader_input {
	const char *name; /* for messages */
	int fd;		  /* -1 for memory */
	const uint8_t *mem; /* a memory source instead of fd */
	size_t mem_len;
	uint8_t *buf; /* buf[pos, len): read but not yet taken (the whole memory source) */
	size_t pos, len;
	uint64_t offset; /* of the next byte to take */
	int eof;
	int failed; /* a read error was said */
};

/* Copy up to n bytes of input to dst; returns how many (fewer at end of input) or -1 after a
 * message. */
ssize_t input_take(struct reader_input *in, uint8_t *dst, size_t n);

/*
 * A format's decoder. The reader picks one by content when a profile is opened and hands every
 * profile_reader_* call to it, with what the format's open returned as dec.
 */
struct reader_ops {
	enum profile_format format; /* profile_reader_format() */
	/* profile_read(): the next record, 1, 0 at the end or -1 after a message */
	int (*read)(void *dec, struct profile_record *rec);
	/* profile_reader_truncated(), profile_reader_quiet(), profile_reader_offset() */
	int (*truncated)(const void *dec);
	void (*quiet)(void *dec);
	uint64_t (*offset)(const void *dec);
	/* profile_reader_meta(), _nr_channels(), _channel() */
	const struct profile_meta *(*meta)(const void *dec);
	uint32_t (*nr_channels)(const void *dec);
	const struct profile_channel *(*channel)(const void *dec, uint32_t i);
	/* profile_reader_close(); the input is the reader's to release */
	void (*close)(void *dec);
};

/*
 * The native format (native_read.c): reads the file header and META from in, which must stay
 * valid until native_reader_ops.close. NULL after a message ("not a pperf profile"...).
 */
struct native_reader *native_open(struct reader_input *in);
extern const struct reader_ops native_reader_ops;

/* Upstream pperf's format (legacy_read.c), over what legacy_open_fd() or _mem() returned. */
extern const struct reader_ops legacy_reader_ops;

#endif
