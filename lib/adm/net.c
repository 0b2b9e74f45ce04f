/*
 * Time-limited host-side probes for preflight.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "adm/net.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/time.h"

#include "core/banned.h"

static long
left_ms(long long deadline)
{
	long long l = deadline - rai_now_ms();

	return l > 0 ? (long)l : 0;
}

static void
fmt_secs(long ms, char *buf, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%lds", ms / 1000);
	else
		snprintf(buf, size, "%.1fs", (double)ms / 1000.0);
}

int
adm_split_hostport(const char *s, int defport, char **host, int *port,
    struct rai_err *err)
{
	const char *colon, *end;
	char *e;
	long p = defport;

	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_USAGE, "empty host");
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return rai_err_set(err, RAI_E_USAGE, "invalid address "
			    "'%s'", s);
		colon = end[1] == ':' ? end + 1 : NULL;
		if (colon != NULL) {
			p = strtol(colon + 1, &e, 10);
			if (*e != '\0' || colon[1] == '\0' || p < 1 ||
			    p > 65535)
				return rai_err_set(err, RAI_E_USAGE, "invalid "
				    "port in '%s'", s);
		}
		*host = xstrndup(s + 1, (size_t)(end - s - 1));
		*port = (int)p;
		return 0;
	}
	colon = strchr(s, ':');
	if (colon != NULL && strchr(colon + 1, ':') == NULL) {
		p = strtol(colon + 1, &e, 10);
		if (*e != '\0' || colon[1] == '\0' || p < 1 || p > 65535)
			return rai_err_set(err, RAI_E_USAGE, "invalid port in "
			    "'%s'", s);
		*host = xstrndup(s, (size_t)(colon - s));
	} else {
		/* no port, or a bare IPv6 address */
		*host = xstrdup(s);
	}
	*port = (int)p;
	return 0;
}

/* ---- resolution in a helper thread ---- */

struct rjob {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 refs;		/* the caller and the thread */
	int		 done;
	int		 gai;		/* getaddrinfo's result */
	int		 sys_errno;
	struct addrinfo	*res;
	char		*host;
};

static void
rjob_unref(struct rjob *j)
{
	int last;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	if (j->res != NULL)
		freeaddrinfo(j->res);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j->host);
	free(j);
}

static void
rjob_resolve(struct rjob *j)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(j->host, NULL, &hints, &res);
	pthread_mutex_lock(&j->mu);
	j->gai = rc;
	j->sys_errno = errno;
	j->res = res;
	j->done = 1;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

static void *
rjob_thread(void *arg)
{
	struct rjob *j = arg;

	rjob_resolve(j);
	rjob_unref(j);
	return NULL;
}

/* The addrinfo list for host within the deadline (caller frees). */
static int
resolve_ai(const char *host, long long deadline, long timeout_ms,
    struct addrinfo **out, struct rai_err *err)
{
	struct rjob *j = xcalloc(1, sizeof(*j));
	pthread_condattr_t ca;
	pthread_attr_t attr;
	pthread_t t;
	struct timespec ts;
	long long left;
	char secs[32];
	int rc = -1;

	j->host = xstrdup(host);
	j->refs = 2;
	pthread_mutex_init(&j->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, rjob_thread, j) != 0) {
		/* no thread: resolve here, without the time limit */
		j->refs = 1;
		rjob_resolve(j);
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&j->mu);
	while (!j->done) {
		left = deadline - rai_now_ms();
		if (left <= 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += left / 1000;
		ts.tv_nsec += (left % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_cond_timedwait(&j->cv, &j->mu, &ts) == ETIMEDOUT &&
		    !j->done)
			break;
	}
	if (!j->done) {
		fmt_secs(timeout_ms, secs, sizeof(secs));
		rai_err_set(err, RAI_E_NET, "cannot resolve '%s': no answer "
		    "within %s", host, secs);
	} else if (j->gai != 0) {
		rai_err_set(err, RAI_E_NET, "cannot resolve '%s': %s", host,
		    j->gai == EAI_SYSTEM ? strerror(j->sys_errno) :
		    gai_strerror(j->gai));
	} else {
		*out = j->res;
		j->res = NULL;
		rc = 0;
	}
	pthread_mutex_unlock(&j->mu);
	rjob_unref(j);
	return rc;
}

