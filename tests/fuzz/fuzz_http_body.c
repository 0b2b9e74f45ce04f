/*
 * libFuzzer target for what an API server sends back: the input after
 * its first byte is
 *   - an error answer's body through rai_err_from_http (a Kubernetes
 *     Status, or any other body, as JSON or text/plain by the first
 *     byte's bit 7), which must always give a message;
 *   - a List through kube_items and a watch or log stream through
 *     kube_lines, each fed whole and again in chunks whose sizes the
 *     first byte chooses: both runs must hand out the same pieces and
 *     end the same way; the List again with object items parsed where
 *     they lie (kube_items_parse), which must hand out the same items,
 *     each cJSON's tree of its text, and end as the text path does.
 *
 *	input[0]	bits 0-5: chunk size - 1; bit 6: 5xx (else 4xx);
 *			bit 7: Content-Type text/plain (else JSON)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/http_err.h"
#include "kube/stream.h"

#include "../unit/json_tree.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_PIECE	4096

struct tally {
	uint64_t	hash;
	unsigned long	n;
};

static void
tally_add(struct tally *t, const char *key, const char *p, size_t len)
{
	size_t i;

	t->hash = (t->hash ^ (key != NULL ? (unsigned char)key[0] : 0xff)) *
	    1099511628211ull;
	for (i = 0; i < len; i++)
		t->hash = (t->hash ^ (unsigned char)p[i]) * 1099511628211ull;
	t->hash = (t->hash ^ 0x100) * 1099511628211ull;
	t->n++;
}

static int
on_item(void *ud, const char *key, const char *json, size_t len,
    struct rai_err *err)
{
	tally_add(ud, key, json, len);
	return 0;
}

static int
on_line(void *ud, const char *line, size_t len)
{
	tally_add(ud, NULL, line, len);
	return 0;
}

/*
 * An item that came parsed (kube_items_parse): tallied as its text, as
 * the text path would hand it out, once the tree is known to be the one
 * cJSON makes of that text.
 */
static int
on_tree(void *ud, cJSON *tree, const char *json, size_t len,
    struct rai_err *err)
{
	cJSON *want = cJSON_ParseWithLength(json, len);

	if (want == NULL || *tree_diff(tree, want) != '\0')
		abort();
	cJSON_Delete(want);
	cJSON_Delete(tree);
	return on_item(ud, NULL, json, len, err);
}

/*
 * Feeds in pieces of chunk bytes (0 = all at once), object items as
 * trees where they lie whole if trees; the end result.
 */
static int
run_items(const char *data, size_t len, size_t chunk, int trees,
    struct tally *t)
{
	struct kube_items it;
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	kube_items_init(&it, MAX_PIECE, on_item, t);
	if (trees)
		kube_items_parse(&it, on_tree);
	while (rc == 0 && off < len) {
		n = chunk == 0 || chunk > len - off ? len - off : chunk;
		rc = kube_items_feed(&it, data + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = kube_items_finish(&it, &err);
	if (rc == -1 && (err.message == NULL || err.message[0] == '\0'))
		abort();
	rai_err_release(&err);
	kube_items_release(&it);
	return rc;
}

static int
run_lines(const char *data, size_t len, size_t chunk, struct tally *t)
{
	struct kube_lines kl;
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	kube_lines_init(&kl, MAX_PIECE, on_line, t);
	while (rc == 0 && off < len) {
		n = chunk == 0 || chunk > len - off ? len - off : chunk;
		rc = kube_lines_feed(&kl, data + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = kube_lines_finish(&kl, &err);
	rai_err_release(&err);
	kube_lines_release(&kl);
	return rc;
}

static void
check_error_body(const char *body, size_t len, unsigned ctl)
{
	struct rai_err err = RAI_ERR_INIT;
	long status = (ctl & 0x40) ? 503 : 404;
	const char *ctype = (ctl & 0x80) ? "text/plain" : "application/json";

	if (rai_err_from_http(&err, status, ctype, body, len, 0) != -1)
		abort();
	if (err.message == NULL || err.message[0] == '\0')
		abort();
	rai_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally whole, chunked, text = { 0, 0 };
	const char *body = (const char *)data + 1;
	size_t len, chunk;
	int a, b, trees, text_rc = 0;

	if (size < 1)
		return 0;
	len = size - 1;
	chunk = (size_t)(data[0] & 0x3f) + 1;
	check_error_body(body, len, data[0]);

	for (trees = 0; trees < 2; trees++) {
		a = run_items(body, len, 0, trees, &whole);
		b = run_items(body, len, chunk, trees, &chunked);
		if (a != b || (a == 0 && (whole.n != chunked.n ||
		    whole.hash != chunked.hash)))
			abort();
		if (trees && (a != text_rc || (a == 0 &&
		    (whole.n != text.n || whole.hash != text.hash))))
			abort();	/* trees hand out what text does */
		text = whole;
		text_rc = a;
	}

	a = run_lines(body, len, 0, &whole);
	b = run_lines(body, len, chunk, &chunked);
	if (a != b || (a == 0 && (whole.n != chunked.n ||
	    whole.hash != chunked.hash)))
		abort();
	return 0;
}
