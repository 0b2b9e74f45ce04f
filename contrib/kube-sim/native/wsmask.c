/*
 * The WebSocket mask (RFC 6455 section 5.3) in C, for kube-sim: every
 * byte a client sends through exec, attach or port-forward is XOR'ed
 * with a 4-byte key, and in Python that cost the emulator more CPU than
 * anything else it does for the bytes (0.10 s per 100 MiB, against the
 * 0.25 s it spent in all relaying them). kubesim/wsproto.py loads this
 * through ctypes when it has been built (make builds it beside the
 * module) and keeps its pure-Python translate passes otherwise.
 *
 * Built with plain flags whatever the project's build: it is loaded into
 * Debian's python3, which carries no sanitizer runtime.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void kubesim_mask(unsigned char *out, const unsigned char *in, size_t n,
		  const unsigned char *key);

/*
 * out[i] = in[i] ^ key[i % 4] for i < n. out and in may be the same
 * buffer. Eight bytes a step through memcpy, which the compiler turns
 * into plain loads and stores (and vectorises).
 */
void
kubesim_mask(unsigned char *out, const unsigned char *in, size_t n,
	     const unsigned char *key)
{
	unsigned char key8[8];
	uint64_t k, w;
	size_t i;

	for (i = 0; i < sizeof(key8); i++)
		key8[i] = key[i % 4];
	memcpy(&k, key8, sizeof(k));
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, in + i, sizeof(w));
		w ^= k;
		memcpy(out + i, &w, sizeof(w));
	}
	for (; i < n; i++)
		out[i] = in[i] ^ key[i % 4];
}
