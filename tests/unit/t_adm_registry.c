/*
 * adm_registry and the pure helpers of adm_push: registry addresses,
 * references and --map rules, WWW-Authenticate, token answers, docker
 * config.json credentials, the deterministic block gzip, upload URLs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "adm/push.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"
#include "harness.h"

/* ---- --registry ---- */

TEST(reg_addr)
{
	struct adm_reg_addr a;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_reg_addr_parse("reg.local:5000", &a, &err), 0);
	T_STR_EQ(a.host, "reg.local:5000");
	T_STR_EQ(a.path, "");
	adm_reg_addr_release(&a);
	T_INT_EQ(adm_reg_addr_parse("127.0.0.1:5000/run-ai/prod/", &a, &err),
	    0);
	T_STR_EQ(a.host, "127.0.0.1:5000");
	T_STR_EQ(a.path, "run-ai/prod");
	adm_reg_addr_release(&a);
	T_INT_EQ(adm_reg_addr_parse("https://reg", &a, &err), -1);
	T_STR_CONTAINS(err.message, "has a scheme");
	T_INT_EQ(adm_reg_addr_parse("/x", &a, &err), -1);
	T_INT_EQ(adm_reg_addr_parse("reg/UPPER", &a, &err), -1);
	T_INT_EQ(adm_reg_addr_parse("re g", &a, &err), -1);
	T_INT_EQ(adm_reg_addr_parse("", &a, &err), -1);
	rai_err_release(&err);
}

/* ---- references and --map ---- */

TEST(repo_and_tag_syntax)
{
	T_INT_EQ(adm_repo_valid("run-ai/one"), 1);
	T_INT_EQ(adm_repo_valid("a.b/c__d/e--f"), 1);
	T_INT_EQ(adm_repo_valid("a/"), 0);
	T_INT_EQ(adm_repo_valid("A"), 0);
	T_INT_EQ(adm_repo_valid("a..b"), 0);
	T_INT_EQ(adm_repo_valid("-a"), 0);
	T_INT_EQ(adm_repo_valid("a___b"), 0);
	T_INT_EQ(adm_tag_valid("1.0"), 1);
	T_INT_EQ(adm_tag_valid("_x-Y.z"), 1);
	T_INT_EQ(adm_tag_valid(".x"), 0);
	T_INT_EQ(adm_tag_valid(""), 0);
}

TEST(ref_normalisation)
{
	struct adm_ref r;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_ref_parse("busybox", &r, &err), 0);
	T_STR_EQ(r.domain, "docker.io");
	T_STR_EQ(r.repo, "library/busybox");
	T_STR_EQ(r.tag, "latest");
	adm_ref_release(&r);
	T_INT_EQ(adm_ref_parse("gcr.io/run-ai-prod/x:2.9", &r, &err), 0);
	T_STR_EQ(r.domain, "gcr.io");
	T_STR_EQ(r.repo, "run-ai-prod/x");
	T_STR_EQ(r.tag, "2.9");
	adm_ref_release(&r);
	T_INT_EQ(adm_ref_parse("localhost:5000/a/b@sha256:abc", &r, &err), 0);
	T_STR_EQ(r.domain, "localhost:5000");
	T_STR_EQ(r.repo, "a/b");
	T_NULL(r.tag);
	T_STR_EQ(r.digest, "sha256:abc");
	adm_ref_release(&r);
	T_INT_EQ(adm_ref_parse("localhost/a:1", &r, &err), 0);
	T_STR_EQ(r.domain, "localhost");
	adm_ref_release(&r);
	T_INT_EQ(adm_ref_parse("team/app", &r, &err), 0);
	T_STR_EQ(r.domain, "docker.io");
	T_STR_EQ(r.repo, "team/app");
	adm_ref_release(&r);
	T_INT_EQ(adm_ref_parse("Bad/Name:1", &r, &err), -1);
	T_STR_CONTAINS(err.message, "invalid image reference 'Bad/Name:1'");
	T_INT_EQ(adm_ref_parse("", &r, &err), -1);
	rai_err_release(&err);
}

