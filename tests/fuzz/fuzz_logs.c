/*
 * libFuzzer target for the log stream of 'runai logs' (rai_logs): the
 * input after its first byte is a timestamped log as the API server
 * sends it. It is fed whole and again in chunks whose sizes the first
 * byte chooses, both with and without --timestamps: what is printed must
 * be the same. Then a resume after the chunked run must give a sinceTime
 * that parses back.
 *
 *	input[0]	bits 0-5: chunk size - 1; bit 6: keep stamps;
 *			bit 7: the request was not stamped (pass-through)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "runai/logs.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
run(const char *data, size_t len, size_t chunk, unsigned ctl,
    struct rai_buf *out, int check_resume)
{
	struct rai_logs lg;
	char since[RAI_LOGS_SINCE_MAX];
	struct rai_logs_time t;
	size_t off = 0, n;

	rai_logs_init(&lg, !(ctl & 0x80), (ctl & 0x40) != 0);
	while (off < len) {
		n = chunk == 0 || chunk > len - off ? len - off : chunk;
		if (rai_logs_feed(&lg, data + off, n, out) == -1)
			abort();	/* the test's buffer has no cap */
		off += n;
	}
	if (check_resume) {
		if (rai_logs_resume(&lg, since, sizeof(since)) == 1 &&
		    rai_logs_parse_time(since, strlen(since), &t) == -1)
			abort();
		return;
	}
	(void)rai_logs_end(&lg, out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_buf whole = RAI_BUF_INIT, chunked = RAI_BUF_INIT;
	struct rai_buf cut = RAI_BUF_INIT;
	const char *log = (const char *)data + 1;
	size_t chunk;

	if (size < 1)
		return 0;
	chunk = (size_t)(data[0] & 0x3f) + 1;
	run(log, size - 1, 0, data[0], &whole, 0);
	run(log, size - 1, chunk, data[0], &chunked, 0);
	if (whole.len != chunked.len ||
	    (whole.len > 0 && memcmp(whole.data, chunked.data, whole.len) != 0))
		abort();
	run(log, size - 1, chunk, data[0], &cut, 1);
	rai_buf_release(&whole);
	rai_buf_release(&chunked);
	rai_buf_release(&cut);
	return 0;
}
