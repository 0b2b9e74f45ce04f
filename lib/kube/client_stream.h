/*
 * Streamed GETs (client_stream.c). Their API, kube_stream,
 * kube_stream_raw, kube_watch and the kube_watch_* and kube_raw_* calls
 * that read several at once, is declared in kube/client.h; the file
 * shares nothing else.
 */
#ifndef KUBE_CLIENT_STREAM_H
#define KUBE_CLIENT_STREAM_H

#include "kube/client.h"

#endif
