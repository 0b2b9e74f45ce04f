/*
 * Engine internals: what the files of the command/option engine share
 * (usage.c, man.c, completion.c and run.c build on parse.c). Commands
 * and programs include cli/opt.h only. parse.c owns all of it: the
 * parse state, the table walkers, and the parser that fills the
 * options structs from argv; struct rai_run sits here too, below both
 * of its users (run.c runs commands, completion.c sets one up for the
 * program's dynamic words).
 */
#ifndef RAI_PARSE_H
#define RAI_PARSE_H

#include <stddef.h>

#include "cli/opt.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"

/* One run of a command: the context commands see, plus its error. */
struct rai_run {
	struct rai_ctx	ctx;
	struct rai_err	err;
};

/* An option found in one of the two tables in force. */
struct optref {
	const struct rai_opt	*opt;
	void			*base;		/* globals or command opts */
	unsigned char		*seen;		/* given on the command line */
};

/* Everything one parse owns; released by cli_parse_release(). */
struct parse {
	const struct rai_prog	*prog;
	const struct rai_cmd	*cmd;		/* NULL = the program itself */
	struct rai_buf		 path;		/* "list projects" */
	/*
	 * The command words as typed: another name of a command
	 * ("workspace bash" for "bash", "training tf" for "training
	 * tensorflow") is shown in -h and --help as the user called it.
	 */
	struct rai_buf		 typed;
	struct rai_buf		 named;		/* the same, aliases resolved */
	void			*globals;
	void			*opts;
	unsigned char		*gseen;
	unsigned char		*cseen;
	char			**secrets;	/* RAI_OPT_SECRET copies */
	size_t			 nsecrets;
	char			**pos;		/* positionals (in argv) */
	int			 npos;
	int			 help;		/* 1 = -h, 2 = --help */
	int			 version;	/* --version with no command */
	int			 lenient;	/* __complete: never fail */
	int			 dashdash;	/* npos at "--", -1 = none */
	/*
	 * The word being parsed stands before the command's name: an
	 * option there is the program's (runai -v=8 submit: the log
	 * level, not submit's -v volume).
	 */
	int			 globals_only;
	char			*cmd_note;	/* the deprecated command typed */
	struct rai_strv		 keep;		/* words cmd->rewrite_argv made */
	struct rai_strv		 notes;		/* deprecated options used */
	int			 argc;		/* the command line (borrowed) */
	char			**argv;
	struct rai_err		 err;
};

/* Walking the tables. */
const struct rai_cmd *const *cli_children(const struct rai_prog *,
	    const struct rai_cmd *);
/* Shown in -h, lists and completion: neither hidden nor deprecated. */
int	 cli_cmd_visible(const struct rai_cmd *);
int	 cli_opt_visible(const struct rai_opt *);
/* Still accepted under an old name (never hidden ones). */
int	 cli_cmd_deprecated(const struct rai_cmd *);
int	 cli_opt_deprecated(const struct rai_opt *);
const struct rai_cmd *cli_find_child(const struct rai_cmd *const *list,
	    const char *word);
int	 cli_resolve_path(const struct rai_prog *, const char *path,
	    const struct rai_cmd **);
const struct rai_opt *cli_cmd_opts(const struct rai_cmd *);
int	 cli_takes_value(const struct rai_opt *);

/* The parse state. */
void	 cli_parse_init(struct parse *, const struct rai_prog *);
void	 cli_parse_release(struct parse *);
void	 cli_parse_enter(struct parse *, const struct rai_cmd *);
/*
 * Enters a command word: cli_parse_enter, then the command it stands
 * for (cmd->forward); a deprecated name leaves its note.
 */
int	 cli_enter_command(struct parse *, const struct rai_cmd *);
char	*cli_subject(const struct rai_prog *, const char *path);

/* Values and options. */
int	 cli_give(struct parse *, const struct optref *, const char *arg);
int	 cli_apply_defaults(struct parse *, const struct rai_opt *, void *base);
int	 cli_lookup(struct parse *, int shortc, const char *name, size_t len,
	    struct optref *);

/*
 * The argument loop. cli_swallows_next: whether option word takes the
 * word after it (next, NULL when not known yet) as its value.
 */
int	 cli_swallows_next(struct parse *, const char *word,
	    const char *next);
int	 cli_parse_command_line(struct parse *, int argc, char **argv);
/* The deprecation notes of a successful parse, one warning each. */
void	 cli_print_notes(const struct parse *);

#endif
