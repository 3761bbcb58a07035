/* The GNU build-id of an ELF file, read from its PT_NOTE segments (no libelf needed). */
#ifndef PPERF_BUILDID_H
#define PPERF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 20

/* Read the build-id of the ELF file at path into id (up to BUILD_ID_MAX bytes). Returns its
 * size, 0 if the file has none or is not ELF, -1 if it cannot be read (errno set). */
int read_build_id(const char *path, uint8_t id[BUILD_ID_MAX]);

/* Hex text of a build-id into buf (2 * size + 1 bytes). */
char *build_id_hex(const uint8_t *id, size_t size, char *buf);

#endif
