/*
 * Kubernetes resource quantities ("500m", "64", "512Gi", "4G", "1.5e3")
 * and their display.
 */
#ifndef RAI_QUANTITY_H
#define RAI_QUANTITY_H

#include <stddef.h>

/* 0 and *out set, or -1 when s is not a quantity (out untouched). */
int	 rai_quantity_parse(const char *s, double *out);
/* Bytes in IEC units, one decimal where needed: "512 GiB", "1.5 GiB", "0 B". */
const char *rai_fmt_iec(double bytes, char *buf, size_t len);
/* A count: integral values without decimals ("8"), others "%.2f" ("7.50"). */
const char *rai_fmt_num(double v, char *buf, size_t len);
/* Go's time.Duration String() for whole seconds: "1h0m0s", "1m30s", "45s". */
const char *rai_fmt_go_duration(long secs, char *buf, size_t len);

#endif
