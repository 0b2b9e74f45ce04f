/*
 * SPDY/3.1 frames for port forwarding: a streaming decoder (data frames
 * passed on piece by piece, so a large one is never held whole) and the
 * few frames a client sends. See kube/spdy.h for the wire format.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/spdy.h"

#include "core/banned.h"

#define VERSION		3
#define DICTIONARY_LEN	1423

/* ---- the dictionary ---- */

/*
 * SPDY/3's dictionary: header words, each behind its 32-bit length,
 * then a run of status lines, dates and media types without lengths.
 */
static const char *const dict_words[] = {
	"options", "head", "post", "put", "delete", "trace", "accept",
	"accept-charset", "accept-encoding", "accept-language",
	"accept-ranges", "age", "allow", "authorization", "cache-control",
	"connection", "content-base", "content-encoding", "content-language",
	"content-length", "content-location", "content-md5", "content-range",
	"content-type", "date", "etag", "expect", "expires", "from", "host",
	"if-match", "if-modified-since", "if-none-match", "if-range",
	"if-unmodified-since", "last-modified", "location", "max-forwards",
	"pragma", "proxy-authenticate", "proxy-authorization", "range",
	"referer", "retry-after", "server", "te", "trailer",
	"transfer-encoding", "upgrade", "user-agent", "vary", "via",
	"warning", "www-authenticate", "method", "get", "status", "200 OK",
	"version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive",
	"origin",
};

static const char dict_tail[] =
	"100101201202205206300302303304305306307402405406407408409410411412"
	"413414415416417502504505"
	"203 Non-Authoritative Information" "204 No Content"
	"301 Moved Permanently" "400 Bad Request" "401 Unauthorized"
	"403 Forbidden" "404 Not Found" "500 Internal Server Error"
	"501 Not Implemented" "503 Service Unavailable"
	"Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
	"Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
	"chunked,text/html,image/png,image/jpg,image/gif,application/xml,"
	"application/xhtml+xml,text/plain,text/javascript,public"
	"privatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,"
	"utf-,*,enq=0.";

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

const unsigned char *
kube_spdy_dictionary(size_t *len)
{
	static unsigned char dict[DICTIONARY_LEN];
	static size_t built;
	size_t i, n, at = 0;

	if (built == 0) {
		for (i = 0; i < sizeof(dict_words) / sizeof(dict_words[0]);
		    i++) {
			n = strlen(dict_words[i]);
			put32(dict + at, (uint32_t)n);
			memcpy(dict + at + 4, dict_words[i], n);
			at += 4 + n;
		}
		memcpy(dict + at, dict_tail, sizeof(dict_tail) - 1);
		built = at + sizeof(dict_tail) - 1;
	}
	*len = built;
	return dict;
}

/* ---- the session's state ---- */

void
kube_spdy_init(struct kube_spdy *sp, kube_spdy_frame_fn *fn, void *ud)
{
	memset(sp, 0, sizeof(*sp));
	sp->fn = fn;
	sp->ud = ud;
	rai_buf_init(&sp->control, KUBE_SPDY_CONTROL_MAX);
	rai_buf_init(&sp->block, KUBE_SPDY_CONTROL_MAX);
}

void
kube_spdy_release(struct kube_spdy *sp)
{
	if (sp->def_ready)
		deflateEnd(&sp->def);
	if (sp->inf_ready)
		inflateEnd(&sp->inf);
	rai_buf_release(&sp->control);
	rai_buf_release(&sp->block);
	sp->def_ready = sp->inf_ready = 0;
}

/* ---- header blocks ---- */

static int
broken(struct rai_err *err, const char *what)
{
	return rai_err_set(err, RAI_E_PROTO, "the server broke SPDY: %s",
	    what);
}

/* Checks an inflated block: the count, and every length within it. */
static int
check_block(const char *block, size_t len, struct rai_err *err)
{
	const unsigned char *p = (const unsigned char *)block;
	size_t at = 4, n, i, k;

	if (len < 4)
		return broken(err, "a header block without its count");
	n = get32(p);
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			if (len - at < 4 || get32(p + at) > len - at - 4)
				return broken(err, "a header block whose "
				    "lengths run past its end");
			at += 4 + get32(p + at);
		}
	return 0;
}

