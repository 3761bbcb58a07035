/*
 * pperf convert --to pprof: the gzipped protocol buffer of pprof (google/pprof's
 * proto/profile.proto), as `go tool pprof` and the tools built on it read it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "../formats/profile.h"
#include "../formats/protobuf.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/walk.h"
#include "../report/weight.h"
#include "cmd.h"
#include "convert.h"

static const char pprof_usage[] =
	"usage: pperf convert --to pprof [-i PROFILE] [-o FILE] [--symfs DIR] [--no-lines]\n"
	"                                [--no-demangle]\n"
	"\n"
	"Write the profile in pprof's format (gzipped profile.proto), for 'go tool pprof' and\n"
	"the tools that read it. A sample per thread-sample, its stack the recorded call stack\n"
	"(or the sampled function), labelled with the thread's name (thread), pid and tid; its\n"
	"values: cpu (the CPU time charged to it, ns; the default), wall (the interval, ns), and\n"
	"per channel its share, as a whole number (energy in nJ, a reading integrated over\n"
	"time in UNIT*ns, a counter in its unit). Locations carry their source lines and the\n"
	"functions inlined there; mappings their files' build-ids.\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the profile (default standard output; not the input)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-lines        no source lines nor inlined functions (faster)\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

/* The field numbers of profile.proto's messages. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE_ = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* A recorded executable mapping; a pprof Mapping once a location is in it. */
struct pp_map {
	uint32_t pid;
	int live; /* not ended by an exec of its process */
	uint64_t start, end, pgoff;
	char *path, *build_id; /* build_id in hex, "" if none */
	uint64_t id;	       /* 0 until used */
};

/* An open-addressing table of (a, b, name) keys to ids 1, 2, ... */
struct pp_entry {
	uint64_t a, b;
	char *name; /* NULL where a and b are the key */
	uint64_t id;
};

struct pp_table {
	struct pp_entry *e;
	size_t nr, size;
};

struct pprof {
	struct profile_reader *r;
	int lines;
	struct pb_buf out, msg, sub, line; /* the Profile; a message being built, and its parts */
	struct pp_table strings, functions, locations;
	struct pp_map *maps;
	size_t nr_maps, maps_alloc;
	uint64_t nr_mappings;
	uint64_t *loc_ids, *values;
	size_t loc_alloc, values_alloc;
	double *scale;	    /* per channel: what its share is multiplied by */
	uint32_t nr_channels; /* the sample types after cpu and wall */
	uint64_t last_time;   /* of the last sample */
	int header_done;
	char *command; /* the file the first process executed */
};

static uint64_t hash_key(uint64_t a, uint64_t b, const char *name)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull);

	while (name && *name)
		h = (h ^ (unsigned char)*name++) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* The entry of (a, b, name), numbered next when new; *added says if it is. */
static struct pp_entry *table_find(struct pp_table *t, uint64_t a, uint64_t b, const char *name,
				   int *added)
{
	size_t i;

	if (t->nr * 2 >= t->size) {
		size_t size = t->size ? t->size * 2 : 1024;
		struct pp_entry *e = xcalloc(size, sizeof(*e));

		for (size_t k = 0; k < t->size; k++) {
			if (!t->e[k].id)
				continue;
			for (i = hash_key(t->e[k].a, t->e[k].b, t->e[k].name) % size; e[i].id;
			     i = (i + 1) % size)
				;
			e[i] = t->e[k];
		}
		free(t->e);
		t->e = e;
		t->size = size;
	}
	for (i = hash_key(a, b, name) % t->size; t->e[i].id; i = (i + 1) % t->size) {
		struct pp_entry *x = &t->e[i];

		if (x->a == a && x->b == b && !x->name == !name &&
		    (!name || !strcmp(x->name, name))) {
			*added = 0;
			return x;
		}
	}
	t->e[i] = (struct pp_entry){ .a = a, .b = b, .name = name ? xstrdup(name) : NULL };
	t->e[i].id = ++t->nr;
	*added = 1;
	return &t->e[i];
}