static void
check_map(const char *const *rules, size_t n, const char *reg_path,
    const char *ref, const char *want_repo, const char *want_tag)
{
	struct adm_map_rule *v = xcalloc(n + 1, sizeof(*v));
	struct rai_err err = RAI_ERR_INIT;
	char *repo = NULL, *tag = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		T_INT_EQ(adm_map_rule_parse(rules[i], &v[i], &err), 0);
	if (want_repo == NULL) {
		T_INT_EQ(adm_map_target(v, n, reg_path, ref, &repo, &tag, &err),
		    -1);
	} else {
		T_INT_EQ(adm_map_target(v, n, reg_path, ref, &repo, &tag, &err),
		    0);
		T_STR_EQ(repo, want_repo);
		T_STR_EQ(tag, want_tag);
	}
	free(repo);
	free(tag);
	for (i = 0; i < n; i++)
		adm_map_rule_release(&v[i]);
	free(v);
	rai_err_release(&err);
}

TEST(map_default_and_rules)
{
	static const char *const strip[] = { "gcr.io/run-ai-prod/=>" };
	static const char *const two[] = {
		"gcr.io/run-ai-prod/special:1=>other/sp:v1",
		"gcr.io/=>mirror/",
	};
	static const char *const hub[] = { "docker.io/library/=>hub/" };
	static const char *const bad[] = { "gcr.io/=>UP/" };

	/* default: the domain goes, path and tag stay */
	check_map(NULL, 0, "", "gcr.io/run-ai-prod/researcher:2.9",
	    "run-ai-prod/researcher", "2.9");
	check_map(NULL, 0, "runai", "gcr.io/run-ai-prod/researcher:2.9",
	    "runai/run-ai-prod/researcher", "2.9");
	check_map(NULL, 0, "", "busybox", "library/busybox", "latest");
	check_map(strip, 1, "runai", "gcr.io/run-ai-prod/x:1", "runai/x",
	    "1");
	/* first match wins; exact references may rename the tag */
	check_map(two, 2, "", "gcr.io/run-ai-prod/special:1", "other/sp",
	    "v1");
	check_map(two, 2, "", "gcr.io/run-ai-prod/plain:3",
	    "mirror/run-ai-prod/plain", "3");
	/* rules see the normalised form too */
	check_map(hub, 1, "", "busybox:1.36", "hub/busybox", "1.36");
	check_map(bad, 1, "", "gcr.io/x:1", NULL, NULL);
	check_map(NULL, 0, "", "gcr.io/x@sha256:abc", NULL, NULL);
}

TEST(map_rule_syntax)
{
	struct adm_map_rule r;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_map_rule_parse("a=>b=>c", &r, &err), 0);
	T_STR_EQ(r.src, "a");
	T_STR_EQ(r.dst, "b=>c");
	adm_map_rule_release(&r);
	T_INT_EQ(adm_map_rule_parse("=>b", &r, &err), -1);
	T_INT_EQ(adm_map_rule_parse("a=b", &r, &err), -1);
	T_STR_CONTAINS(err.message, "expected SRC=>DST");
	rai_err_release(&err);
}

/* ---- WWW-Authenticate ---- */

TEST(www_auth_bearer)
{
	struct adm_challenge *c;
	struct rai_err err = RAI_ERR_INIT;
	size_t n;

	T_INT_EQ(adm_www_auth_parse("Bearer realm=\"https://auth.example/"
	    "token\",service=\"registry.example\",scope=\"repository:a/b:"
	    "pull,push\"", &c, &n, &err), 0);
	T_UINT_EQ(n, 1);
	T_STR_EQ(c[0].scheme, "bearer");
	T_STR_EQ(adm_challenge_param(&c[0], "realm"),
	    "https://auth.example/token");
	T_STR_EQ(adm_challenge_param(&c[0], "SERVICE"), "registry.example");
	T_STR_EQ(adm_challenge_param(&c[0], "scope"),
	    "repository:a/b:pull,push");
	T_NULL(adm_challenge_param(&c[0], "error"));
	adm_challenges_free(c, n);
}

