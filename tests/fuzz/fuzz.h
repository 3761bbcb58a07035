/*
 * What the libFuzzer targets of the commands share (tests/fuzz/fuzz.c): a private directory for
 * the files a command reads and writes, standard output sent to /dev/null, and a command run
 * as `pperf CMD ARGS...` runs it. The targets are built with clang and libFuzzer (`make fuzz`),
 * and with the project's compiler into the replays of `make check` (tests/fuzz/replay.c),
 * which call the same entry points on the seeds and on every input kept in tests/fuzz/regress/.
 */
#ifndef PPERF_FUZZ_H
#define PPERF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The entry points libFuzzer calls. LLVMFuzzerInitialize, once before the first input, is
 * fuzz.c's: it calls fuzz_setup(). Each target defines LLVMFuzzerTestOneInput. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Once per process: the directory (removed at exit; a crash leaves it in $TMPDIR), and stdout
 * to /dev/null: what a report prints is not what is checked. Error messages go to stderr,
 * which `make fuzz` closes (-close_fd_mask=2).
 */
void fuzz_setup(void);

/* The path of file `name` in the directory (valid until the next call with the same name). */
const char *fuzz_path(const char *name);
/* Write len bytes as file `name` of the directory; its path. */
const char *fuzz_file(const char *name, const void *data, size_t len);
/* Remove file `name` of the directory, if it is there. */
void fuzz_remove(const char *name);

/*
 * Where the programs of the seed profiles are (tests/fuzz/make-corpus): the seeds of the ELF
 * target, and the --symfs of report, convert and diff, which find a profile's files there by
 * name whatever path they were recorded at. Relative to the top of the tree, where `make fuzz`
 * and `make check` run; $PPERF_FUZZ_SYMFS names another place.
 */
const char *fuzz_symfs(void);

/*
 * Run a command's entry point on argv (NULL-terminated, argv[0] the command's name) as the
 * driver runs it, getopt reset first; its exit status. What it printed is flushed.
 */
int fuzz_command(int (*fn)(int argc, char **argv), const char *const *argv);

/* Little-endian 32 bits at p. */
uint32_t fuzz_le32(const uint8_t *p);

/*
 * An input of two files: its byte 0 (the target's option bits) into *opts, then a little-endian
 * length (taken modulo what is left) into *len: the first file is the len bytes that follow it,
 * the second the rest. *data and *size are moved past the five header bytes. 0 if the input is
 * shorter than those.
 */
int fuzz_split(const uint8_t **data, size_t *size, unsigned *opts, size_t *len);

/* A profile the command `who` wrote at path must open and read to its end (it may say that it
 * is cut short); aborts if not, naming who. */
void fuzz_read_back(const char *path, const char *who);

#endif