static void table_release(struct pp_table *t)
{
	for (size_t i = 0; i < t->size; i++)
		free(t->e[i].name);
	free(t->e);
}

/* The index of s in the string table, added (to the Profile) when new. */
static uint64_t str_index(struct pprof *c, const char *s)
{
	int added;
	struct pp_entry *e;

	if (!*s)
		return 0; /* the table's first string, written first */
	e = table_find(&c->strings, 0, 0, s, &added);
	if (added)
		pb_string(&c->out, PROFILE_STRING_TABLE, s);
	return e->id;
}

static uint64_t function_id(struct pprof *c, const char *name, const char *file)
{
	uint64_t file_index = str_index(c, file ? file : "");
	struct pp_entry *e;
	int added;

	e = table_find(&c->functions, file_index, 0, name, &added);
	if (added) {
		uint64_t name_index = str_index(c, name);

		pb_reset(&c->msg);
		pb_varint(&c->msg, FUNCTION_ID, e->id);
		pb_varint(&c->msg, FUNCTION_NAME, name_index);
		pb_varint(&c->msg, FUNCTION_SYSTEM_NAME, name_index);
		if (file_index)
			pb_varint(&c->msg, FUNCTION_FILENAME, file_index);
		pb_message(&c->out, PROFILE_FUNCTION, &c->msg);
	}
	return e->id;
}

static uint64_t map_use(struct pprof *c, struct pp_map *m);

/*
 * Whether path is the recorded command's file: the program its first process executed, or in
 * a profile without exec records (upstream's), the file argv[0] names.
 */
static int is_command(struct pprof *c, const char *path)
{
	const struct profile_meta *meta = profile_reader_meta(c->r);
	const char *cmd, *base;

	if (c->command)
		return !strcmp(path, c->command);
	if (!meta->argc || !meta->argv[0][0])
		return 0;
	cmd = strrchr(meta->argv[0], '/') ? strrchr(meta->argv[0], '/') + 1 : meta->argv[0];
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return !strcmp(base, cmd);
}

static void map_add(struct pprof *c, const struct profile_mmap *m)
{
	struct pp_map *x;

	if (!(m->prot & PROT_EXEC) || !m->len)
		return;
	ALLOC_GROW(c->maps, c->maps_alloc, c->nr_maps + 1);
	x = &c->maps[c->nr_maps++];
	*x = (struct pp_map){ .pid = m->pid, .live = 1, .start = m->start, .end = m->start + m->len,
			      .pgoff = m->pgoff, .path = xstrdup(m->path) };
	x->build_id = xcalloc(2 * (size_t)m->build_id_size + 1, 1);
	for (uint32_t i = 0; i < m->build_id_size && i < sizeof(m->build_id); i++)
		sprintf(x->build_id + 2 * i, "%02x", m->build_id[i]);
	/*
	 * pprof takes the first Mapping for the program's ("File:" in its reports): the
	 * recorded command's, when this is its first executable map.
	 */
	if (!c->nr_mappings && is_command(c, x->path))
		map_use(c, x);
}

/* Give m its Mapping (written now), or the one of the same file at the same place (processes
 * that forked share theirs). */