static void
addr_text(const struct sockaddr *sa, char *buf, size_t size)
{
	const void *a = sa->sa_family == AF_INET6 ?
	    (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->
	    sin6_addr :
	    (const void *)&((const struct sockaddr_in *)(const void *)sa)->
	    sin_addr;

	if (inet_ntop(sa->sa_family, a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}

int
adm_resolve(const char *host, long timeout_ms, struct rai_strv *addrs,
    struct rai_err *err)
{
	struct addrinfo *res = NULL, *ai;
	char text[INET6_ADDRSTRLEN];
	size_t i;

	if (resolve_ai(host, rai_now_ms() + timeout_ms, timeout_ms, &res,
	    err) == -1)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		addr_text(ai->ai_addr, text, sizeof(text));
		for (i = 0; i < addrs->n; i++)
			if (strcmp(addrs->v[i], text) == 0)
				break;
		if (i == addrs->n)
			rai_strv_push(addrs, text);
	}
	freeaddrinfo(res);
	return 0;
}

/* ---- TCP ---- */

/* One address: 0 and *fd, or -1 with *why (an errno). */
static int
connect_one(const struct addrinfo *ai, int port, long long deadline, int *fd,
    int *why)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int s, soerr = 0, rc;

	memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)&ss)->sin6_port =
		    htons((unsigned short)port);
	else
		((struct sockaddr_in *)(void *)&ss)->sin_port =
		    htons((unsigned short)port);
	s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0);
	if (s == -1) {
		*why = errno;
		return -1;
	}
	if (connect(s, (struct sockaddr *)&ss, ai->ai_addrlen) == 0) {
		*fd = s;
		return 0;
	}
	if (errno != EINPROGRESS) {
		*why = errno;
		close(s);
		return -1;
	}
	pfd.fd = s;
	pfd.events = POLLOUT;
	do {
		rc = poll(&pfd, 1, (int)left_ms(deadline));
	} while (rc == -1 && errno == EINTR);
	if (rc == 0) {
		*why = ETIMEDOUT;
		close(s);
		return -1;
	}
	if (rc == -1 || getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len) ==
	    -1 || soerr != 0) {
		*why = rc == -1 ? errno : soerr != 0 ? soerr : errno;
		close(s);
		return -1;
	}
	*fd = s;
	return 0;
}

static int
tcp_connect(const char *host, int port, long long deadline, long timeout_ms,
    int *fd, struct rai_err *err)
{
	struct addrinfo *res = NULL, *ai;
	char text[INET6_ADDRSTRLEN], secs[32];
	int why = 0, n = 0;

	if (resolve_ai(host, deadline, timeout_ms, &res, err) == -1)
		return -1;
	text[0] = '\0';
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		n++;
		addr_text(ai->ai_addr, text, sizeof(text));
		if (connect_one(ai, port, deadline, fd, &why) == 0) {
			freeaddrinfo(res);
			return 0;
		}
		if (left_ms(deadline) == 0)
			break;
	}
	freeaddrinfo(res);
	if (n == 0)
		return rai_err_set(err, RAI_E_NET, "cannot resolve '%s': no "
		    "IPv4 or IPv6 address", host);
	if (why == ETIMEDOUT || left_ms(deadline) == 0) {
		fmt_secs(timeout_ms, secs, sizeof(secs));
		return rai_err_set(err, RAI_E_NET, "cannot connect to %s port "
		    "%d: no answer within %s", host, port, secs);
	}
	if (strcmp(text, host) == 0)
		return rai_err_set(err, RAI_E_NET, "cannot connect to %s port "
		    "%d: %s", host, port, strerror(why));
	return rai_err_set(err, RAI_E_NET, "cannot connect to %s port %d "
	    "(%s): %s", host, port, text, strerror(why));
}

int
adm_tcp_connect(const char *host, int port, long timeout_ms, int *fd,
    struct rai_err *err)
{
	return tcp_connect(host, port, rai_now_ms() + timeout_ms, timeout_ms, fd,
	    err);
}

/* ---- TLS ---- */

static int
is_ip_literal(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 ||
	    inet_pton(AF_INET6, s, buf) == 1;
}

static void
ssl_reason(char *buf, size_t size)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

	snprintf(buf, size, "%s", r != NULL ? r : "handshake failed");
	ERR_clear_error();
}

int
adm_tls_fetch_chain(const char *host, int port, const char *sni,
    long timeout_ms, struct rai_buf *pem, unsigned *flags,
    struct rai_err *err)
{
	long long deadline = rai_now_ms() + timeout_ms;
	STACK_OF(X509) *chain;
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	BIO *mem = NULL;
	struct pollfd pfd;
	char why[256], secs[32];
	char *data;
	long n;
	int fd = -1, r, e, i, prc, rc = -1;

