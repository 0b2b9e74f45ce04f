/*
 * rntop_hosts: host specs, hostfiles, ssh -G output, known_hosts lines
 * and host patterns (hashed too), fingerprints, the remote
 * command and backoff bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "rntop/hosts.h"

#include "harness.h"

static struct rntop_target
parse_ok(const char *spec)
{
	struct rntop_target t;
	struct rai_err err = RAI_ERR_INIT;

	memset(&t, 0, sizeof(t));
	T_INT_EQ(rntop_target_parse(spec, &t, &err), 0);
	rai_err_release(&err);
	return t;
}

/* The error message for a bad spec ("" when it parsed). */
static char *
parse_bad(const char *spec)
{
	struct rntop_target t;
	struct rai_err err = RAI_ERR_INIT;
	char *msg;

	if (rntop_target_parse(spec, &t, &err) == 0) {
		rntop_target_release(&t);
		return strdup("");
	}
	msg = strdup(err.message ? err.message : "?");
	rai_err_release(&err);
	return msg;
}

TEST(target_forms)
{
	struct rntop_target t;
	char *m;

	t = parse_ok("gpu1");
	T_STR_EQ(t.host, "gpu1");
	T_NULL(t.user);
	T_INT_EQ(t.port, 0);
	rntop_target_release(&t);
	t = parse_ok("alice@gpu-1.example.com:2222");
	T_STR_EQ(t.user, "alice");
	T_STR_EQ(t.host, "gpu-1.example.com");
	T_INT_EQ(t.port, 2222);
	T_STR_EQ(t.spec, "alice@gpu-1.example.com:2222");
	rntop_target_release(&t);
	t = parse_ok("root@[fe80::1]:22");
	T_STR_EQ(t.host, "fe80::1");
	T_INT_EQ(t.port, 22);
	rntop_target_release(&t);
	t = parse_ok("[::1]");
	T_STR_EQ(t.host, "::1");
	T_INT_EQ(t.port, 0);
	rntop_target_release(&t);
	m = parse_bad("-oProxyCommand=x");
	T_STR_EQ(m, "bad host name '-oProxyCommand=x': expected "
	    "[user@]host[:port]");
	free(m);
	m = parse_bad("h:0");
	T_STR_EQ(m, "bad port in host 'h:0': expected 1 to 65535");
	free(m);
	m = parse_bad("h:65536");
	T_STR_CONTAINS(m, "bad port");
	free(m);
	m = parse_bad("h:22x");
	T_STR_CONTAINS(m, "bad port");
	free(m);
	m = parse_bad("a b@h");
	T_STR_EQ(m, "bad user name in host 'a b@h'");
	free(m);
	m = parse_bad("h;reboot");
	T_STR_CONTAINS(m, "bad host name");
	free(m);
	m = parse_bad("[::1");
	T_STR_CONTAINS(m, "bad host name");
	free(m);
	m = parse_bad("");
	T_STR_EQ(m, "empty host name");
	free(m);
	m = parse_bad("@h");
	T_STR_CONTAINS(m, "bad user name");
	free(m);
}

TEST(hostfile_lines)
{
	const char *text = "# fleet\n"
	    "gpu1\n"
	    "\n"
	    "   bob@gpu2:2200   rack=3 # comment\n"
	    "gpu3# trailing comment\r\n"
	    "\t[::1]:2022";
	struct rntop_targets ts = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rntop_hostfile_parse(text, strlen(text), "hosts", &ts, &err),
	    0);
	T_UINT_EQ(ts.n, 4);
	T_STR_EQ(ts.v[0].host, "gpu1");
	T_STR_EQ(ts.v[1].user, "bob");
	T_INT_EQ(ts.v[1].port, 2200);
	T_STR_EQ(ts.v[2].host, "gpu3");
	T_STR_EQ(ts.v[3].host, "::1");
	T_INT_EQ(ts.v[3].port, 2022);
	rntop_targets_release(&ts);
}

TEST(hostfile_bad_line_names_it)
{
	const char *text = "gpu1\n\ngpu2:abc\n";
	struct rntop_targets ts = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rntop_hostfile_parse(text, strlen(text), "hosts", &ts, &err),
	    -1);
	T_STR_EQ(err.message, "hosts:3: bad port in host 'gpu2:abc': "
	    "expected 1 to 65535");
	rai_err_release(&err);
	rntop_targets_release(&ts);
	/* a NUL byte inside a line is not a name */
	T_INT_EQ(rntop_hostfile_parse("gp\0u\n", 5, "h", &ts, &err), -1);
	rai_err_release(&err);
	rntop_targets_release(&ts);
	T_INT_EQ(rntop_hostfile_parse("", 0, "h", &ts, &err), 0);
	T_UINT_EQ(ts.n, 0);
}