TEST(www_auth_several_and_quoting)
{
	struct adm_challenge *c;
	struct rai_err err = RAI_ERR_INIT;
	size_t n;

	T_INT_EQ(adm_www_auth_parse("Newauth realm=\"apps\", type=1, "
	    "title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"", &c, &n,
	    &err), 0);
	T_UINT_EQ(n, 2);
	T_STR_EQ(c[0].scheme, "newauth");
	T_STR_EQ(adm_challenge_param(&c[0], "type"), "1");
	T_STR_EQ(adm_challenge_param(&c[0], "title"), "Login to \"apps\"");
	T_STR_EQ(c[1].scheme, "basic");
	T_STR_EQ(adm_challenge_param(&c[1], "realm"), "simple");
	T_NOT_NULL(adm_challenge_find(c, n, "Basic"));
	T_NULL(adm_challenge_find(c, n, "bearer"));
	adm_challenges_free(c, n);
	/* a bare scheme, a token68 */
	T_INT_EQ(adm_www_auth_parse("Negotiate, Foo abc==", &c, &n, &err), 0);
	T_UINT_EQ(n, 2);
	T_STR_EQ(c[1].scheme, "foo");
	T_STR_EQ(adm_challenge_param(&c[1], ""), "abc==");
	adm_challenges_free(c, n);
	T_INT_EQ(adm_www_auth_parse("", &c, &n, &err), 0);
	T_UINT_EQ(n, 0);
	adm_challenges_free(c, n);
}

TEST(www_auth_malformed)
{
	static const char *const bad[] = {
		"Bearer realm=\"unterminated",
		"Bearer realm=x=y",
		"=x",
		"Bearer realm=\"a\" junk",
		"Basic realm=\"a\"\"",
	};
	struct adm_challenge *c;
	struct rai_err err = RAI_ERR_INIT;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_INT_EQ(adm_www_auth_parse(bad[i], &c, &n, &err), -1);
		T_NULL(c);
	}
	T_STR_EQ(err.message, "malformed WWW-Authenticate header");
	/* too many parameters, token68 ones included (found by fuzzing) */
	{
		char many[512] = "Neg ";
		size_t k, len = 4;

		for (k = 0; k <= ADM_AUTH_PARAM_MAX; k++)
			len += (size_t)snprintf(many + len, sizeof(many) - len,
			    "a== ,");
		T_INT_EQ(adm_www_auth_parse(many, &c, &n, &err), -1);
	}
	rai_err_release(&err);
}

/* ---- tokens ---- */

TEST(realm_downgrade_refused)
{
	struct rai_err err = RAI_ERR_INIT;

	/* the registry's own origin, any case, its port as written or not */
	T_INT_EQ(adm_realm_check("https://reg:5000/token", "reg:5000", 0, NULL,
	    &err), 0);
	T_INT_EQ(adm_realm_check("HTTPS://REG:5000/token", "reg:5000", 0, NULL,
	    &err), 0);
	T_INT_EQ(adm_realm_check("https://reg/token", "reg:443", 0, NULL, &err),
	    0);
	/* an https registry sending the password to plain http elsewhere */
	T_INT_EQ(adm_realm_check("http://127.0.0.1:9/token", "reg:5000", 0,
	    "http://127.0.0.1:9", &err), -1);
	T_INT_EQ(err.kind, RAI_E_AUTH);
	T_STR_CONTAINS(err.message, "is https but sends its token realm to "
	    "plain http");
	T_NULL(strchr(err.message, '\n'));
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("HTTP://auth.example/token", "reg:5000", 0,
	    NULL, &err), -1);
	rai_err_release(&err);
	/* the user chose plain http for the registry: its realm may be too */
	T_INT_EQ(adm_realm_check("http://reg:5000/token", "reg:5000", 1, NULL,
	    &err), 0);
	/* not a URL, another scheme, user info */
	T_INT_EQ(adm_realm_check("auth.example/token", "reg:5000", 1, NULL,
	    &err), -1);
	T_STR_CONTAINS(err.message, "without an http(s) realm");
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("ftp://auth.example/", "reg:5000", 1, NULL,
	    &err), -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("https://u:p@auth.example/", "reg:5000", 0,
	    NULL, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check(NULL, "reg:5000", 0, NULL, &err), -1);
	rai_err_release(&err);
}