static uint64_t map_use(struct pprof *c, struct pp_map *m)
{
	if (m->id)
		return m->id;
	for (size_t i = 0; i < c->nr_maps; i++) {
		const struct pp_map *o = &c->maps[i];

		if (o->id && o->start == m->start && o->end == m->end && o->pgoff == m->pgoff &&
		    !strcmp(o->path, m->path) && !strcmp(o->build_id, m->build_id))
			return m->id = o->id;
	}
	m->id = ++c->nr_mappings;
	pb_reset(&c->msg);
	pb_varint(&c->msg, MAPPING_ID, m->id);
	pb_varint(&c->msg, MAPPING_MEMORY_START, m->start);
	pb_varint(&c->msg, MAPPING_MEMORY_LIMIT, m->end);
	pb_varint(&c->msg, MAPPING_FILE_OFFSET, m->pgoff);
	pb_varint(&c->msg, MAPPING_FILENAME, str_index(c, m->path));
	if (m->build_id[0])
		pb_varint(&c->msg, MAPPING_BUILD_ID, str_index(c, m->build_id));
	/* symbolized here: pprof is not to look the addresses up again */
	pb_varint(&c->msg, MAPPING_HAS_FUNCTIONS, 1);
	pb_varint(&c->msg, MAPPING_HAS_FILENAMES, c->lines);
	pb_varint(&c->msg, MAPPING_HAS_LINE_NUMBERS, c->lines);
	pb_varint(&c->msg, MAPPING_HAS_INLINE_FRAMES, c->lines);
	pb_message(&c->out, PROFILE_MAPPING, &c->msg);
	return m->id;
}

/* The Mapping holding addr in process pid (the latest recorded), 0 if none. */
static uint64_t mapping_id(struct pprof *c, uint32_t pid, uint64_t addr)
{
	for (size_t i = c->nr_maps; i-- > 0;)
		if (c->maps[i].live && c->maps[i].pid == pid && c->maps[i].start <= addr &&
		    addr < c->maps[i].end)
			return map_use(c, &c->maps[i]);
	return 0;
}

static void add_line(struct pprof *c, const char *fn, const char *file, int line)
{
	pb_reset(&c->line);
	pb_varint(&c->line, LINE_FUNCTION_ID, function_id(c, fn, file));
	if (line > 0)
		pb_varint(&c->line, LINE_LINE, (uint64_t)line);
	pb_message(&c->sub, LOCATION_LINE, &c->line);
}

/*
 * The Location of addr in process pid, written when new: its lines innermost first, as
 * profile.proto has them (the last the function the others were inlined into). A function
 * inlined at addr is at the location's own line; each function it was inlined into, at the
 * call that inlined it (the symbolizer's inline chain).
 */
static uint64_t location_id(struct pprof *c, struct symbolizer *sym, uint32_t pid, uint64_t addr)
{
	struct sym_result r;
	struct pp_entry *e;
	char buf[512];
	uint64_t map;
	int added, n;

	e = table_find(&c->locations, pid, addr, NULL, &added);
	if (!added)
		return e->id;
	symbolizer_lookup(sym, pid, addr, &r);
	map = mapping_id(c, pid, addr);
	pb_reset(&c->sub);
	pb_varint(&c->sub, LOCATION_ID, e->id);
	if (map)
		pb_varint(&c->sub, LOCATION_MAPPING_ID, map);
	pb_varint(&c->sub, LOCATION_ADDRESS, addr);
	n = r.sym ? r.nr_inline : 0;
	if (!n) {
		add_line(c, sym_frame_name(&r, buf, sizeof(buf)), r.file, r.line);
	} else {
		add_line(c, r.inline_fn[0] ? r.inline_fn[0] : "[inlined]", r.file, r.line);
		for (int i = 1; i < n; i++)
			add_line(c, r.inline_fn[i] ? r.inline_fn[i] : "[inlined]",
				 r.inline_file[i - 1], r.inline_line[i - 1]);
		add_line(c, r.sym, r.inline_file[n - 1], r.inline_line[n - 1]);
	}
	pb_message(&c->out, PROFILE_LOCATION, &c->sub);
	return e->id;
}

/* The outermost location of a stack whose walk ended early. */
static uint64_t truncated_id(struct pprof *c)
{
	struct pp_entry *e;
	int added;

	e = table_find(&c->locations, 0, 0, "[truncated]", &added);
	if (added) {
		pb_reset(&c->sub);
		pb_varint(&c->sub, LOCATION_ID, e->id);
		add_line(c, "[truncated]", NULL, 0);
		pb_message(&c->out, PROFILE_LOCATION, &c->sub);
	}
	return e->id;
}

static void header(struct pprof *c);