static int
inflate_block(struct kube_spdy *sp, const unsigned char *in, size_t len,
    struct rai_err *err)
{
	unsigned char out[4096], *dict;
	size_t dlen;
	int rc;

	if (!sp->inf_ready) {
		if (inflateInit(&sp->inf) != Z_OK)
			return rai_err_set(err, RAI_E_NOMEM, "zlib: inflateInit");
		sp->inf_ready = 1;
	}
	rai_buf_reset(&sp->block);
	sp->inf.next_in = (unsigned char *)(uintptr_t)in;
	sp->inf.avail_in = (uInt)len;
	do {
		sp->inf.next_out = out;
		sp->inf.avail_out = sizeof(out);
		rc = inflate(&sp->inf, Z_SYNC_FLUSH);
		if (rc == Z_NEED_DICT) {
			dict = (unsigned char *)(uintptr_t)
			    kube_spdy_dictionary(&dlen);
			rc = inflateSetDictionary(&sp->inf, dict, (uInt)dlen);
			if (rc != Z_OK)
				return broken(err, "a header block made with "
				    "another dictionary");
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return broken(err, "a header block that does not "
			    "inflate");
		if (rai_buf_add(&sp->block, out, sizeof(out) -
		    sp->inf.avail_out) == -1)
			return broken(err, "a header block over 1 MiB");
		if (rc == Z_BUF_ERROR && sp->inf.avail_out > 0)
			break;	/* no progress: the block is cut short */
	} while (sp->inf.avail_in > 0 || sp->inf.avail_out == 0);
	return check_block(sp->block.data, sp->block.len, err);
}

static int
deflate_block(struct kube_spdy *sp, struct rai_buf *out,
    const unsigned char *in, size_t len, struct rai_err *err)
{
	unsigned char chunk[4096];
	const unsigned char *dict;
	size_t dlen;

	if (!sp->def_ready) {
		if (deflateInit(&sp->def, Z_DEFAULT_COMPRESSION) != Z_OK)
			return rai_err_set(err, RAI_E_NOMEM, "zlib: deflateInit");
		sp->def_ready = 1;
		dict = kube_spdy_dictionary(&dlen);
		if (deflateSetDictionary(&sp->def, dict, (uInt)dlen) != Z_OK)
			return rai_err_set(err, RAI_E_INTERNAL, "zlib: "
			    "deflateSetDictionary");
	}
	sp->def.next_in = (unsigned char *)(uintptr_t)in;
	sp->def.avail_in = (uInt)len;
	do {
		sp->def.next_out = chunk;
		sp->def.avail_out = sizeof(chunk);
		if (deflate(&sp->def, Z_SYNC_FLUSH) == Z_STREAM_ERROR)
			return rai_err_set(err, RAI_E_INTERNAL, "zlib: deflate");
		if (rai_buf_add(out, chunk, sizeof(chunk) -
		    sp->def.avail_out) == -1)
			return rai_err_set(err, RAI_E_INTERNAL, "a SPDY header "
			    "block does not fit the send buffer");
	} while (sp->def.avail_out == 0);
	return 0;
}

int
kube_spdy_header(const char *block, size_t len, const char *name,
    const char **val, size_t *vlen)
{
	const unsigned char *p = (const unsigned char *)block;
	size_t at = 4, n, i, nl, want = strlen(name), v;

	if (len < 4)
		return 0;
	n = get32(p);
	for (i = 0; i < n && len - at >= 4; i++) {
		nl = get32(p + at);
		if (nl > len - at - 4 || len - at - 4 - nl < 4)
			return 0;
		v = get32(p + at + 4 + nl);
		if (v > len - at - 8 - nl)
			return 0;
		if (nl == want && memcmp(block + at + 4, name, nl) == 0) {
			*val = block + at + 8 + nl;
			/* repeated values are joined by NULs: the first */
			*vlen = strnlen(*val, v);
			return 1;
		}
		at += 8 + nl + v;
	}
	return 0;
}

/* ---- reading ---- */

static int
is_control(const unsigned char *head)
{
	return (head[0] & 0x80) != 0;
}

static size_t
head_length(const unsigned char *head)
{
	return (size_t)head[5] << 16 | (size_t)head[6] << 8 | head[7];
}

static int
need(size_t len, size_t want, struct rai_err *err)
{
	return len < want ? broken(err, "a control frame too short for its "
	    "type") : 0;
}

/* A whole control frame: parsed and passed on. */
static int
control_frame(struct kube_spdy *sp, struct rai_err *err)
{
	const unsigned char *p = (const unsigned char *)sp->control.data;
	size_t len = sp->control.len, skip = 0;
	struct kube_spdy_frame f;

	memset(&f, 0, sizeof(f));
	f.type = sp->head[2] << 8 | sp->head[3];
	f.flags = sp->head[4];
	f.last = 1;
	switch (f.type) {
	case KUBE_SPDY_SYN_STREAM:
		skip = 10;
		break;
	case KUBE_SPDY_SYN_REPLY:
	case KUBE_SPDY_HEADERS:
		skip = 4;
		break;
	case KUBE_SPDY_RST_STREAM:
	case KUBE_SPDY_WINDOW_UPDATE:
	case KUBE_SPDY_GOAWAY:
		if (need(len, 8, err) == -1)
			return -1;
		f.stream_id = get32(p) & 0x7fffffff;
		f.value = get32(p + 4);
		if (f.type == KUBE_SPDY_WINDOW_UPDATE)
			f.value &= 0x7fffffff;
		return sp->fn(sp->ud, &f, err);
	case KUBE_SPDY_PING:
		if (need(len, 4, err) == -1)
			return -1;
		f.value = get32(p);
		return sp->fn(sp->ud, &f, err);
	case KUBE_SPDY_SETTINGS:
		if (need(len, 4, err) == -1)
			return -1;
		f.data = (const char *)p;
		f.len = len;
		return sp->fn(sp->ud, &f, err);
	default:
		return 0;	/* unknown: skipped */
	}
	if (need(len, skip, err) == -1)
		return -1;
	f.stream_id = get32(p) & 0x7fffffff;
	if (inflate_block(sp, p + skip, len - skip, err) == -1)
		return -1;
	f.data = sp->block.data;
	f.len = sp->block.len;
	return sp->fn(sp->ud, &f, err);
}

/* A frame's head is complete: checks it and readies its payload. */
static int
start_frame(struct kube_spdy *sp, struct rai_err *err)
{
	struct kube_spdy_frame f;

	sp->left = head_length(sp->head);
	rai_buf_reset(&sp->control);
	if (is_control(sp->head)) {
		if (((sp->head[0] & 0x7f) << 8 | sp->head[1]) != VERSION)
			return broken(err, "a frame of another version than 3");
		if (sp->left > KUBE_SPDY_CONTROL_MAX)
			return broken(err, "a control frame over 1 MiB");
		return sp->left == 0 ? control_frame(sp, err) : 0;
	}
	if (sp->left > 0)
		return 0;
	memset(&f, 0, sizeof(f));
	f.stream_id = get32(sp->head) & 0x7fffffff;
	f.flags = sp->head[4];
	f.last = 1;
	return sp->fn(sp->ud, &f, err);
}

/* Up to len payload bytes of the current frame; returns how many. */
static int
take_payload(struct kube_spdy *sp, const unsigned char *p, size_t len,
    size_t *used, struct rai_err *err)
{
	struct kube_spdy_frame f;
	size_t n = len < sp->left ? len : sp->left;

	*used = n;
	sp->left -= n;
	if (is_control(sp->head)) {
		if (rai_buf_add(&sp->control, p, n) == -1)
			return broken(err, "a control frame over 1 MiB");
		return sp->left == 0 ? control_frame(sp, err) : 0;
	}
	memset(&f, 0, sizeof(f));
	f.stream_id = get32(sp->head) & 0x7fffffff;
	f.flags = sp->head[4];
	f.data = (const char *)p;
	f.len = n;
	f.last = sp->left == 0;
	return sp->fn(sp->ud, &f, err);
}

int
kube_spdy_feed(struct kube_spdy *sp, const void *data, size_t len,
    struct rai_err *err)
{
	const unsigned char *p = data;
	size_t used;