/* Another origin has the credentials only when the user names it. */
TEST(realm_of_another_origin_needs_the_users_word)
{
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_realm_check("https://auth.example/token", "reg:5000", 0,
	    NULL, &err), -1);
	T_INT_EQ(err.kind, RAI_E_AUTH);
	T_STR_CONTAINS(err.message, "sends its token realm to another origin");
	T_STR_CONTAINS(err.hint, "--allow-token-realm");
	rai_err_release(&err);
	/* the same host on another port is another origin */
	T_INT_EQ(adm_realm_check("https://reg:5001/token", "reg:5000", 0, NULL,
	    &err), -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("https://auth.example/token", "reg:5000", 0,
	    "https://auth.example", &err), 0);
	T_INT_EQ(adm_realm_check("https://auth.example:443/v2/token",
	    "reg:5000", 0, "HTTPS://Auth.Example/", &err), 0);
	/* allowing one origin allows no other */
	T_INT_EQ(adm_realm_check("https://evil.example/token", "reg:5000", 0,
	    "https://auth.example", &err), -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("http://auth.example/token", "reg:5000", 1,
	    "https://auth.example", &err), -1);
	rai_err_release(&err);
}

TEST(token_answers)
{
	struct rai_err err = RAI_ERR_INIT;
	char *tok;
	long exp;
	const char *a = "{\"token\":\"t1\",\"expires_in\":300}";
	const char *b = "{\"access_token\":\"t2\"}";
	const char *c = "{\"token\":\"\",\"access_token\":\"t3\","
	    "\"expires_in\":-5}";

	T_INT_EQ(adm_token_parse(a, strlen(a), &tok, &exp, &err), 0);
	T_STR_EQ(tok, "t1");
	T_INT_EQ(exp, 300);
	rai_free_secret(tok);
	T_INT_EQ(adm_token_parse(b, strlen(b), &tok, &exp, &err), 0);
	T_STR_EQ(tok, "t2");
	T_INT_EQ(exp, 60);
	rai_free_secret(tok);
	T_INT_EQ(adm_token_parse(c, strlen(c), &tok, &exp, &err), 0);
	T_STR_EQ(tok, "t3");
	T_INT_EQ(exp, 60);
	rai_free_secret(tok);
	T_INT_EQ(adm_token_parse("{}", 2, &tok, &exp, &err), -1);
	T_STR_CONTAINS(err.message, "has no token");
	T_INT_EQ(adm_token_parse("[", 1, &tok, &exp, &err), -1);
	rai_err_release(&err);
}

/* ---- docker config.json ---- */

static int
lookup(const char *json, const char *host, char **u, char **p)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc = adm_docker_auth_lookup(json, strlen(json), host, u, p, &err);

	rai_err_release(&err);
	return rc;
}

TEST(docker_config_lookup)
{
	/* "tester:testpw", "a:b:c" (a colon in the password) */
	const char *cfg = "{\"auths\":{"
	    "\"reg:5000\":{\"auth\":\"dGVzdGVyOnRlc3Rwdw==\"},"
	    "\"https://hub.example/v1/\":{\"auth\":\"YTpiOmM=\"},"
	    "\"pod.example\":{\"username\":\"u\",\"password\":\"p\"},"
	    "\"empty.example\":{}},\"credsStore\":\"x\"}";
	char *u, *p;

	T_INT_EQ(lookup(cfg, "reg:5000", &u, &p), 1);
	T_STR_EQ(u, "tester");
	T_STR_EQ(p, "testpw");
	rai_free_secret(u);
	rai_free_secret(p);
	T_INT_EQ(lookup(cfg, "hub.example", &u, &p), 1);
	T_STR_EQ(u, "a");
	T_STR_EQ(p, "b:c");
	rai_free_secret(u);
	rai_free_secret(p);
	T_INT_EQ(lookup(cfg, "pod.example", &u, &p), 1);
	T_STR_EQ(u, "u");
	rai_free_secret(u);
	rai_free_secret(p);
	T_INT_EQ(lookup(cfg, "reg", &u, &p), 0);
	T_NULL(u);
	T_INT_EQ(lookup(cfg, "empty.example", &u, &p), 0);
	T_INT_EQ(lookup(cfg, "hub.example:443", &u, &p), 0);
	T_INT_EQ(lookup("{}", "reg", &u, &p), 0);
}