static int record(void *p, const struct profile_record *rec)
{
	struct pprof *c = p;

	switch (rec->type) {
	case PROFILE_MMAP:
		map_add(c, &rec->mmap);
		break;
	case PROFILE_EXEC:
		if (!c->command)
			c->command = xstrdup(rec->exec.filename);
		for (size_t i = 0; i < c->nr_maps; i++)
			if (c->maps[i].pid == rec->exec.pid)
				c->maps[i].live = 0;
		break;
	case PROFILE_SAMPLE:
		/* every channel is known now: the sample types can be written */
		if (!c->header_done)
			header(c);
		c->last_time = rec->sample.time;
		break;
	default:
		break;
	}
	return 0;
}

static void label(struct pprof *c, const char *key, const char *str, int64_t num)
{
	pb_reset(&c->line);
	pb_varint(&c->line, LABEL_KEY, str_index(c, key));
	if (str)
		pb_varint(&c->line, LABEL_STR, str_index(c, str));
	else
		pb_varint(&c->line, LABEL_NUM, (uint64_t)num);
	pb_message(&c->msg, SAMPLE_LABEL, &c->line);
}

/* A whole number for a value: rounded, held within int64. */
static uint64_t int_value(double v)
{
	v = floor(v + 0.5);
	if (v != v)
		return 0;
	if (!(v > -9.2e18))
		return (uint64_t)INT64_MIN;
	if (v > 9.2e18)
		return (uint64_t)INT64_MAX;
	return (uint64_t)(int64_t)v;
}

static int add_sample(void *p, const struct walk_sample *s)
{
	struct pprof *c = p;
	size_t n = 0, nv = 2 + (size_t)c->nr_channels;

	ALLOC_GROW(c->loc_ids, c->loc_alloc, (s->stack ? s->stack->nr_frames : 0) + 2);
	c->loc_ids[n++] = location_id(c, s->symbolizer, s->pid, s->pc);
	if (s->stack) {
		/* a return address is looked up one byte back, in its call */
		for (uint32_t k = 0; k < s->stack->nr_frames; k++)
			c->loc_ids[n++] = location_id(c, s->symbolizer, s->pid,
						      s->stack->frames[k] - 1);
		if (s->stack->flags & STACK_TRUNCATED)
			c->loc_ids[n++] = truncated_id(c);
	}
	ALLOC_GROW(c->values, c->values_alloc, nv);
	c->values[0] = s->cpu_ns;
	c->values[1] = s->wall_ns;
	for (uint32_t i = 0; i < c->nr_channels; i++)
		c->values[2 + i] = i < s->nr_channels ? int_value(s->share[i] * c->scale[i]) : 0;
	pb_reset(&c->msg);
	pb_packed(&c->msg, SAMPLE_LOCATION_ID, c->loc_ids, n);
	pb_packed(&c->msg, SAMPLE_VALUE, c->values, nv);
	label(c, "thread", s->comm, 0);
	label(c, "pid", NULL, s->pid);
	label(c, "tid", NULL, s->tid);
	pb_message(&c->out, PROFILE_SAMPLE_, &c->msg);
	return 0;
}

static void value_type(struct pprof *c, uint32_t field, const char *type, const char *unit)
{
	pb_reset(&c->sub);
	pb_varint(&c->sub, VALUE_TYPE_TYPE, str_index(c, type));
	pb_varint(&c->sub, VALUE_TYPE_UNIT, str_index(c, unit));
	pb_message(&c->out, field, &c->sub);
}

