"""The emulated Run:ai control plane (--control-plane VERSION): its own
loopback port beside the API server, backed by the same store, with
every exchange judged against the release's published OpenAPI document.
server.py routes, state.py maps workloads onto cluster objects, views.py
shapes answers per release, tokens.py issues and renews logins,
profiles.py says what differs between releases, judge.py judges."""
