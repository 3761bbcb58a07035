/* The protocol buffers encoder (see protobuf.h). */
#include "protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "varint.h"

static void put_raw_varint(struct pb_buf *b, uint64_t v)
{
	ALLOC_GROW(b->data, b->alloc, b->len + VARINT_MAX);
	b->len += varint_put(b->data + b->len, v);
}

static void put_key(struct pb_buf *b, uint32_t field, enum pb_wire_type type)
{
	put_raw_varint(b, (uint64_t)field << 3 | type);
}

void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, PB_VARINT);
	put_raw_varint(b, v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n)
{
	put_key(b, field, PB_LEN);
	put_raw_varint(b, n);
	if (!n)
		return;
	ALLOC_GROW(b->data, b->alloc, b->len + n);
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *m)
{
	pb_bytes(b, field, m->data, m->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	uint8_t tmp[VARINT_MAX];
	size_t size = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		size += varint_put(tmp, v[i]);
	put_key(b, field, PB_LEN);
	put_raw_varint(b, size);
	ALLOC_GROW(b->data, b->alloc, b->len + size);
	for (size_t i = 0; i < n; i++)
		b->len += varint_put(b->data + b->len, v[i]);
}

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
}

void pb_release(struct pb_buf *b)
{
	free(b->data);
	*b = (struct pb_buf){ 0 };
}