TEST(sshg_output)
{
	const char *out = "host gpu-a\n"
	    "user alice\n"
	    "hostname 10.0.0.7\n"
	    "port 2222\n"
	    "identityfile ~/.ssh/id_rsa\n"
	    "identityfile /keys/ops\n"
	    "userknownhostsfile ~/.ssh/known_hosts ~/.ssh/known_hosts2\n"
	    "globalknownhostsfile /etc/ssh/ssh_known_hosts\n"
	    "stricthostkeychecking accept-new\n"
	    "connecttimeout 7\n"
	    "serveraliveinterval 15\n"
	    "proxyjump bastion\n"
	    "identitiesonly yes\n"
	    "port\n"
	    "weird keyword with words\n";
	struct rntop_sshg g;

	rntop_sshg_parse(out, strlen(out), "/home/a", &g);
	T_STR_EQ(g.hostname, "10.0.0.7");
	T_STR_EQ(g.user, "alice");
	T_INT_EQ(g.port, 2222);
	T_UINT_EQ(g.nidentity, 2);
	T_STR_EQ(g.identity[0], "/home/a/.ssh/id_rsa");
	T_STR_EQ(g.identity[1], "/keys/ops");
	T_UINT_EQ(g.nknown_hosts, 2);
	T_STR_EQ(g.known_hosts[1], "/home/a/.ssh/known_hosts2");
	T_UINT_EQ(g.nglobal_known_hosts, 1);
	T_INT_EQ(g.strict, RNTOP_SHK_ACCEPT_NEW);
	T_INT_EQ(g.connect_timeout, 7);
	T_INT_EQ(g.server_alive_interval, 15);
	T_INT_EQ(g.proxy, 1);
	T_INT_EQ(g.identities_only, 1);
	rntop_sshg_release(&g);
	rntop_sshg_parse("port 99999\nstricthostkeychecking ask\n"
	    "proxycommand none\n", 55, NULL, &g);
	T_INT_EQ(g.port, 0);
	T_INT_EQ(g.strict, RNTOP_SHK_YES);
	T_INT_EQ(g.proxy, 0);
	T_NULL(g.hostname);
	rntop_sshg_release(&g);
}

TEST(shk_words)
{
	T_INT_EQ(rntop_shk_parse("yes"), RNTOP_SHK_YES);
	T_INT_EQ(rntop_shk_parse("accept-new"), RNTOP_SHK_ACCEPT_NEW);
	T_INT_EQ(rntop_shk_parse("no"), RNTOP_SHK_NO);
	T_INT_EQ(rntop_shk_parse("false"), RNTOP_SHK_NO);
	T_INT_EQ(rntop_shk_parse("maybe"), RNTOP_SHK_UNSET);
}

TEST(known_hosts_split)
{
	struct rntop_kh_line kl;
	const char *l;

	l = "gpu1,10.0.0.1 ssh-ed25519 AAAAC3Nz comment here\n";
	rntop_kh_split(l, strlen(l), &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_PLAIN);
	T_MEM_EQ(kl.hosts, "gpu1,10.0.0.1", kl.hosts_len);
	T_UINT_EQ(kl.hosts_len, 13);
	T_MEM_EQ(kl.keytype, "ssh-ed25519", 11);
	T_UINT_EQ(kl.key_len, 8);
	T_UINT_EQ(kl.entry_len, strlen(l) - 1);
	l = "@revoked * ssh-rsa AAAAB3";
	rntop_kh_split(l, strlen(l), &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_REVOKED);
	T_MEM_EQ(kl.hosts, "*", 1);
	T_MEM_EQ(kl.keytype, "ssh-rsa", 7);
	l = "@cert-authority *.example.com ssh-ed25519 AAAA";
	rntop_kh_split(l, strlen(l), &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_CA);
	l = "   # a comment";
	rntop_kh_split(l, strlen(l), &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_SKIP);
	rntop_kh_split("host ssh-rsa", 12, &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_SKIP);
	rntop_kh_split("@bogus h ssh-rsa AAAA", 21, &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_SKIP);
	rntop_kh_split("", 0, &kl);
	T_INT_EQ(kl.kind, RNTOP_KH_SKIP);
}

TEST(known_hosts_patterns)
{
	const char *p;

	p = "gpu1,10.0.0.1";
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu1", 22), 1);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "10.0.0.1", 22), 1);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu1", 2222), 0);
	p = "[gpu1]:2222";
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu1", 2222), 1);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu1", 22), 0);
	p = "*.example.com,!bad.example.com";
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "a.example.com", 22), 1);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "bad.example.com", 22), 0);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "example.com", 22), 0);
	p = "gpu?";
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu7", 22), 1);
	T_INT_EQ(rntop_kh_hosts_match(p, strlen(p), "gpu17", 22), 0);
	T_INT_EQ(rntop_glob_match("*a*b*c", 6, "xxaxxbxxc"), 1);
	T_INT_EQ(rntop_glob_match("*a*b*c", 6, "xxaxxbxx"), 0);
	T_INT_EQ(rntop_glob_match("", 0, ""), 1);
}

