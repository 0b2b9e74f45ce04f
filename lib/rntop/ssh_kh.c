/*
 * known_hosts for the SSH engine (ssh.c has the map): each file read
 * whole or not at all (over KNOWN_HOSTS_MAX or unreadable: the host
 * fails, since the part not read may hold an @revoked line), the key
 * types to ask the server for, @revoked and @cert-authority lines,
 * the server's key checked through libssh2_knownhost, and accept-new's
 * line appended. Apart from the session because it is file reading and
 * policy; it ends a host only through ssh_host.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/err.h"
#include "core/file.h"
#include "rntop/hosts.h"
#include "rntop/ssh_host.h"
#include "rntop/ssh_kh.h"

#include "core/banned.h"

#define KNOWN_HOSTS_MAX	((size_t)16 << 20)

/*
 * Reads one known_hosts file whole into *data (NULL for a missing file:
 * no entries, as ssh has it). A file that cannot be read, or one over
 * KNOWN_HOSTS_MAX, is an error with *why: the key must never be checked
 * against part of a file, whose rest may hold the @revoked line.
 */
static int
read_known_hosts(const char *path, char **data, size_t *len, char **why)
{
	struct rai_err err = RAI_ERR_INIT;

	*data = NULL;
	*len = 0;
	if (rai_file_read(path, KNOWN_HOSTS_MAX, data, len, &err) == 0)
		return 0;
	if (err.sys_errno == ENOENT || err.sys_errno == ENOTDIR) {
		rai_err_release(&err);
		return 0;
	}
	if (err.sys_errno == EFBIG)
		*why = xasprintf("known_hosts file '%s' is larger than %zu MiB; "
		    "refusing to check host keys against part of it", path,
		    KNOWN_HOSTS_MAX >> 20);
	else
		*why = xasprintf("cannot read known_hosts file '%s': %s", path,
		    strerror(err.sys_errno));
	rai_err_release(&err);
	return -1;
}

static void
add_method(struct kh_scan *sc, const char *m)
{
	size_t n = strlen(sc->methods);

	if (strstr(sc->methods, m) != NULL ||
	    n + strlen(m) + 2 > sizeof(sc->methods))
		return;
	snprintf(sc->methods + n, sizeof(sc->methods) - n, "%s%s",
	    n ? "," : "", m);
}

/*
 * Feeds one file's lines to libssh2 (plain entries), and notes the key
 * types for this host and whether the server's key is @revoked.
 */
static int
load_known_hosts(struct host *h, LIBSSH2_KNOWNHOSTS *kh, const char *path,
    const char *key, size_t keylen, struct kh_scan *sc, char **why)
{
	struct rntop_kh_line kl;
	const char *p, *end, *nl, *m;
	unsigned char *raw;
	size_t rawlen, len;
	char *data;

	if (read_known_hosts(path, &data, &len, why) == -1)
		return -1;
	p = data != NULL ? data : "";
	end = p + len;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		rntop_kh_split(p, (size_t)(nl - p), &kl);
		if (kl.kind == RNTOP_KH_SKIP)
			continue;
		if (kl.kind == RNTOP_KH_CA) {
			sc->ca_lines++;
			continue;
		}
		if (!rntop_kh_hosts_match(kl.hosts, kl.hosts_len, h->hostname,
		    h->port))
			continue;
		if (kl.kind == RNTOP_KH_REVOKED) {
			if (key != NULL && (raw = rai_base64_decode(kl.key,
			    kl.key_len, RAI_B64_PAD_OPTIONAL, &rawlen)) != NULL) {
				if (rawlen == keylen &&
				    memcmp(raw, key, keylen) == 0)
					sc->revoked = 1;
				free(raw);
			}
			continue;
		}
		if ((m = rntop_hostkey_methods(kl.keytype, kl.keytype_len)))
			add_method(sc, m);
		if (kh != NULL) {
			/* libssh2 reads past the length: give it a string */
			char *line = xstrndup(kl.entry, kl.entry_len);

			/* a line libssh2 cannot read is skipped, as ssh does */
			(void)libssh2_knownhost_readline(kh, line,
			    kl.entry_len, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
			free(line);
		}
	}
	free(data);
	return 0;
}

/* Every known_hosts file, the user's then the global ones; -1 with *why. */
int
rntop_ssh_scan_all(struct host *h, LIBSSH2_KNOWNHOSTS *kh, const char *key,
    size_t keylen, struct kh_scan *sc, char **why)
{
	size_t i;

	memset(sc, 0, sizeof(*sc));
	for (i = 0; i < h->nkh; i++)
		if (load_known_hosts(h, kh, h->kh[i], key, keylen, sc,
		    why) == -1)
			return -1;
	for (i = 0; i < h->ngkh; i++)
		if (load_known_hosts(h, kh, h->gkh[i], key, keylen, sc,
		    why) == -1)
			return -1;
	return 0;
}

