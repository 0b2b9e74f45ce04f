#!/usr/bin/python3
"""A light SSH peer for rntop's scale bench: one process, N ports, each
port a host with its own GPUs (2 H100s whose UUIDs carry the port), all
answering rntop's remote command without a shell or nvidia-smi.

    rntop-sim-peer.py STATE_DIR N

Writes STATE_DIR/ports (one port a line), STATE_DIR/known_hosts (one
host key for every port: each host its own entry) and STATE_DIR/ready,
then serves until killed. Any public key is accepted. The command is
read, not run: "--query-gpu=" with "-lms MS" is the stream (a sample
every MS until the channel closes), without it one sample; a command
that defines rntop's owner-block function "o()" also gets an empty
block at the start and one for each line read on stdin, as the
function prints it (begin, the driver line, end ok). Needs Debian's
python3-asyncssh.
"""
import asyncio
import os
import re
import resource
import sys

import asyncssh

DRIVER = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.163.01  Tue"


def rows(port, tick):
    out = []
    for i in range(2):
        util = (port * 7 + tick * 13 + i * 31) % 101
        out.append("%d, GPU-%08d-0000-4000-8000-%012d, %d, %d, 81559, 41, 312.45, "
                   "Disabled, 47, 700.00, NVIDIA H100 80GB HBM3\n"
                   % (i, port, i, util, 1024 * (i + 1)))
    return "".join(out)


def block():
    return "#rntop begin\n#rntop driver %s\n\n#rntop end ok\n" % DRIVER


class Server(asyncssh.SSHServer):
    def __init__(self, session_factory):
        self.session_factory = session_factory

    def session_requested(self):
        return self.session_factory()

    def begin_auth(self, username):
        return True

    def public_key_auth_supported(self):
        return True

    def validate_public_key(self, username, key):
        return True


class Session(asyncssh.SSHServerSession):
    """One exec channel: the command read, never run (see above)."""

    def __init__(self, port):
        self.port = port
        self.chan = None
        self.cmd = ""
        self.task = None
        self.buf = ""

    def connection_made(self, chan):
        self.chan = chan

    def exec_requested(self, command):
        self.cmd = command
        return True

    def session_started(self):
        self.task = asyncio.ensure_future(self.run())

    def data_received(self, data, datatype):
        # each line rntop writes asks for one more owner block
        self.buf += data
        while "\n" in self.buf and "o()" in self.cmd:
            self.buf = self.buf.split("\n", 1)[1]
            self.chan.write(block())

    def eof_received(self):
        self.stop()
        return False

    def connection_lost(self, exc):
        if self.task is not None:
            self.task.cancel()

    def stop(self):
        if self.task is not None:
            self.task.cancel()
        try:
            self.chan.exit(0)
        except (asyncssh.Error, OSError):
            pass

    async def run(self):
        m = re.search(r"-lms (\d+)", self.cmd)
        try:
            if "o()" in self.cmd:
                self.chan.write(block())
            if m is None:
                self.chan.write(rows(self.port, 0))
                self.chan.exit(0)
                return
            ms = int(m.group(1)) / 1000.0
            tick = 0
            while True:
                self.chan.write(rows(self.port, tick))
                tick += 1
                await asyncio.sleep(ms)
        except (asyncssh.Error, OSError):
            pass


async def main(state, n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    key = asyncssh.generate_private_key("ssh-ed25519")
    pub = key.export_public_key("openssh").decode().split()[:2]
    ports = []
    for _ in range(n):
        port_box = {}

        def factory(box=port_box):
            return Session(box["port"])
        srv = await asyncssh.create_server(
            lambda f=factory: Server(f), "127.0.0.1", 0,
            server_host_keys=[key], encoding="utf-8")
        port = srv.sockets[0].getsockname()[1]
        port_box["port"] = port
        ports.append(port)
    with open(os.path.join(state, "ports"), "w") as f:
        f.write("".join("%d\n" % p for p in ports))
    with open(os.path.join(state, "known_hosts"), "w") as f:
        f.write("".join("[127.0.0.1]:%d %s %s\n" % (p, pub[0], pub[1]) for p in ports))
    open(os.path.join(state, "ready"), "w").close()
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
