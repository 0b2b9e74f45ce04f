/*
 * url: facts about a URL's host, read with libcurl's URL API (the parser
 * the transport itself uses to pick what it connects to), never with a
 * prefix test on the text: "https://127.0.0.1@example.com/" names
 * example.com.
 */
#ifndef RAI_URL_H
#define RAI_URL_H

/* 127.0.0.0/8 or ::1 written as an address, bracketed or not. */
int	 rai_host_is_loopback_address(const char *host);

/*
 * Whether url's host is this machine: a loopback address, or the name
 * localhost. For decisions about speed only: the name is looked up and
 * may, on a strange machine, lead elsewhere, so it never decides what
 * may be sent in the clear.
 */
int	 rai_url_is_local(const char *url);

#endif
