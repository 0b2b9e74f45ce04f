/*
 * The SSH engine's entry points (ssh_engine.c). They are declared in
 * rntop/ssh.h, which callers include; ssh_engine.c sits on top of the
 * engine and shares nothing else.
 */
#ifndef RNTOP_SSH_ENGINE_H
#define RNTOP_SSH_ENGINE_H

#include "rntop/ssh.h"

#endif
