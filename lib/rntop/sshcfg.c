/*
 * Enough of ssh_config to group hosts for "ssh -G": the Host lines and
 * whatever makes a host's options depend on its name otherwise. See
 * sshcfg.h. Keywords are case-insensitive and take "key value" or
 * "key=value"; patterns match case-insensitively, as ssh lowercases
 * the name it matches.
 */
#include <ctype.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "rntop/sshcfg.h"

#include "core/banned.h"

#define CFG_MAX		((size_t)1 << 20)	/* a bigger file: per host */
#define INCLUDE_DEPTH	16			/* as ssh's own limit */

/* Shell-style glob of one pattern, * and ?, case-insensitive. */
static int
glob_match(const char *p, const char *s)
{
	for (; *p != '\0'; p++, s++) {
		if (*p == '*') {
			for (;; s++) {
				if (glob_match(p + 1, s))
					return 1;
				if (*s == '\0')
					return 0;
			}
		}
		if (*s == '\0' || (*p != '?' && tolower((unsigned char)*p) !=
		    tolower((unsigned char)*s)))
			return 0;
	}
	return *s == '\0';
}

int
rntop_sshcfg_host_matches(const char *patterns, const char *host)
{
	char *copy = xstrdup(patterns), *save = NULL, *w;
	int hit = 0, neg = 0;

	for (w = strtok_r(copy, " \t", &save); w != NULL && !neg;
	    w = strtok_r(NULL, " \t", &save)) {
		if (*w == '!')
			neg = glob_match(w + 1, host);
		else if (glob_match(w, host))
			hit = 1;
	}
	free(copy);
	return hit && !neg;
}

/* Whether a keyword's value turns a name-dependent feature on. */
static int
value_on(const char *v)
{
	return strncasecmp(v, "no", 2) != 0 || (v[2] != '\0' &&
	    !isspace((unsigned char)v[2]));
}

/* One line: its keyword (lowercase, into kw) and where its value starts. */
static const char *
split_line(const char *line, char *kw, size_t kwlen)
{
	size_t n = 0;

	while (isspace((unsigned char)*line))
		line++;
	while (*line != '\0' && !isspace((unsigned char)*line) &&
	    *line != '=') {
		if (n + 1 < kwlen)
			kw[n++] = (char)tolower((unsigned char)*line);
		line++;
	}
	kw[n] = '\0';
	while (isspace((unsigned char)*line) || *line == '=')
		line++;
	return line;
}

static void
scan_line(struct rntop_sshcfg *c, char *line,
    void (*include)(void *, const char *), void *ud)
{
	char kw[32];
	const char *v = split_line(line, kw, sizeof(kw));
	size_t n;

	if (kw[0] == '\0' || kw[0] == '#')
		return;
	/* a name-dependent token, a quoted word, a Match block: per host */
	if (strchr(v, '%') != NULL || strchr(v, '"') != NULL ||
	    strcmp(kw, "match") == 0 ||
	    (strcmp(kw, "canonicalizehostname") == 0 && value_on(v))) {
		c->per_host = 1;
		return;
	}
	if (strcmp(kw, "include") == 0) {
		if (include == NULL)
			c->per_host = 1;
		else
			include(ud, v);
		return;
	}
	if (strcmp(kw, "host") != 0)
		return;
	n = strlen(v);
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	c->host_lines = xreallocarray(c->host_lines, c->nhost + 1,
	    sizeof(*c->host_lines));
	c->host_lines[c->nhost++] = xstrndup(v, n);
}

void
rntop_sshcfg_scan(struct rntop_sshcfg *c, const char *text, size_t len,
    void (*include)(void *, const char *), void *ud)
{
	const char *p = text, *end = text + len, *nl;
	char *line;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		line = xstrndup(p, (size_t)(nl - p));
		scan_line(c, line, include, ud);
		free(line);
		p = nl + 1;
	}
}

char *
rntop_sshcfg_key(const struct rntop_sshcfg *c, const char *host)
{
	char *k = xmalloc(c->nhost + 1);
	size_t i;

	for (i = 0; i < c->nhost; i++)
		k[i] = rntop_sshcfg_host_matches(c->host_lines[i], host) ?
		    '1' : '0';
	k[c->nhost] = '\0';
	return k;
}

void
rntop_sshcfg_release(struct rntop_sshcfg *c)
{
	size_t i;

	for (i = 0; i < c->nhost; i++)
		free(c->host_lines[i]);
	free(c->host_lines);
	memset(c, 0, sizeof(*c));
}

/* Loading files: where relative Include paths start, and how deep. */
struct loader {
	struct rntop_sshcfg	*c;
	const char		*dir;	/* ~/.ssh, or /etc/ssh */
	int			 depth;
};

static void load_file(struct loader *, const char *path, int must);

/* An Include line's words, each a glob, relative ones under l->dir. */
static void
on_include(void *ud, const char *words)
{
	struct loader *l = ud;
	char *copy = xstrdup(words), *save = NULL, *w, *path;
	glob_t g;
	size_t i;

	if (++l->depth > INCLUDE_DEPTH)
		l->c->per_host = 1;
	for (w = strtok_r(copy, " \t", &save); w != NULL && !l->c->per_host;
	    w = strtok_r(NULL, " \t", &save)) {
		path = *w == '/' || *w == '~' ? xstrdup(w) :
		    xasprintf("%s/%s", l->dir, w);
		/* ~ is the caller's home only in ssh's expansion: per host */
		if (*w == '~')
			l->c->per_host = 1;
		else if (glob(path, 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++)
				load_file(l, g.gl_pathv[i], 1);
			globfree(&g);
		}
		free(path);
	}
	free(copy);
	l->depth--;
}

/* A file read whole; must: one that exists but cannot be read is per host. */
static void
load_file(struct loader *l, const char *path, int must)
{
	struct rai_buf b;
	char buf[8192];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (must || access(path, F_OK) == 0)
			l->c->per_host = 1;
		return;
	}
	rai_buf_init(&b, CFG_MAX);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (rai_buf_add(&b, buf, (size_t)n) == -1) {
			n = -1;
			break;
		}
	close(fd);
	if (n == -1)
		l->c->per_host = 1;
	else
		rntop_sshcfg_scan(l->c, b.data ? (const char *)b.data : "",
		    b.len, on_include, l);
	rai_buf_release(&b);
}

void
rntop_sshcfg_load(struct rntop_sshcfg *c, const char *config,
    const char *home)
{
	char *user_dir = xasprintf("%s/.ssh", home), *user;
	struct loader l;

	memset(c, 0, sizeof(*c));
	l.c = c;
	l.dir = user_dir;
	l.depth = 0;
	if (config != NULL) {
		load_file(&l, config, 1);
	} else {
		user = xasprintf("%s/config", user_dir);
		load_file(&l, user, 0);
		free(user);
		l.dir = "/etc/ssh";
		load_file(&l, "/etc/ssh/ssh_config", 0);
	}
	free(user_dir);
}