TEST(docker_config_malformed)
{
	char *u, *p;

	T_INT_EQ(lookup("{\"auths\":", "reg", &u, &p), -1);
	T_INT_EQ(lookup("[]", "reg", &u, &p), -1);
	T_INT_EQ(lookup("{\"auths\":[]}", "reg", &u, &p), -1);
	/* not base64, no colon, a NUL inside */
	T_INT_EQ(lookup("{\"auths\":{\"reg\":{\"auth\":\"%%%%\"}}}", "reg", &u,
	    &p), -1);
	T_INT_EQ(lookup("{\"auths\":{\"reg\":{\"auth\":\"bm9jb2xvbg==\"}}}",
	    "reg", &u, &p), -1);
	T_INT_EQ(lookup("{\"auths\":{\"reg\":{\"auth\":\"YQBiOmM=\"}}}", "reg",
	    &u, &p), -1);
	T_NULL(u);
	T_NULL(p);
	/*
	 * A password without a user name is an error, not a login as "";
	 * both empty are no credentials. (Found by fuzz_docker_config: the
	 * entry's key held NUL bytes, which end it as a C string.)
	 */
	T_INT_EQ(lookup("{\"auths\":{\"reg\":{\"username\":\"\","
	    "\"password\":\"p\"}}}", "reg", &u, &p), -1);
	T_NULL(u);
	T_NULL(p);
	T_INT_EQ(lookup("{\"auths\":{\"https://hub.example/v1/e\\u0000\\u0000\":"
	    "{\"username\":\"\",\"password\":\"p\"}}}", "hub.example", &u, &p),
	    -1);
	T_NULL(u);
	T_INT_EQ(lookup("{\"auths\":{\"reg\":{\"username\":\"\","
	    "\"password\":\"\"}}}", "reg", &u, &p), 0);
	T_NULL(u);
}

/* ---- deterministic block gzip ---- */

static void
fill_text(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	/* compressible, but not trivially */
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)('a' + (((i + seed) * 2654435761u) >> 13 &
		    0x1f));
}

static void
fill_random(unsigned char *p, size_t n, unsigned seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ seed;
	size_t i;

	for (i = 0; i < n; i++) {	/* xorshift: incompressible */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 32);
	}
}

static int
tmp_file(const void *data, size_t n)
{
	char path[] = "/tmp/t_adm_registry.XXXXXX";
	int fd = mkstemp(path);

	T_OK(fd != -1);
	unlink(path);
	T_INT_EQ(write(fd, data, n), (long long)n);
	return fd;
}

static unsigned char *
file_bytes(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	unsigned char *b = xmalloc((size_t)end + 1);

	T_INT_EQ(pread(fd, b, (size_t)end, 0), (long long)end);
	*len = (size_t)end;
	return b;
}

/* gzip of size bytes of fd at off on threads threads, in memory */
static unsigned char *
gz_run(int fd, uint64_t off, uint64_t size, int threads, size_t *len,
    char digest[ADM_DIGEST_MAX], char in_digest[ADM_DIGEST_MAX])
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_gz_job j;
	unsigned char *b;
	int out = tmp_file("", 0);
	char want[ADM_DIGEST_MAX];

	memset(&j, 0, sizeof(j));
	j.fd = fd;
	j.offset = off;
	j.size = size;
	j.out_fd = out;
	j.what = "t";
	T_INT_EQ(adm_gz_run(&j, 1, threads, &err), 0);
	T_NULL(err.message);
	b = file_bytes(out, len);
	T_UINT_EQ(j.gz_size, *len);
	adm_sha256_mem(b, *len, want);
	T_STR_EQ(j.digest, want);
	memcpy(digest, j.digest, ADM_DIGEST_MAX);
	memcpy(in_digest, j.in_digest, ADM_DIGEST_MAX);
	close(out);
	return b;
}

/* zlib inflates gz back to exactly data[0..n) */
static void
inflates_to(const unsigned char *gz, size_t len, const unsigned char *data,
    size_t n)
{
	unsigned char *back = xmalloc(n + 1);
	z_stream z;

	memset(&z, 0, sizeof(z));
	T_INT_EQ(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)gz;
	z.avail_in = (uInt)len;
	z.next_out = back;
	z.avail_out = (uInt)n + 1;
	T_INT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
	T_UINT_EQ(z.total_out, n);
	T_UINT_EQ(z.avail_in, 0);	/* one member, nothing after it */
	inflateEnd(&z);
	T_OK(n == 0 || memcmp(back, data, n) == 0);
	free(back);
}

/*
 * The format rebuilt from its parts: header, each block with the 32 KiB
 * before it as dictionary, the trailer with the crc32 of all.
 */
