/*
 * Side streams (http_stream.c). Their API, rai_http_stream_start,
 * rai_http_streams_wait, rai_http_stream_result and rai_http_stream_free,
 * is declared in core/http.h; the file shares nothing else.
 */
#ifndef RAI_HTTP_STREAM_H
#define RAI_HTTP_STREAM_H

#include "core/http.h"

#endif