TEST(known_hosts_hashed)
{
	/* ssh-keygen -H of "gpu1" and of "[127.0.0.1]:2222" */
	const char *h1 = "|1|d1a+UB8Usm1zgguIgDSpXCBZ0KI=|"
	    "F7TgSawJcU//r/ES55ItwYPMOZc=";
	const char *h2 = "|1|5fyDbZki/bdd979nTpCTXOgWqhU=|"
	    "f4sMOnNW8sb5ZGNoXE8IRD1Dnlw=";

	T_INT_EQ(rntop_kh_hosts_match(h1, strlen(h1), "gpu1", 22), 1);
	T_INT_EQ(rntop_kh_hosts_match(h1, strlen(h1), "gpu2", 22), 0);
	T_INT_EQ(rntop_kh_hosts_match(h2, strlen(h2), "127.0.0.1", 2222), 1);
	T_INT_EQ(rntop_kh_hosts_match(h2, strlen(h2), "127.0.0.1", 22), 0);
	T_INT_EQ(rntop_kh_hosts_match("|1|bad|bad", 10, "gpu1", 22), 0);
	T_INT_EQ(rntop_kh_hosts_match("|1|", 3, "gpu1", 22), 0);
	T_INT_EQ(rntop_kh_hosts_match("|2|x|y", 6, "gpu1", 22), 0);
}

TEST(hostkey_methods)
{
	T_STR_EQ(rntop_hostkey_methods("ssh-rsa", 7),
	    "rsa-sha2-512,rsa-sha2-256,ssh-rsa");
	T_STR_EQ(rntop_hostkey_methods("ssh-ed25519", 11), "ssh-ed25519");
	T_NULL(rntop_hostkey_methods("ssh-ed2551", 10));
}

TEST(fingerprint)
{
	unsigned char digest[32];
	char fp[64];
	int i;

	for (i = 0; i < 32; i++)
		digest[i] = (unsigned char)i;
	rntop_fp_sha256(digest, fp, sizeof(fp));
	/* OpenSSH style: "SHA256:" and base64 without '=' */
	T_STR_EQ(fp, "SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
}

TEST(remote_command)
{
	char *c;

	T_INT_EQ(rntop_remote_path_ok("nvidia-smi"), 1);
	T_INT_EQ(rntop_remote_path_ok("/usr/local/nvidia/bin/nvidia-smi"), 1);
	T_INT_EQ(rntop_remote_path_ok("/opt/x y"), 0);
	T_INT_EQ(rntop_remote_path_ok("nvidia-smi;reboot"), 0);
	T_INT_EQ(rntop_remote_path_ok("$(reboot)"), 0);
	T_INT_EQ(rntop_remote_path_ok("-x"), 0);
	T_INT_EQ(rntop_remote_path_ok(""), 0);
	c = rntop_remote_command("nvidia-smi", "index,name", 500);
	T_STR_CONTAINS(c, "LC_ALL=C nvidia-smi --query-gpu=index,name "
	    "--format=csv,noheader,nounits -lms 500 </dev/null");
	T_STR_CONTAINS(c, "(read _; kill $p) <&3");
	free(c);
	c = rntop_remote_command("nvidia-smi", "index,name", 0);
	T_OK(strstr(c, "-lms") == NULL);
	free(c);
	T_NULL(rntop_remote_command("a b", "index", 0));
	T_NULL(rntop_remote_command("nvidia-smi", "index;x", 0));
	T_NULL(rntop_remote_command("nvidia-smi", "index", -1));
}

TEST(backoff_bounds)
{
	unsigned a;
	double r, d;

	for (a = 0; a < 40; a++) {
		for (r = 0; r < 1; r += 0.125) {
			double ceiling = 2.0 * (double)(1ull << (a < 20 ? a : 20));

			if (ceiling > 300)
				ceiling = 300;
			d = rntop_backoff(a, 2, 300, r);
			T_OK(d >= 0);
			T_OK(d < ceiling || (ceiling == 0 && d == 0));
			T_DBL_EQ(d, r * ceiling);
		}
	}
	/* out-of-range draws are clamped, never past the cap */
	T_OK(rntop_backoff(50, 2, 300, 7) < 300);
	T_DBL_EQ(rntop_backoff(3, 2, 300, -1), 0);
}

int
main(void)
{
	RUN(target_forms);
	RUN(hostfile_lines);
	RUN(hostfile_bad_line_names_it);
	RUN(sshg_output);
	RUN(shk_words);
	RUN(known_hosts_split);
	RUN(known_hosts_patterns);
	RUN(known_hosts_hashed);
	RUN(hostkey_methods);
	RUN(fingerprint);
	RUN(remote_command);
	RUN(backoff_bounds);
	return t_done();
}
