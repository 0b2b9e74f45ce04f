/*
 * The handle and the ordinary request path (http_handle.c). Its entry
 * points (rai_http_new, rai_http_free, rai_http_do and the handle's
 * accessors) are declared in core/http.h with the rest of the API; it
 * sits on top of the transport's other files and shares nothing else.
 */
#ifndef RAI_HTTP_HANDLE_H
#define RAI_HTTP_HANDLE_H

#include "core/http.h"

#endif
