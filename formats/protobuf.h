/*
 * A protocol buffers encoder (the wire format of protobuf.dev/programming-guides/encoding): a
 * message is built field by field into a growing buffer; a nested message is built in a buffer
 * of its own and added whole. Used by convert --to pprof for profile.proto.
 */
#ifndef PPERF_PROTOBUF_H
#define PPERF_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

/* The wire types of a field's key. */
enum pb_wire_type {
	PB_VARINT = 0,
	PB_I64 = 1,
	PB_LEN = 2, /* strings, bytes, nested messages, packed repeated numbers */
	PB_I32 = 5,
};

struct pb_buf {
	uint8_t *data;
	size_t len, alloc;
};

/* An int32, int64, uint32, uint64 or bool field (a negative int64 takes ten bytes). */
void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v);
/* A bytes or string field of n bytes. */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
/* A nested message field: m's bytes, built with these functions. */
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *m);
/* A packed repeated varint field of n numbers (nothing when n is 0, as proto3 writes it). */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);
/* Empty the buffer for the next message, keeping its memory. */
void pb_reset(struct pb_buf *b);
/* Free the buffer's memory; paired with the first use of a zeroed struct pb_buf. */
void pb_release(struct pb_buf *b);

#endif