static const char *
keytype_name(int type, int *kbit)
{
	switch (type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		*kbit = LIBSSH2_KNOWNHOST_KEY_SSHRSA;
		return "ssh-rsa";
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		*kbit = LIBSSH2_KNOWNHOST_KEY_SSHDSS;
		return "ssh-dss";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
		return "ecdsa-sha2-nistp256";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
		return "ecdsa-sha2-nistp384";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
		return "ecdsa-sha2-nistp521";
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ED25519;
		return "ssh-ed25519";
	}
	*kbit = LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
	return "unknown";
}

/* Makes the directory of path (one level, 0700) when it is missing. */
static void
make_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	free(dir);
}

/* accept-new: appends "name keytype base64" to the first user file. */
static int
learn_key(struct host *h, const char *keytype, const char *key,
    size_t keylen)
{
	char *b64, *line;
	ssize_t w;
	int fd;

	if (h->nkh == 0)
		return -1;
	make_parent(h->kh[0]);
	fd = open(h->kh[0], O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		return -1;
	b64 = rai_base64_encode(key, keylen);
	line = xasprintf("%s %s %s\n", h->kh_name, keytype, b64);
	w = write(fd, line, strlen(line));
	free(b64);
	close(fd);
	w = w == (ssize_t)strlen(line) ? 0 : -1;
	free(line);
	return (int)w;
}

/* Checks the server's host key; 0 when the host may be used. */
int
rntop_ssh_check_hostkey(struct host *h)
{
	LIBSSH2_KNOWNHOSTS *kh;
	const unsigned char *hash;
	const char *key, *tname;
	struct kh_scan sc;
	size_t keylen = 0;
	char *why = NULL;
	int type = 0, kbit, rc;

	key = libssh2_session_hostkey(h->s, &keylen, &type);
	hash = (const unsigned char *)libssh2_hostkey_hash(h->s,
	    LIBSSH2_HOSTKEY_HASH_SHA256);
	if (key == NULL || hash == NULL) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1,
		    xasprintf("%s: no host key from the server", h->kh_name));
		return -1;
	}
	rntop_fp_sha256(hash, h->fp, sizeof(h->fp));
	tname = keytype_name(type, &kbit);
	if ((kh = libssh2_knownhost_init(h->s)) == NULL) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 0,
		    xstrdup("cannot check known hosts: out of memory"));
		return -1;
	}
	if (rntop_ssh_scan_all(h, kh, key, keylen, &sc, &why) == -1) {
		libssh2_knownhost_free(kh);
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1, why);
		return -1;
	}
	if (sc.revoked) {
		libssh2_knownhost_free(kh);
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1,
		    xasprintf("host key for %s is "
		    "REVOKED in known_hosts: %s %s", h->kh_name, tname, h->fp));
		return -1;
	}
	rc = libssh2_knownhost_checkp(kh, h->kh_name, -1, key, keylen,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kbit,
	    NULL);
	libssh2_knownhost_free(kh);
	free(h->warning);
	h->warning = NULL;
	h->key = RNTOP_KEY_KNOWN;
	if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH)
		return 0;
	/*
	 * Not checking is the user's choice; a key that changed is still
	 * news (a reinstall, or someone in the middle): said as OpenSSH
	 * says it, never in the words of a host with no entry.
	 */
	if (h->strict == RNTOP_SHK_NO &&
	    rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
		h->key = RNTOP_KEY_CHANGED;
		h->warning = xasprintf("REMOTE HOST IDENTIFICATION HAS CHANGED "
		    "for %s: the server offers %s %s, known_hosts has another "
		    "key (used anyway: --strict-host-key-checking no)",
		    h->kh_name, tname, h->fp);
		return 0;
	}
	if (h->strict == RNTOP_SHK_NO) {
		h->key = RNTOP_KEY_UNCHECKED;
		h->warning = xasprintf("host key for %s not checked (%s %s)",
		    h->kh_name, tname, h->fp);
		return 0;
	}
	if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1,
		    xasprintf("HOST KEY MISMATCH "
		    "for %s: the server offers %s %s, known_hosts has "
		    "another key (refused)", h->kh_name, tname, h->fp));
		return -1;
	}
	if (rc == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND &&
	    h->strict == RNTOP_SHK_ACCEPT_NEW) {
		if (learn_key(h, tname, key, keylen) == 0) {
			h->key = RNTOP_KEY_LEARNT;
			h->warning = xasprintf("learnt host key for %s: %s %s",
			    h->kh_name, tname, h->fp);
			return 0;
		}
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1,
		    xasprintf("cannot add the host key for %s to %s: %s",
		    h->kh_name, h->nkh ? h->kh[0] : "known_hosts",
		    strerror(errno)));
		return -1;
	}
	rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1,
	    xasprintf("host key for %s is not "
	    "known: %s %s (add it to known_hosts, or use "
	    "--strict-host-key-checking accept-new)", h->kh_name, tname,
	    h->fp));
	return -1;
}
