"""Command line and start-up: state directory, PKI, tokens, kubeconfigs,
the store and its start-up contents, the runtime, the server, ready.json,
and a clean exit on SIGTERM/SIGINT."""

import argparse
import ipaddress
import json
import os
import signal
import stat
import sys
import threading

from kubesim import auth, certs, demo
from kubesim.reqlog import RequestLog, open_private
from kubesim.resources import Registry
from kubesim.server import ApiServer, make_ssl_context
from kubesim.sim import Sim, runtime_module
from kubesim.store import Store


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="kube-sim",
        description="An emulator of the Kubernetes API server with Run:ai objects, "
                    "for tests and demos. Listens on loopback only.")
    p.add_argument("--state-dir", required=True,
                   help="directory for certificates, tokens, kubeconfigs and logs")
    p.add_argument("--listen", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port; 0 picks a free one (default)")
    p.add_argument("--demo", action="store_true",
                   help="start with two GPU nodes and projects team-a..team-d")
    p.add_argument("--plain-http", action="store_true", help="serve http instead of https")
    p.add_argument("--tick", type=float, default=1.0,
                   help="seconds between controller steps (default 1.0)")
    p.add_argument("--oidc-issuer-url", help="accept id-tokens from this OIDC issuer")
    p.add_argument("--oidc-client-id", help="the audience id-tokens must carry")
    p.add_argument("--oidc-ca-file", help="CA bundle for the issuer's HTTPS endpoints")
    p.add_argument("--oidc-username-claim", default="sub", help="claim naming the user")
    p.add_argument("--oidc-groups-claim", help="claim listing the user's groups")
    p.add_argument("--max-list-bytes", type=int, default=None,
                   help="mark list answers larger than this (X-Kube-Sim-Oversize); "
                        "they are still sent")
    p.add_argument("--unsandboxed", action="store_true",
                   help="run pod processes on this host, without their sandbox (tests only; "
                        "without it, a machine that cannot sandbox runs none)")
    p.add_argument("--log-buffer-mib", type=float, default=None,
                   help="keep this much log per container (default 1 MiB or 5000 lines)")
    p.add_argument("--no-portforward-tunnel", action="store_true",
                   help="serve port-forward as API servers before 1.31 do: WebSocket "
                        "channels only, no SPDY carried in a WebSocket")
    p.add_argument("--control-plane", metavar="VERSION",
                   help="also serve an emulated Run:ai control plane (2.18, 2.21 or 2.24) "
                        "on its own loopback port")
    p.add_argument("--control-plane-token-ttl", type=int, default=3600,
                   help="seconds the control plane's access tokens live (default 3600)")
    args = p.parse_args(argv)
    if bool(args.oidc_issuer_url) != bool(args.oidc_client_id):
        p.error("--oidc-issuer-url and --oidc-client-id go together")
    return args


def _loopback_host(listen):
    """The address to bind; refuses anything but loopback."""
    host = "127.0.0.1" if listen == "localhost" else listen
    try:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError
    except ValueError:
        sys.exit("kube-sim: --listen must be a loopback address, not %r" % listen)
    return host


def _url(host, port, tls):
    shown = "[%s]" % host if ":" in host else host
    return "%s://%s:%d" % ("https" if tls else "http", shown, port)


def args_version(cp):
    return cp.profile["version"]


def args_unsandboxed(sim):
    return bool(getattr(sim.options, "unsandboxed", False))


def _load_runtime(sim):
    """Attaches the controller and pod I/O when those modules exist."""
    names = ("controller", "logs", "podproc", "podexec")
    mods = {name: runtime_module(name) for name in names}
    if any(mod is None for mod in mods.values()):
        print("kube-sim: runtime modules (%s) absent; serving the API only" % ", ".join(names),
              file=sys.stderr, flush=True)
        return None
    controller, logs, podexec = mods["controller"], mods["logs"], mods["podexec"]
    sandbox = runtime_module("sandbox")
    if sandbox is not None:
        sim.sandbox = sandbox.start_policy(
            args_unsandboxed(sim), lambda text: print(text, file=sys.stderr, flush=True))
    sim.logs = logs.PodLogs(sim)
    sim.processes = mods["podproc"].ProcessTable(sim)
    sim.controller = controller.Controller(sim)
    logs.register_sim_routes(sim)
    podexec.register_sim_routes(sim)
    controller.register_sim_routes(sim)
    prometheus = runtime_module("prometheus")
    if prometheus is not None:
        prometheus.register_sim_routes(sim)
        if sim.options.demo:
            prometheus.install_demo(sim.store)
    _start_netproxy(sim)
    return sim.controller


def _start_netproxy(sim):
    """Node ports, load balancers and the ingress controller on loopback."""
    netproxy = runtime_module("netproxy")
    if netproxy is None:
        return
    sim.netproxy = netproxy.NetProxy(sim)
    if sim.options.demo:
        sim.netproxy.install_controller_service()
    sim.netproxy.start()


def _build(args, state_dir):
    pki = certs.Pki(state_dir).ensure()
    tokens = auth.TokenFile(os.path.join(state_dir, "tokens.csv"))
    admin_token = tokens.ensure()
    store = Store(Registry())
    demo.install_base(store)
    if args.demo:
        demo.install_demo(store)
    sim = Sim(store, state_dir, args)
    sim.tokens, sim.admin_token = tokens, admin_token
    sim.sim_token_file = os.path.join(state_dir, auth.SIM_TOKEN_FILE)
    sim.sim_token = auth.ensure_sim_token(sim.sim_token_file)
    # a fresh request log per run: tests count its lines from zero
    open_private(os.path.join(state_dir, "requests.jsonl"), truncate=True).close()
    sim.reqlog = RequestLog(os.path.join(state_dir, "requests.jsonl"))
    oidc = None
    if args.oidc_issuer_url:
        oidc = auth.OIDCVerifier(args.oidc_issuer_url, args.oidc_client_id,
                                 args.oidc_ca_file, args.oidc_username_claim,
                                 args.oidc_groups_claim)
    sim.authn = auth.Authenticator(tokens, oidc)
    sim.authz = auth.Authorizer(store)
    return sim, pki


def _start_control_plane(args, sim, host):
    """The emulated control plane beside the API server (None without
    --control-plane); ready.json names its URL and credentials file."""
    if not args.control_plane:
        return None
    from kubesim.controlplane import server as cpserver
    cp = cpserver.ControlPlane(sim, args.control_plane, sim.state_dir,
                               args.control_plane_token_ttl)
    cp.start(host)
    cpserver.register_sim_routes(sim, cp)
    sim.authn.control_plane = cp.identity.verify
    return cp


def _write_ready(state_dir, sim, port, pki, kubeconfigs, cp=None):
    ready = {"url": sim.url, "port": port, "pid": os.getpid(),
             "ca": os.path.abspath(pki.ca_crt), "token": sim.admin_token,
             "sim_token_file": sim.sim_token_file,
             "kubeconfig": os.path.abspath(kubeconfigs[0]),
             "kubeconfig_cert": os.path.abspath(kubeconfigs[1])}
    if getattr(sim, "netproxy", None) is not None:
        ready["ingress_port"] = sim.netproxy.ingress_port
    if cp is not None:
        ready.update({"control_plane_url": cp.url, "control_plane_version": args_version(cp),
                      "control_plane_credentials": cp.identity.path})
    certs.write_private(os.path.join(state_dir, "ready.json"),
                        json.dumps(ready, indent=2) + "\n")


def _private_state_dir(path):
    """Makes the state directory, or takes an existing one, to 0700: it
    holds keys, tokens and the request log (whole bodies, a Secret's
    password among them), for the user who runs kube-sim alone. A shared
    directory such as /tmp (sticky) is refused rather than closed."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    if os.stat(path).st_mode & stat.S_ISVTX:
        sys.exit("kube-sim: --state-dir %s is a shared directory (sticky, as /tmp): "
                 "give a directory of its own" % path)
    try:
        os.chmod(path, 0o700)
    except OSError as e:
        sys.exit("kube-sim: --state-dir %s: cannot make it private: %s" % (path, e.strerror))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    host = _loopback_host(args.listen)
    # Whatever kube-sim writes is its user's alone unless it says
    # otherwise (the files pods read through their sandbox, the
    # certificates); pod processes get a container's 022 (podproc).
    os.umask(0o077)
    state_dir = os.path.abspath(args.state_dir)
    _private_state_dir(state_dir)
    # a ready.json from an earlier run must not be mistaken for this one's
    try:
        os.unlink(os.path.join(state_dir, "ready.json"))
    except FileNotFoundError:
        pass
    sim, pki = _build(args, state_dir)
    tls = not args.plain_http
    server = ApiServer((host, args.port), sim, make_ssl_context(pki) if tls else None)
    port = server.server_address[1]
    sim.url = _url(host, port, tls)
    sim.server_address = "%s:%d" % (host, port)
    kubeconfigs = certs.write_kubeconfigs(state_dir, sim.url, sim.admin_token, pki, tls)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sim.stop_event.set())
    controller = _load_runtime(sim)
    try:
        cp = _start_control_plane(args, sim, host)
    except ValueError as e:
        sys.exit("kube-sim: --control-plane: %s" % e)
    serving = threading.Thread(target=server.serve, name="kube-sim-serve", daemon=True)
    serving.start()
    if controller is not None:
        controller.start()
    _write_ready(state_dir, sim, port, pki, kubeconfigs, cp)
    print("kube-sim: serving %s (state in %s)" % (sim.url, state_dir),
          file=sys.stderr, flush=True)

    while not sim.stop_event.wait(0.5):
        pass
    print("kube-sim: stopping", file=sys.stderr, flush=True)
    server.shutdown()  # no new connections
    if cp is not None:
        cp.stop()
    sim.stop()         # let open streams end cleanly
    if controller is not None:
        controller.stop()
    server.server_close()
    sim.reqlog.close()
    return 0
