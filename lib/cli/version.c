/*
 * "PROG version": the suite's version and what it was built with. The
 * first line, "Version: X.Y.Z", is a stable contract for scripts.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/utsname.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <libssh2.h>
#include <openssl/crypto.h>
#include <yaml.h>

#include "cli/opt.h"
#include "cli/version.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif
#ifndef RAI_GIT_COMMIT
#define RAI_GIT_COMMIT ""
#endif

const struct rai_opt rai_version_opts[] = {
	{ .long_name = "short", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rai_version_opts, short_only),
	  .help = "print only the version line" },
	RAI_OPT_END
};

static int
cmd_version(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct rai_version_opts *o = opts;

	rai_version_print(ctx->out, o->short_only);
	return 0;
}

void
rai_version_print(FILE *out, int short_only)
{
	struct utsname u;

	fprintf(out, "Version: %s\n", RAI_VERSION);
	if (short_only)
		return;
	fprintf(out, "GitCommit: %s\n",
	    RAI_GIT_COMMIT[0] ? RAI_GIT_COMMIT : "unknown");
#ifdef __VERSION__
	fprintf(out, "Compiler: %s\n", __VERSION__);
#endif
	fprintf(out, "libcurl: %s\n",
	    curl_version_info(CURLVERSION_NOW)->version);
	fprintf(out, "OpenSSL: %s\n", OpenSSL_version(OPENSSL_VERSION));
	fprintf(out, "libssh2: %s\n", libssh2_version(0));
	fprintf(out, "cJSON: %s\n", cJSON_Version());
	fprintf(out, "libyaml: %s\n", yaml_get_version_string());
	if (uname(&u) == 0)
		fprintf(out, "Platform: %s/%s\n", u.sysname, u.machine);
}

static const struct rai_example version_examples[] = {
	{ "runai version --short", "print only \"Version: X.Y.Z\"" },
	{ NULL, NULL }
};

const struct rai_cmd rai_cmd_version = {
	.name = "version",
	.summary = "print the version",
	.synopsis = "[--short]",
	.description = "Prints the version, then the build's commit, compiler, "
	    "library versions and platform. The first line is always "
	    "\"Version: X.Y.Z\".",
	.examples = version_examples,
	.opts = rai_version_opts,
	.opts_size = sizeof(struct rai_version_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_version,
};