	*flags = 0;
	if (tcp_connect(host, port, deadline, timeout_ms, &fd, err) == -1)
		return -1;
	*flags |= ADM_FETCH_CONNECTED;
	ctx = SSL_CTX_new(TLS_client_method());
	if (ctx == NULL)
		rai_die("out of memory");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	ssl = SSL_new(ctx);
	if (ssl == NULL)
		rai_die("out of memory");
	SSL_set_fd(ssl, fd);
	if (sni != NULL && !is_ip_literal(sni)) {
		/* OpenSSL's macro takes the name as void *: a copy of ours */
		char name[256];

		snprintf(name, sizeof(name), "%s", sni);
		SSL_set_tlsext_host_name(ssl, name);
	}
	for (;;) {
		r = SSL_connect(ssl);
		if (r == 1)
			break;
		e = SSL_get_error(ssl, r);
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
			ssl_reason(why, sizeof(why));
			if (e == SSL_ERROR_SYSCALL && errno != 0)
				snprintf(why, sizeof(why), "%s",
				    strerror(errno));
			rai_err_set(err, RAI_E_NET, "TLS handshake with %s "
			    "port %d failed: %s", host, port, why);
			goto out;
		}
		pfd.fd = fd;
		pfd.events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		do {
			prc = poll(&pfd, 1, (int)left_ms(deadline));
		} while (prc == -1 && errno == EINTR);
		if (prc <= 0) {
			fmt_secs(timeout_ms, secs, sizeof(secs));
			rai_err_set(err, RAI_E_NET, "TLS handshake with %s "
			    "port %d: no answer within %s", host, port, secs);
			goto out;
		}
	}
	chain = SSL_get_peer_cert_chain(ssl);
	if (chain == NULL || sk_X509_num(chain) == 0) {
		rai_err_set(err, RAI_E_NET, "%s port %d sent no certificate",
		    host, port);
		goto out;
	}
	if ((mem = BIO_new(BIO_s_mem())) == NULL)
		rai_die("out of memory");
	for (i = 0; i < sk_X509_num(chain); i++)
		PEM_write_bio_X509(mem, sk_X509_value(chain, i));
	n = BIO_get_mem_data(mem, &data);
	if (n > 0)
		rai_buf_add(pem, data, (size_t)n);
	rc = 0;
out:
	BIO_free(mem);
	if (ssl != NULL) {
		SSL_set_quiet_shutdown(ssl, 1);
		SSL_free(ssl);
	}
	SSL_CTX_free(ctx);
	ERR_clear_error();
	if (fd != -1)
		close(fd);
	return rc;
}

/* ---- the registry ---- */

struct hdrs {
	char	*www_auth;
};

static size_t
on_header(char *buf, size_t size, size_t n, void *ud)
{
	struct hdrs *h = ud;
	size_t len = size * n, k = sizeof("www-authenticate:") - 1;
	const char *v, *end = buf + len;

	if (len > k && strncasecmp(buf, "www-authenticate:", k) == 0 &&
	    h->www_auth == NULL) {
		for (v = buf + k; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
		    end[-1] == ' '))
			end--;
		h->www_auth = xstrndup(v, (size_t)(end - v));
	}
	return len;
}

static size_t
on_body(char *buf, size_t size, size_t n, void *ud)
{
	size_t *total = ud;

	(void)buf;
	*total += size * n;
	/* /v2/ answers are tiny; anything large is not a registry */
	return *total > ((size_t)1 << 20) ? 0 : size * n;
}

int
adm_registry_ping(const char *registry, int plain_http, const char *ca_file,
    long timeout_ms, const char *user_agent, struct adm_reg_answer *ans,
    struct rai_err *err)
{
	char errbuf[CURL_ERROR_SIZE], secs[32];
	struct hdrs h = { NULL };
	size_t hostlen, total = 0;
	char *url;
	CURL *c;
	CURLcode rc;
	long status = 0;

	memset(ans, 0, sizeof(*ans));
	/* host[:port] only: /v2/ sits at the root whatever the path */
	hostlen = strcspn(registry, "/");
	url = xasprintf("%s://%.*s/v2/", plain_http ? "http" : "https",
	    (int)hostlen, registry);
	if ((c = curl_easy_init()) == NULL)
		rai_die("out of memory");
	errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &total);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (user_agent != NULL)
		curl_easy_setopt(c, CURLOPT_USERAGENT, user_agent);
	if (ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		free(h.www_auth);
		if (rc == CURLE_OPERATION_TIMEDOUT) {
			fmt_secs(timeout_ms, secs, sizeof(secs));
			rai_err_set(err, RAI_E_NET, "GET %s: no answer within "
			    "%s", url, secs);
		} else {
			rai_err_set(err, RAI_E_NET, "GET %s: %s", url,
			    errbuf[0] != '\0' ? errbuf :
			    curl_easy_strerror(rc));
		}
		err->curl_code = (int)rc;
		free(url);
		return -1;
	}
	free(url);
	ans->status = status;
	ans->www_auth = h.www_auth;
	return 0;
}

void
adm_reg_answer_release(struct adm_reg_answer *a)
{
	free(a->www_auth);
	a->www_auth = NULL;
}