	while (len > 0) {
		if (sp->head_len < KUBE_SPDY_HEAD) {
			sp->head[sp->head_len++] = *p++;
			len--;
			if (sp->head_len == KUBE_SPDY_HEAD &&
			    start_frame(sp, err) == -1)
				return -1;
			if (sp->head_len == KUBE_SPDY_HEAD && sp->left == 0)
				sp->head_len = 0;
			continue;
		}
		if (take_payload(sp, p, len, &used, err) == -1)
			return -1;
		p += used;
		len -= used;
		if (sp->left == 0)
			sp->head_len = 0;
	}
	return 0;
}

/* ---- writing ---- */

static void
control_head(unsigned char h[KUBE_SPDY_HEAD], int type, unsigned flags,
    size_t len)
{
	h[0] = 0x80;
	h[1] = VERSION;
	h[2] = (unsigned char)(type >> 8);
	h[3] = (unsigned char)type;
	put32(h + 4, (uint32_t)len);
	h[4] = (unsigned char)flags;
}

void
kube_spdy_data_head(unsigned char head[KUBE_SPDY_HEAD], uint32_t id,
    unsigned flags, size_t len)
{
	put32(head, id & 0x7fffffff);
	put32(head + 4, (uint32_t)len);
	head[4] = (unsigned char)flags;
}

static int
add_control(struct rai_buf *out, int type, const unsigned char *payload,
    size_t len)
{
	unsigned char h[KUBE_SPDY_HEAD];
	size_t start = out->len;

	control_head(h, type, 0, len);
	if (rai_buf_add(out, h, sizeof(h)) == -1 ||
	    rai_buf_add(out, payload, len) == -1) {
		out->len = start;
		return -1;
	}
	return 0;
}

/* The uncompressed block: count, then each name and value. */
static void
plain_block(struct rai_buf *b, const char *const nv[])
{
	unsigned char n4[4];
	size_t i, count = 0;

	for (i = 0; nv[i] != NULL && nv[i + 1] != NULL; i += 2)
		count++;
	put32(n4, (uint32_t)count);
	rai_buf_add(b, n4, 4);
	for (i = 0; i < 2 * count; i++) {
		put32(n4, (uint32_t)strlen(nv[i]));
		rai_buf_add(b, n4, 4);
		rai_buf_addstr(b, nv[i]);
	}
}

int
kube_spdy_syn_stream(struct kube_spdy *sp, struct rai_buf *out, uint32_t id,
    unsigned flags, const char *const nv[], struct rai_err *err)
{
	struct rai_buf plain = RAI_BUF_INIT;
	unsigned char h[KUBE_SPDY_HEAD + 10];
	size_t start = out->len;
	int rc;

	plain_block(&plain, nv);
	memset(h, 0, sizeof(h));
	put32(h + KUBE_SPDY_HEAD, id & 0x7fffffff);
	/* associated stream 0, priority 0, slot 0 */
	rc = rai_buf_add(out, h, sizeof(h)) == -1 ? rai_err_set(err,
	    RAI_E_INTERNAL, "a SPDY frame does not fit the send buffer") :
	    deflate_block(sp, out, (unsigned char *)plain.data, plain.len,
	    err);
	rai_buf_release(&plain);
	if (rc == -1) {
		out->len = start;
		return -1;
	}
	control_head((unsigned char *)out->data + start, KUBE_SPDY_SYN_STREAM,
	    flags, out->len - start - KUBE_SPDY_HEAD);
	return 0;
}

/* A control frame whose payload is two 32-bit words. */
static int
add_two_words(struct rai_buf *out, int type, uint32_t first, uint32_t second)
{
	unsigned char p[8];

	put32(p, first);
	put32(p + 4, second);
	return add_control(out, type, p, sizeof(p));
}

int
kube_spdy_rst_stream(struct rai_buf *out, uint32_t id, uint32_t status)
{
	return add_two_words(out, KUBE_SPDY_RST_STREAM, id & 0x7fffffff, status);
}

int
kube_spdy_ping(struct rai_buf *out, uint32_t id)
{
	unsigned char p[4];

	put32(p, id);
	return add_control(out, KUBE_SPDY_PING, p, sizeof(p));
}

int
kube_spdy_goaway(struct rai_buf *out, uint32_t last_id, uint32_t status)
{
	return add_two_words(out, KUBE_SPDY_GOAWAY, last_id & 0x7fffffff,
	    status);
}