static unsigned char *
gz_by_hand(const unsigned char *data, size_t n, size_t *len)
{
	struct adm_gz_deflater *d = adm_gz_deflater_new();
	size_t cap = ADM_GZ_HEADER_LEN + ADM_GZ_TRAILER_LEN +
	    (n / ADM_GZ_BLOCK + 1) * adm_gz_block_bound(ADM_GZ_BLOCK);
	unsigned char *out = xmalloc(cap);
	size_t o = ADM_GZ_HEADER_LEN, at, bl, dl, got;
	int stored;

	adm_gz_header(out);
	for (at = 0; at < n; at += bl) {
		bl = n - at < ADM_GZ_BLOCK ? n - at : ADM_GZ_BLOCK;
		dl = at < ADM_GZ_DICT ? at : ADM_GZ_DICT;
		got = adm_gz_deflate_block(d, data + at - dl, dl, data + at, bl,
		    out + o, adm_gz_block_bound(bl), &stored);
		T_OK(got > 0);
		o += got;
	}
	adm_gz_trailer((uint32_t)crc32(0L, data, (uInt)n), n, out + o);
	*len = o + ADM_GZ_TRAILER_LEN;
	adm_gz_deflater_free(d);
	return out;
}

TEST(gzip_same_bytes_on_any_thread_count)
{
	/* text, then random, then text again: deflated and stored blocks */
	size_t n = (3u << 20) + 12345, l1, ln, lh, i;
	unsigned char *data = xmalloc(n + 2), *g1, *gn, *gh;
	char d1[ADM_DIGEST_MAX], dn[ADM_DIGEST_MAX], in[ADM_DIGEST_MAX];
	char want_in[ADM_DIGEST_MAX];
	static const int threads[] = { 2, 3, 8, 17 };
	int fd;

	data[0] = 'x';
	data[1] = 'x';
	fill_text(data + 2, n / 3, 1);
	fill_random(data + 2 + n / 3, n / 3, 2);
	fill_text(data + 2 + 2 * (n / 3), n - 2 * (n / 3), 3);
	fd = tmp_file(data, n + 2);
	g1 = gz_run(fd, 2, n, 1, &l1, d1, in);
	adm_sha256_mem(data + 2, n, want_in);
	T_STR_EQ(in, want_in);
	T_OK(l1 > 18 && l1 < n);
	/* the fixed header: magic, deflate, no flags, mtime 0, XFL 4, OS 255 */
	T_MEM_EQ(g1, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff", 10);
	inflates_to(g1, l1, data + 2, n);
	/* the format, piece by piece, gives the same bytes */
	gh = gz_by_hand(data + 2, n, &lh);
	T_UINT_EQ(lh, l1);
	T_OK(memcmp(gh, g1, l1) == 0);
	free(gh);
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		gn = gz_run(fd, 2, n, threads[i], &ln, dn, in);
		T_UINT_EQ(ln, l1);
		T_OK(memcmp(gn, g1, l1) == 0);
		T_STR_EQ(dn, d1);
		T_STR_EQ(in, want_in);
		free(gn);
	}
	free(g1);
	close(fd);
	free(data);
}

TEST(gzip_empty_and_tiny)
{
	unsigned char one = 'a', *g;
	char d[ADM_DIGEST_MAX], in[ADM_DIGEST_MAX];
	size_t l;
	int fd = tmp_file(&one, 1);

	/* empty: the same 20 bytes as gzip -n of nothing, OS 255 aside */
	g = gz_run(fd, 0, 0, 4, &l, d, in);
	T_UINT_EQ(l, 20);
	T_MEM_EQ(g + 10, "\x03\x00\0\0\0\0\0\0\0\0", 10);
	T_STR_EQ(in, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934"
	    "ca495991b7852b855");
	inflates_to(g, l, NULL, 0);
	free(g);
	g = gz_run(fd, 0, 1, 4, &l, d, in);
	inflates_to(g, l, &one, 1);
	free(g);
	close(fd);
}

