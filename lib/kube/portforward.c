/*
 * Port forwarding's pure parts: "[LOCAL:]REMOTE" as kubectl reads it,
 * the portforward subresource's path, and the channel framing of one
 * port (kube_pf_demux). No sockets: those and the bytes that move
 * through them are pf_loop.c's and pf_conn.c's, which build on this
 * file; it calls neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/client.h"
#include "kube/portforward.h"
#include "kube/ws.h"

#include "core/banned.h"

/* ---- pure parts ---- */

static int
parse_port(const char *s, size_t len, int zero_ok, unsigned *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 5)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > 65535 || (v == 0 && !zero_ok))
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
kube_pf_parse_spec(const char *spec, unsigned *local, unsigned *remote,
    struct rai_err *err)
{
	const char *colon = strchr(spec, ':');
	unsigned l = 0, r;

	if (colon == NULL) {
		if (parse_port(spec, strlen(spec), 0, &r) == -1)
			goto bad;
		l = r;
	} else {
		if (colon != spec && parse_port(spec, (size_t)(colon - spec), 1,
		    &l) == -1)
			goto bad;
		if (parse_port(colon + 1, strlen(colon + 1), 0, &r) == -1)
			goto bad;
	}
	*local = l;
	*remote = r;
	return 0;
bad:
	return rai_err_set(err, RAI_E_USAGE, "invalid port '%s': want "
	    "[LOCAL:]REMOTE with ports 1-65535 (an empty LOCAL picks a free "
	    "one)", spec);
}

char *
kube_pf_path(const char *ns, const char *pod, unsigned port)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base, num[8];

	base = kube_path(&KUBE_RES_PODS, ns, pod, "portforward");
	rai_buf_addstr(&b, base);
	free(base);
	snprintf(num, sizeof(num), "%u", port);
	kube_path_query(&b, "ports", num);
	return rai_buf_detach(&b, NULL);
}

void
kube_pf_demux_init(struct kube_pf_demux *d, unsigned port,
    kube_pf_data_fn *fn, void *ud)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->cur = -1;
	d->fn = fn;
	d->ud = ud;
	rai_buf_init(&d->error, KUBE_PF_ERROR_MAX + 1);
}

/* Takes the channel's port bytes from the front of a message's data. */
static int
eat_prefix(struct kube_pf_demux *d, const char **data, size_t *len,
    struct rai_err *err)
{
	unsigned *have = &d->prefix_len[d->cur];
	unsigned port;

	while (*have < 2 && *len > 0) {
		d->prefix[d->cur][(*have)++] = (unsigned char)**data;
		(*data)++;
		(*len)--;
	}
	if (*have < 2)
		return 0;
	port = d->prefix[d->cur][0] | (unsigned)d->prefix[d->cur][1] << 8;
	if (port != d->port)
		return rai_err_set(err, RAI_E_PROTO, "the server named port "
		    "%u on channel %d of a stream for port %u", port, d->cur,
		    d->port);
	return 0;
}

int
kube_pf_demux_on_data(void *demux, int opcode, const char *data, size_t len,
    unsigned flags, struct rai_err *err)
{
	struct kube_pf_demux *d = demux;
	size_t room;

	if (opcode != KUBE_WS_BINARY)
		return rai_err_set(err, RAI_E_PROTO, "the server sent a text "
		    "message on a binary port-forward stream");
	if (flags & KUBE_WS_FIRST)
		d->cur = -1;
	if (d->cur == -1 && len > 0) {
		d->cur = (unsigned char)data[0];
		data++;
		len--;
		if (d->cur > 1)
			return rai_err_set(err, RAI_E_PROTO, "the server sent "
			    "data on channel %d of a one-port stream", d->cur);
	}
	if (d->cur >= 0 && d->prefix_len[d->cur] < 2 &&
	    eat_prefix(d, &data, &len, err) == -1)
		return -1;
	if (d->cur == 0 && len > 0)
		return d->fn(d->ud, data, len, err);
	if (d->cur == 1 && len > 0) {
		room = KUBE_PF_ERROR_MAX - d->error.len;
		rai_buf_add(&d->error, data, len < room ? len : room);
	}
	return 0;
}

const char *
kube_pf_demux_error(const struct kube_pf_demux *d)
{
	return d->error.len > 0 ? rai_buf_str(&d->error) : "";
}

void
kube_pf_demux_release(struct kube_pf_demux *d)
{
	rai_buf_release(&d->error);
}
