/* libFuzzer target: the profile reader on arbitrary bytes must never crash, hang or allocate
 * without bound. `make fuzz FUZZ_SECONDS=N`; crashes found are kept in tests/fuzz/regress/,
 * which tests/unit/test-fuzz-regress.c replays in `make check`. */
#include <stddef.h>
#include <stdint.h>

#include "../../formats/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_reader *r;
	struct profile_record rec;

	/* Error messages are expected by the thousand: run with -close_fd_mask=2. */
	r = profile_reader_memopen(data, size, "fuzz");
	if (!r)
		return 0;
	profile_reader_quiet(r);
	while (profile_read(r, &rec) > 0)
		;
	profile_reader_close(r);
	return 0;
}