TEST(gzip_block_kinds)
{
	struct adm_gz_deflater *d = adm_gz_deflater_new();
	size_t n = ADM_GZ_BLOCK, cap = adm_gz_block_bound(n), got, with, i;
	unsigned char *data = xmalloc(2 * n), *out = xmalloc(cap);
	int stored;

	/* already compressed data is stored: 5 bytes per 65535 and a copy */
	fill_random(data, n, 7);
	got = adm_gz_deflate_block(d, NULL, 0, data, n, out, cap, &stored);
	T_INT_EQ(stored, 1);
	T_UINT_EQ(got, n + 5 * ((n + 65534) / 65535));
	T_MEM_EQ(out, "\x00\xff\xff\x00\x00", 5);
	T_OK(memcmp(out + 5, data, 65535) == 0);
	/* text is deflated, and ends with the sync flush marker */
	fill_text(data, n, 1);
	got = adm_gz_deflate_block(d, NULL, 0, data, n, out, cap, &stored);
	T_INT_EQ(stored, 0);
	T_OK(got < n / 2);
	T_MEM_EQ(out + got - 4, "\x00\x00\xff\xff", 4);
	/*
	 * the dictionary is used: a block that repeats the last 16 KiB
	 * before it (zlib reaches back 32 KiB less 262 bytes) is a few
	 * back-references with it; without it, random letters of a
	 * 16-letter alphabet only lose half their bits
	 */
	fill_random(data, ADM_GZ_DICT, 9);
	for (i = 0; i < ADM_GZ_DICT; i++)
		data[i] = (unsigned char)('a' + (data[i] & 0xf));
	memcpy(data + ADM_GZ_DICT, data + ADM_GZ_DICT / 2, ADM_GZ_DICT / 2);
	with = adm_gz_deflate_block(d, data, ADM_GZ_DICT, data + ADM_GZ_DICT,
	    ADM_GZ_DICT / 2, out, cap, &stored);
	T_INT_EQ(stored, 0);
	got = adm_gz_deflate_block(d, NULL, 0, data + ADM_GZ_DICT,
	    ADM_GZ_DICT / 2, out, cap, &stored);
	T_INT_EQ(stored, 0);
	T_OK(with < 1024);
	T_OK(got > ADM_GZ_DICT / 6);
	free(data);
	free(out);
	adm_gz_deflater_free(d);
}

/*
 * A spooled copy read back through its pieces is the gzip byte for byte,
 * at any offset and length, though its stored blocks never reached the
 * spool.
 */
TEST(gzip_pieces_read_back)
{
	struct rai_err err = RAI_ERR_INIT;
	size_t text = 300000, rnd = 2 * ADM_GZ_BLOCK + 2 * 65535 + 3;
	size_t n = text + rnd + 5, ref_len, i, k;
	size_t lens[] = { 1, 4, 5, 6, 65535, 65540, 65541, (size_t)1 << 20 };
	unsigned char *data = xmalloc(n), *ref, *got;
	char d[ADM_DIGEST_MAX], in[ADM_DIGEST_MAX];
	struct adm_gz_pieces ps = { 0 };
	struct adm_gz_job j;
	uint64_t off, stored = 0, in_stored = 0;
	int fd, spool = tmp_file("", 0);

	fill_text(data, text, 3);
	fill_random(data + text, rnd, 4);
	memset(data + text + rnd, 'z', 5);
	fd = tmp_file(data, n);
	ref = gz_run(fd, 0, n, 1, &ref_len, d, in);
	memset(&j, 0, sizeof(j));
	j.fd = fd;
	j.size = n;
	j.out_fd = spool;
	j.pieces = &ps;
	j.what = "t";
	T_INT_EQ(adm_gz_run(&j, 1, 2, &err), 0);
	T_STR_EQ(j.digest, d);
	T_UINT_EQ(j.gz_size, ref_len);
	for (i = 0; i < ps.n; i++)
		if (ps.v[i].stored) {
			stored += ps.v[i].len;
			in_stored += ps.v[i].in_len;
		}
	/*
	 * blocks 0 and 1 begin with text and deflate; 2 and 3 (random, and
	 * the tail) are stored, not spooled
	 */
	T_UINT_EQ(in_stored, n - 2 * ADM_GZ_BLOCK);
	T_UINT_EQ(ps.spooled + stored, ref_len);
	T_UINT_EQ((uint64_t)lseek(spool, 0, SEEK_END), ps.spooled);
	got = xmalloc(ref_len + 16);
	T_INT_EQ(adm_gz_pieces_pread(&ps, spool, fd, got, ref_len + 16, 0),
	    (long long)ref_len);
	T_OK(memcmp(got, ref, ref_len) == 0);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		for (off = 0; off < ref_len; off += lens[k] * 7 + 1) {
			size_t want = ref_len - off < lens[k] ?
			    (size_t)(ref_len - off) : lens[k];

			T_INT_EQ(adm_gz_pieces_pread(&ps, spool, fd, got,
			    lens[k], off), (long long)want);
			T_OK(memcmp(got, ref + off, want) == 0);
		}
	T_INT_EQ(adm_gz_pieces_pread(&ps, spool, fd, got, 10, ref_len), 0);
	adm_gz_pieces_release(&ps);
	free(got);
	free(ref);
	free(data);
	close(spool);
	close(fd);
}

