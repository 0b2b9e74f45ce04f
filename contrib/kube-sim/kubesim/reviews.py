"""authorization.k8s.io/v1: SelfSubjectAccessReview (`kubectl auth can-i
VERB RESOURCE`) and SelfSubjectRulesReview (`kubectl auth can-i --list`),
answered from the access rules of auth.Authorizer. Both come as JSON or
as the protobuf kubectl sends (protobuf.py decodes them); the answers are
JSON, which every client accepts.
"""

from kubesim.auth import READ_VERBS
from kubesim.errors import bad_request

API_VERSION = "authorization.k8s.io/v1"
PLURALS = ("selfsubjectaccessreviews", "selfsubjectrulesreviews")
ALL = ["*"]


def serve(handler, res):
    body = handler.body_json()
    if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
        raise bad_request("a %s needs a spec" % res.kind)
    if res.plural == "selfsubjectaccessreviews":
        status = access_review(handler.sim.authz, handler.identity, body["spec"],
                               handler.sim.registry)
    else:
        status = rules_review(handler.sim.authz, handler.identity,
                              body["spec"].get("namespace") or "")
    handler.send_json(201, {"kind": res.kind, "apiVersion": API_VERSION,
                            "metadata": {"creationTimestamp": None},
                            "spec": body["spec"], "status": status})


def _cluster_scoped(registry, group, resource):
    return any(r.plural == resource and r.group == group and not r.namespaced
               for r in (registry.all() if registry else ()))


def access_review(authz, ident, spec, registry=None):
    """The status of a SelfSubjectAccessReview: may this user do that?
    kubectl names its current namespace also for cluster-scoped kinds
    (`auth can-i delete nodes`); there the namespace means nothing."""
    attrs = spec.get("resourceAttributes")
    if isinstance(attrs, dict):
        namespace = attrs.get("namespace") or None
        if _cluster_scoped(registry, attrs.get("group") or "", attrs.get("resource", "")):
            namespace = None
        allowed = authz.allowed(ident, attrs.get("verb", ""), attrs.get("resource", ""),
                                namespace, attrs.get("name") or None,
                                attrs.get("subresource", ""))
    else:
        path = (spec.get("nonResourceAttributes") or {}).get("path", "")
        allowed = authz.allowed_path(ident, path)
    status = {"allowed": allowed}
    if allowed:
        status["reason"] = "kube-sim: allowed" + (" (system:masters)" if ident.is_admin else "")
    return status


def rules_review(authz, ident, namespace):
    """The status of a SelfSubjectRulesReview: the rules this user has in
    `namespace`, in the words of the access rules (a project namespace
    the user may act in: everything; elsewhere: reading)."""
    if ident.is_admin:
        resource_rules = [{"verbs": ALL, "apiGroups": ALL, "resources": ALL}]
        non_resource = [{"verbs": ALL, "nonResourceURLs": ALL}]
    else:
        self_reviews = {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                        "resources": list(PLURALS)}
        if namespace and authz.allowed(ident, "create", "pods", namespace):
            resource_rules = [self_reviews, {"verbs": ALL, "apiGroups": ALL, "resources": ALL}]
        elif namespace and not authz.allowed(ident, "get", "pods", namespace):
            resource_rules = [self_reviews]
        else:
            resource_rules = [self_reviews, {"verbs": list(READ_VERBS), "apiGroups": ALL,
                                             "resources": ALL}]
        non_resource = [{"verbs": ["get"], "nonResourceURLs": [
            "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/readyz", "/version",
            "/version/", "/openapi", "/openapi/*"]}]
    return {"resourceRules": resource_rules, "nonResourceRules": non_resource,
            "incomplete": False}
