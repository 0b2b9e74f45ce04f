"""The emulated Run:ai control plane (--control-plane VERSION): its own
loopback port beside the API server, backed by the same store, with
every exchange judged against the release's published OpenAPI document.
server.py routes (distinf.py the distributed inferences' routes,
errors.py their error answer), state.py maps workloads onto cluster
objects and objects.py makes them, views.py shapes answers per release,
tokens.py issues and renews logins, profiles.py says what differs
between releases, judge.py judges."""
