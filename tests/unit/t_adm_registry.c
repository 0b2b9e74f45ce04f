/*
 * adm_registry and the pure helpers of adm_push: registry addresses,
 * references and --map rules, WWW-Authenticate, token answers, docker
 * config.json credentials, the deterministic gzip stream, upload URLs.
 */
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

	T_INT_EQ(adm_realm_check("https://auth.example/token", "reg:5000", 0,
	    &err), 0);
	T_INT_EQ(adm_realm_check("HTTPS://auth.example/token", "reg:5000", 0,
	    &err), 0);
	/* an https registry sending the password to plain http elsewhere */
	T_INT_EQ(adm_realm_check("http://127.0.0.1:9/token", "reg:5000", 0,
	    &err), -1);
	T_INT_EQ(err.kind, RAI_E_AUTH);
	T_STR_CONTAINS(err.message, "is https but sends its token realm to "
	    "plain http");
	T_NULL(strchr(err.message, '\n'));
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("HTTP://auth.example/token", "reg:5000", 0,
	    &err), -1);
	rai_err_release(&err);
	/* the user chose plain http for the registry: its realm may be too */
	T_INT_EQ(adm_realm_check("http://127.0.0.1:9/token", "reg:5000", 1,
	    &err), 0);
	T_INT_EQ(adm_realm_check("https://auth.example/token", "reg:5000", 1,
	    &err), 0);
	/* not a URL, another scheme, user info */
	T_INT_EQ(adm_realm_check("auth.example/token", "reg:5000", 1, &err),
	    -1);
	T_STR_CONTAINS(err.message, "without an http(s) realm");
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("ftp://auth.example/", "reg:5000", 1, &err),
	    -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check("https://u:p@auth.example/", "reg:5000", 0,
	    &err), -1);
	rai_err_release(&err);
	T_INT_EQ(adm_realm_check(NULL, "reg:5000", 0, &err), -1);
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

/* ---- deterministic gzip ---- */

/* gzip of size bytes of fd at off, read in pieces of step bytes */
static char *
gz_all(int fd, uint64_t off, uint64_t size, size_t step, size_t *len,
    char in_digest[72])
{
	struct adm_gz_reader *r = adm_gz_reader_new(fd, off, size);
	struct rai_err err = RAI_ERR_INIT;
	size_t cap = 1 << 16, n = 0;
	char *out = xmalloc(cap);
	ssize_t got;

	for (;;) {
		if (cap - n < step) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		got = adm_gz_read(r, out + n, step, &err);
		T_OK(got >= 0);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	adm_gz_input_digest(r, in_digest);
	adm_gz_reader_free(r);
	rai_err_release(&err);
	*len = n;
	return out;
}

TEST(gzip_deterministic)
{
	char path[] = "/tmp/t_adm_registry.XXXXXX";
	char d1[ADM_DIGEST_MAX], d2[ADM_DIGEST_MAX], in1[72], in2[72];
	char want_in[ADM_DIGEST_MAX];
	size_t n = 3u << 20, l1, l2, i;
	unsigned char *data = xmalloc(n), *back = xmalloc(n);
	char *g1, *g2;
	uLongf backlen = (uLongf)n;
	z_stream z;
	int fd = mkstemp(path);

	T_OK(fd != -1);
	for (i = 0; i < n; i++)	/* compressible, but not trivially */
		data[i] = (unsigned char)((i * 2654435761u) >> 13 & 0x3f);
	T_INT_EQ(write(fd, "xx", 2), 2);
	T_INT_EQ(write(fd, data, n), (long long)n);
	g1 = gz_all(fd, 2, n, 4096, &l1, in1);
	g2 = gz_all(fd, 2, n, 1 << 20, &l2, in2);
	/* same input, any read sizes: the same bytes */
	T_UINT_EQ(l1, l2);
	T_OK(l1 > 18 && l1 < n);
	T_OK(memcmp(g1, g2, l1) == 0);
	adm_sha256_mem(g1, l1, d1);
	adm_sha256_mem(g2, l2, d2);
	T_STR_EQ(d1, d2);
	/* the fixed header: magic, deflate, no flags, mtime 0, XFL 4, OS 255 */
	T_MEM_EQ(g1, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff", 10);
	adm_sha256_mem(data, n, want_in);
	T_STR_EQ(in1, want_in);
	/* it is real gzip: zlib inflates it back */
	memset(&z, 0, sizeof(z));
	T_INT_EQ(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (unsigned char *)g1;
	z.avail_in = (uInt)l1;
	z.next_out = back;
	z.avail_out = (uInt)backlen;
	T_INT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
	T_UINT_EQ(z.total_out, n);
	inflateEnd(&z);
	T_OK(memcmp(back, data, n) == 0);
	free(g1);
	free(g2);
	/* empty input: a valid empty member */
	g1 = gz_all(fd, 0, 0, 7, &l1, in1);
	T_UINT_EQ(l1, 20);
	T_STR_EQ(in1, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934"
	    "ca495991b7852b855");
	free(g1);
	close(fd);
	unlink(path);
	free(data);
	free(back);
}

TEST(gzip_short_file)
{
	char path[] = "/tmp/t_adm_registry.XXXXXX";
	struct rai_err err = RAI_ERR_INIT;
	struct adm_gz_reader *r;
	char buf[4096];
	ssize_t got;
	int fd = mkstemp(path);

	T_INT_EQ(write(fd, "abc", 3), 3);
	r = adm_gz_reader_new(fd, 0, 10);
	while ((got = adm_gz_read(r, buf, sizeof(buf), &err)) > 0)
		;
	T_INT_EQ(got, -1);
	T_STR_CONTAINS(err.message, "7 bytes short");
	adm_gz_reader_free(r);
	rai_err_release(&err);
	close(fd);
	unlink(path);
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
	RUN(token_answers);
	RUN(docker_config_lookup);
	RUN(docker_config_malformed);
	RUN(gzip_deterministic);
	RUN(gzip_short_file);
	RUN(upload_urls);
	return t_done();
}