/* The Profile's own fields: what its samples' values are, when and how it was recorded. */
static void header(struct pprof *c)
{
	const struct profile_meta *m = profile_reader_meta(c->r);
	char *cmd = NULL;
	size_t size = 0;
	FILE *f;

	c->header_done = 1;
	value_type(c, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	value_type(c, PROFILE_SAMPLE_TYPE, "wall", "nanoseconds");
	c->nr_channels = profile_reader_nr_channels(c->r);
	c->scale = xcalloc(c->nr_channels + 1, sizeof(*c->scale));
	for (uint32_t i = 0; i < c->nr_channels; i++) {
		const struct profile_channel *ch = profile_reader_channel(c->r, i);
		char unit[40];

		c->scale[i] = weight_channel_scale(ch, unit, sizeof(unit));
		value_type(c, PROFILE_SAMPLE_TYPE, ch->name, unit);
	}
	pb_varint(&c->out, PROFILE_DEFAULT_SAMPLE_TYPE, str_index(c, "cpu"));
	value_type(c, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	pb_varint(&c->out, PROFILE_PERIOD, m->period_ns);
	/* CLOCK_REALTIME at the start, from the profile's pair of clock readings */
	pb_varint(&c->out, PROFILE_TIME_NANOS,
		  m->ref_realtime_ns + (m->start_time - m->ref_clock_ns));
	if (!m->argc)
		return; /* no command line recorded (upstream's profiles) */
	f = open_memstream(&cmd, &size);
	if (!f)
		die_errno("cannot allocate memory");
	fprintf(f, "pperf record:");
	for (uint32_t i = 0; i < m->argc; i++)
		fprintf(f, " %s", m->argv[i]);
	fclose(f);
	pb_varint(&c->out, PROFILE_COMMENT, str_index(c, cmd));
	free(cmd);
}

/* Write the Profile gzipped (pprof reads it either way; gzipped is what it writes). */
static int write_gzip(const struct pb_buf *b, FILE *out, const char *name)
{
	z_stream zs = { 0 };
	unsigned char chunk[65536];
	int ret;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return error("cannot compress '%s': %s", name, zs.msg ? zs.msg : "zlib failed");
	zs.next_in = b->data;
	zs.avail_in = (uInt)b->len; /* a profile past 4 GiB is not one we make */
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		ret = deflate(&zs, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			break;
		fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out);
	} while (ret != Z_STREAM_END);
	deflateEnd(&zs);
	if (ret != Z_STREAM_END)
		return error("cannot compress '%s'", name);
	return ferror(out) ? error_errno("cannot write '%s'", name) : 0;
}

int cmd_convert_pprof(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT,	   CONV_OPT_OUTPUT, CONV_OPT_SYMFS, CONV_OPT_NO_LINES,
		CONV_OPT_NO_DEMANGLE, { NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to pprof", CONV_SHORTOPTS, opts, pprof_usage };
	struct pprof c = { 0 };
	struct conv cv;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.unwind = 1;
	cv.wo.sym.lines = 1;
	cv.wo.record_fn = record;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		conv_option(&cv, opt);
	c.lines = cv.wo.sym.lines;
	if ((!cv.output || !strcmp(cv.output, "-")) && isatty(STDOUT_FILENO)) {
		error("pprof's format is binary: not written to a terminal; use -o FILE");
		return EXIT_FAIL;
	}
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	pb_string(&c.out, PROFILE_STRING_TABLE, ""); /* index 0, as the format wants, first */
	/* The sample types at the first sample (record()), or at the end without one. */
	ret = walk_profile(c.r, &cv.wo, add_sample, &c, NULL);
	if (ret == 0) {
		const struct profile_meta *m = profile_reader_meta(c.r);

		if (!c.header_done)
			header(&c);
		pb_varint(&c.out, PROFILE_DURATION_NANOS,
			  c.last_time > m->start_time ? c.last_time - m->start_time : 0);
		ret = write_gzip(&c.out, cv.out, cv.out_name);
	}
	for (size_t i = 0; i < c.nr_maps; i++) {
		free(c.maps[i].path);
		free(c.maps[i].build_id);
	}
	free(c.maps);
	free(c.command);
	table_release(&c.strings);
	table_release(&c.functions);
	table_release(&c.locations);
	pb_release(&c.out);
	pb_release(&c.msg);
	pb_release(&c.sub);
	pb_release(&c.line);
	free(c.loc_ids);
	free(c.values);
	free(c.scale);
	return conv_close(&cv, ret);
}
