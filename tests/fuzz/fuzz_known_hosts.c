/*
 * libFuzzer target for what rntop reads from outside about hosts:
 * known_hosts lines (split, host patterns with '*', '?', '!', ports and
 * hashed names, key base64), hostfiles and "ssh -G" output. Besides the
 * sanitizers' checks: every field a split hands out lies inside its
 * line, a decoded key encodes back to the same bytes, and a hostfile
 * that parses gives only names rntop would pass to ssh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "core/err.h"
#include "rntop/hosts.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
within(const char *line, size_t len, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (p < line || p + n > line + len)
		abort();
}

static void
check_line(const char *line, size_t len)
{
	static const char *const names[] = { "gpu1", "127.0.0.1",
		"a.example.com", "" };
	struct rntop_kh_line kl;
	unsigned char *raw;
	size_t rawlen, i;
	char *again;

	rntop_kh_split(line, len, &kl);
	if (kl.kind == RNTOP_KH_SKIP)
		return;
	within(line, len, kl.hosts, kl.hosts_len);
	within(line, len, kl.keytype, kl.keytype_len);
	within(line, len, kl.key, kl.key_len);
	within(line, len, kl.entry, kl.entry_len);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		(void)rntop_kh_hosts_match(kl.hosts, kl.hosts_len, names[i], 22);
		(void)rntop_kh_hosts_match(kl.hosts, kl.hosts_len, names[i],
		    2222);
	}
	(void)rntop_hostkey_methods(kl.keytype, kl.keytype_len);
	raw = rai_base64_decode(kl.key, kl.key_len, RAI_B64_PAD_OPTIONAL,
	    &rawlen);
	if (raw != NULL) {
		unsigned char *back;
		size_t backlen;

		again = rai_base64_encode(raw, rawlen);
		back = rai_base64_decode(again, strlen(again),
		    RAI_B64_PAD_OPTIONAL, &backlen);
		if (back == NULL || backlen != rawlen ||
		    memcmp(back, raw, rawlen) != 0)
			abort();
		free(back);
		free(again);
		free(raw);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	const char *nl;
	struct rntop_targets ts = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct rntop_sshg g;
	size_t i;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		check_line(p, (size_t)(nl - p));
	}
	if (rntop_hostfile_parse(text, size, "fuzz", &ts, &err) == 0) {
		for (i = 0; i < ts.n; i++)
			if (ts.v[i].host[0] == '-' || ts.v[i].host[0] == '\0' ||
			    ts.v[i].port < 0 || ts.v[i].port > 65535)
				abort();
	}
	rntop_targets_release(&ts);
	rai_err_release(&err);
	rntop_sshg_parse(text, size, "/home/f", &g);
	if (g.port < 0 || g.port > 65535)
		abort();
	rntop_sshg_release(&g);
	return 0;
}
