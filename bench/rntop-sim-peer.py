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
    def begin_auth(self, username):
        return True

    def public_key_auth_supported(self):
        return True

    def validate_public_key(self, username, key):
        return True


async def serve_owner_requests(process, alive):
    # one block for each line rntop writes (a request), until EOF
    try:
        async for _ in process.stdin:
            process.stdout.write(block())
    except (asyncssh.Error, OSError, asyncio.CancelledError):
        pass
    alive["on"] = False


async def handle(process, port):
    cmd = process.command or ""
    owners = "o()" in cmd
    m = re.search(r"-lms (\d+)", cmd)
    alive = {"on": True}
    try:
        if m is None:
            if owners:
                process.stdout.write(block())
            process.stdout.write(rows(port, 0))
            process.exit(0)
            return
        ms = int(m.group(1)) / 1000.0
        if owners:
            process.stdout.write(block())
        reader = asyncio.ensure_future(serve_owner_requests(process, alive))
        tick = 0
        while alive["on"]:
            process.stdout.write(rows(port, tick))
            tick += 1
            await asyncio.sleep(ms)
        reader.cancel()
        process.exit(0)
    except (asyncssh.Error, OSError, BrokenPipeError):
        pass


async def main(state, n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    key = asyncssh.generate_private_key("ssh-ed25519")
    pub = key.export_public_key("openssh").decode().split()[:2]
    ports = []
    for _ in range(n):
        port_box = {}

        def factory(process, box=port_box):
            return handle(process, box["port"])
        srv = await asyncssh.create_server(
            Server, "127.0.0.1", 0, server_host_keys=[key],
            process_factory=factory, encoding="utf-8", line_editor=False)
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
