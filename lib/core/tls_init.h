/*
 * Process-wide setup of the TLS library, before libcurl initialises it.
 */
#ifndef RAI_CORE_TLS_INIT_H
#define RAI_CORE_TLS_INIT_H

void	rai_tls_init(void);

#endif