TEST(gzip_several_jobs)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_gz_job j[3];
	size_t sizes[3] = { (1u << 20) + 7, 0, 300000 }, i, l;
	unsigned char *data = xmalloc(sizes[0]), *g;
	char d[ADM_DIGEST_MAX], in[ADM_DIGEST_MAX];
	int fd;

	fill_text(data, sizes[0], 11);
	fd = tmp_file(data, sizes[0]);
	memset(j, 0, sizeof(j));
	for (i = 0; i < 3; i++) {
		j[i].fd = fd;
		j[i].offset = i;
		j[i].size = sizes[i];
		j[i].out_fd = -1;	/* digest only */
		j[i].what = "t";
	}
	T_INT_EQ(adm_gz_run(j, 3, 2, &err), 0);
	for (i = 0; i < 3; i++) {
		g = gz_run(fd, i, sizes[i], 1, &l, d, in);
		T_STR_EQ(j[i].digest, d);
		T_STR_EQ(j[i].in_digest, in);
		T_UINT_EQ(j[i].gz_size, l);
		T_INT_EQ(j[i].failed, 0);
		free(g);
	}
	close(fd);
	free(data);
}

TEST(gzip_short_file)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_gz_job j[2];
	int fd = tmp_file("abc", 3);

	memset(j, 0, sizeof(j));
	j[0].fd = j[1].fd = fd;
	j[0].size = 3;
	j[1].size = 10;
	j[0].out_fd = j[1].out_fd = -1;
	j[0].what = j[1].what = "t";
	T_INT_EQ(adm_gz_run(j, 2, 3, &err), -1);
	T_STR_CONTAINS(err.message, "7 bytes short");
	T_INT_EQ(j[1].failed, 1);
	rai_err_release(&err);
	close(fd);
}

/* ---- upload URLs ---- */

TEST(upload_urls)
{
	char *s;

	s = adm_push_resolve_location("http://h:1", "/v2/a/blobs/uploads/u?"
	    "_state=x");
	T_STR_EQ(s, "http://h:1/v2/a/blobs/uploads/u?_state=x");
	free(s);
	s = adm_push_resolve_location("http://h:1", "https://o/up");
	T_STR_EQ(s, "https://o/up");
	free(s);
	s = adm_push_digest_url("http://h/u?_state=x", "sha256:ab");
	T_STR_EQ(s, "http://h/u?_state=x&digest=sha256:ab");
	free(s);
	s = adm_push_digest_url("http://h/u", "sha256:ab");
	T_STR_EQ(s, "http://h/u?digest=sha256:ab");
	free(s);
}

int
main(void)
{
	RUN(reg_addr);
	RUN(repo_and_tag_syntax);
	RUN(ref_normalisation);
	RUN(map_default_and_rules);
	RUN(map_rule_syntax);
	RUN(www_auth_bearer);
	RUN(www_auth_several_and_quoting);
	RUN(www_auth_malformed);
	RUN(realm_downgrade_refused);
	RUN(realm_of_another_origin_needs_the_users_word);
	RUN(token_answers);
	RUN(docker_config_lookup);
	RUN(docker_config_malformed);
	RUN(gzip_same_bytes_on_any_thread_count);
	RUN(gzip_empty_and_tiny);
	RUN(gzip_block_kinds);
	RUN(gzip_pieces_read_back);
	RUN(gzip_several_jobs);
	RUN(gzip_short_file);
	RUN(upload_urls);
	return t_done();
}
