/*
 * Quantities as the API server writes them: a decimal number followed
 * by an optional binary (Ki..Ei) or decimal (n u m k M G T P E) suffix,
 * or an exponent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/quantity.h"

#include "core/banned.h"

static const struct {
	const char	*suffix;
	double		 mult;
} suffixes[] = {
	{ "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
	{ "Ti", 1099511627776.0 }, { "Pi", 1125899906842624.0 },
	{ "Ei", 1152921504606846976.0 },
	{ "n", 1e-9 }, { "u", 1e-6 }, { "m", 1e-3 }, { "", 1.0 },
	{ "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
	{ "P", 1e15 }, { "E", 1e18 },
};

/*
 * Most quantities a list reads are a few digits ("1", "250"): those are
 * read here, exactly as strtod would, at a fraction of its cost.
 */
static int
small_whole(const char *s, double *out)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; i < 9 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (i == 0 || s[i] != '\0')
		return 0;
	*out = (double)v;
	return 1;
}

int
rai_quantity_parse(const char *s, double *out)
{
	char *end;
	double v;
	size_t i;

	if (s == NULL || *s == '\0' || *s == ' ')
		return -1;
	if (small_whole(s, out))
		return 0;
	/* strtod would take "inf", "nan" and hex; quantities have none */
	for (i = 0; s[i] != '\0'; i++)
		if (strchr("0123456789.+-eEkKMGTPEimnu", s[i]) == NULL)
			return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return -1;
	/* "1E" is exa, not an exponent: strtod stops before a bare E */
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcmp(end, suffixes[i].suffix) == 0) {
			*out = v * suffixes[i].mult;
			return 0;
		}
	}
	return -1;
}

const char *
rai_fmt_iec(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
	    "PiB", "EiB" };
	size_t u = 0;

	while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		u++;
	}
	if (fabs(bytes - round(bytes)) < 0.05)
		snprintf(buf, len, "%.0f %s", round(bytes), units[u]);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

const char *
rai_fmt_num(double v, char *buf, size_t len)
{
	if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, len, "%.0f", round(v));
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

const char *
rai_fmt_go_duration(long secs, char *buf, size_t len)
{
	long h = secs / 3600, m = (secs % 3600) / 60, s = secs % 60;

	if (h > 0)
		snprintf(buf, len, "%ldh%ldm%lds", h, m, s);
	else if (m > 0)
		snprintf(buf, len, "%ldm%lds", m, s);
	else
		snprintf(buf, len, "%lds", s);
	return buf;
}
