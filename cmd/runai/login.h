/*
 * What the login commands share. login.c runs the flows of both modes
 * (runai_login); login_cmd.c is "runai login" itself, and the CLI v2
 * forms are its subcommands, each a way to fill the same options:
 * login_user.c (user), login_sso.c (sso, remote-browser),
 * login_access_key.c (access-key) and login_application.c
 * (application, app).
 */
#ifndef RUNAI_LOGIN_H
#define RUNAI_LOGIN_H

#include <stddef.h>

#include "cli/opt.h"

struct runai_login_opts {
	const char	*auth_flow;	/* NULL: the kubeconfig's, else browser */
	const char	*username;
	int		 password_stdin;
	const char	*issuer_url;
	const char	*client_id;
	const char	*redirect_uri;
	const char	*additional_scope;
	const char	*idp_ca;	/* file */
	long		 timeout;	/* seconds */
	int		 no_browser;
	const char	*secret_file;	/* control-plane mode: access key */
	int		 secret_stdin;
	int		 application;
	/* the browser flow's listener: -1 = not given */
	const char	*listen_host;	/* the redirect URI's host */
	long		 listen_port;	/* 0 = any free port */
	/* given on the command line (copied by the parser, wiped in argv) */
	const char	*password;
	const char	*secret;
	/* never ask on the terminal (--interactive disabled, or the setting) */
	int		 no_prompt;
	/* for messages, the flags that give the user name and the password
	   or secret without a terminal: NULL = --username, and
	   --password-stdin or --secret-file or --secret-stdin */
	const char	*user_flag;
	const char	*secret_flag;
};

/* Options with nothing given: no listener port, --timeout's 5 minutes. */
#define RUNAI_LOGIN_OPTS_INIT	{ .listen_port = -1, .timeout = 300 }

/* Logs in as the options say, in the context's mode; 0 or -1 (ctx's err). */
int	runai_login(struct rai_ctx *, const struct runai_login_opts *);
/*
 * Whether a login may ask on the terminal: --interactive as given
 * ("enabled", "disabled"), else the context's setting (runai config set
 * --interactive), else yes.
 */
int	runai_login_may_prompt(struct rai_ctx *, const char *given);

/* access-key and application: the client id and its secret. */
struct runai_login_key_opts {
	const char	*client_id;
	const char	*secret;
	const char	*secret_file;
	int		 save;
	const char	*interactive;
};
/* application: the app_token grant of 2.18 and 2.19, else an access key. */
int	runai_login_key(struct rai_ctx *, const struct runai_login_key_opts *,
	    int application);
extern const char *const runai_enabled_disabled[];

/* Their rows but --client-id, which application also takes as --name. */
#define RUNAI_LOGIN_KEY_OPTS						\
	{ .long_name = "secret", .type = RAI_OPT_STRING,		\
	  .offset = offsetof(struct runai_login_key_opts, secret),	\
	  .argh = "<secret>", .flags = RAI_OPT_SECRET,			\
	  .help = "the secret (wiped from the process's arguments at once; " \
	      "--secret-file or stdin keep it out of them altogether)" }, \
	{ .long_name = "secret-file", .type = RAI_OPT_STRING,		\
	  .offset = offsetof(struct runai_login_key_opts, secret_file),	\
	  .argh = "<file>", .comp = RAI_COMP_FILE,			\
	  .help = "read the secret from the first line of a file" },	\
	{ .long_name = "save", .type = RAI_OPT_BOOL,			\
	  .offset = offsetof(struct runai_login_key_opts, save),	\
	  .help = "accepted: the login is always kept (its tokens, never " \
	      "the secret)" },						\
	{ .long_name = "interactive", .type = RAI_OPT_ENUM,		\
	  .offset = offsetof(struct runai_login_key_opts, interactive), \
	  .argh = "enabled|disabled", .choices = runai_enabled_disabled, \
	  .comp = RAI_COMP_CHOICES,					\
	  .help = "disabled: never ask for the secret on the terminal " \
	      "(default: the context's setting, else enabled)" }

extern const struct rai_cmd runai_cmd_login_user;
extern const struct rai_cmd runai_cmd_login_sso;
extern const struct rai_cmd runai_cmd_login_access_key;
extern const struct rai_cmd runai_cmd_login_application;

#endif
