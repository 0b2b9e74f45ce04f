/*
 * Raw connections after an Upgrade (http_conn.c). Their API,
 * rai_http_connect and the rai_http_conn_* calls, is declared in
 * core/http.h; the file shares nothing else.
 */
#ifndef RAI_HTTP_CONN_H
#define RAI_HTTP_CONN_H

#include "core/http.h"

#endif
