/*
 * formats/protobuf.h against the encoding guide's own examples (protobuf.dev, "Encoding"), and
 * lib/json.h's strings (escapes, UTF-8 kept, stray bytes made characters) and numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/protobuf.h"
#include "../../lib/json.h"
#include "../../lib/util.h"
#include "check.h"

static void check_bytes(const char *what, const struct pb_buf *b, const char *want, size_t n)
{
	CHECK(b->len == n && !memcmp(b->data, want, n), "%s: %zu bytes, want %zu", what, b->len, n);
}

static void test_protobuf(void)
{
	struct pb_buf b = { 0 }, m = { 0 };
	static const uint64_t packed[] = { 3, 270, 86942 };

	pb_varint(&b, 1, 150);
	check_bytes("varint 150", &b, "\x08\x96\x01", 3);
	pb_reset(&b);
	pb_string(&b, 2, "testing");
	check_bytes("string", &b, "\x12\x07testing", 9);
	pb_reset(&b);
	pb_packed(&b, 4, packed, 3);
	check_bytes("packed", &b, "\x22\x06\x03\x8e\x02\x9e\xa7\x05", 8);
	pb_reset(&b);
	pb_packed(&b, 4, packed, 0);
	CHECK(b.len == 0, "an empty packed field is written: %zu bytes", b.len);
	/* Test3 { Test1 c = 3; } with Test1 { int32 a = 1; } = 150 */
	pb_varint(&m, 1, 150);
	pb_message(&b, 3, &m);
	check_bytes("message", &b, "\x1a\x03\x08\x96\x01", 5);
	pb_reset(&b);
	/* int64 -2: ten bytes, as every negative int64 */
	pb_varint(&b, 1, (uint64_t)-2);
	check_bytes("int64 -2", &b, "\x08\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
	pb_reset(&b);
	/* a field number past 15 takes a two-byte key; an empty string is still written */
	pb_string(&b, 16, "");
	check_bytes("field 16", &b, "\x82\x01\x00", 3);
	pb_reset(&b);
	/* a string longer than 127 bytes: a two-byte length */
	{
		char s[201];

		memset(s, 'x', 200);
		s[200] = '\0';
		pb_string(&b, 6, s);
		CHECK(b.len == 203 && !memcmp(b.data, "\x32\xc8\x01", 3) && b.data[202] == 'x',
		      "long string: %zu bytes", b.len);
	}
	pb_release(&b);
	pb_release(&m);
	CHECK(!b.data && !b.len && !b.alloc, "released");
}

static void check_json(const char *in, const char *want)
{
	char *got = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&got, &size);

	json_string(f, in);
	fclose(f);
	CHECK(!strcmp(got, want), "json_string() = %s, want %s", got, want);
	free(got);
}

static void check_number(double v, const char *want)
{
	char *got = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&got, &size);

	json_number(f, v);
	fclose(f);
	CHECK(!strcmp(got, want), "json_number() = %s, want %s", got, want);
	free(got);
}

static void test_json(void)
{
	check_number(17.25, "17.25");
	check_number(-1e-12, "-1e-12");
	check_number(1.0 / 0.0, "null");
	check_number(0.0 / 0.0, "null");
	check_json("main", "\"main\"");
	check_json("say \"hi\"\\", "\"say \\\"hi\\\"\\\\\"");
	check_json("a\nb\tc\x01\x7f", "\"a\\nb\\tc\\u0001\\u007f\"");
	check_json("h\xc3\xa9llo \xf0\x9f\x99\x82", "\"h\xc3\xa9llo \xf0\x9f\x99\x82\"");
	check_json("bad \xff\xc3", "\"bad \\u00ff\\u00c3\"");
	check_json("", "\"\"");
}

int main(void)
{
	test_protobuf();
	test_json();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("protobuf encoder and JSON strings: all checks passed\n");
	return 0;
}
