"""Discovery documents: /version, /api, /apis and the group/version lists.

Both shapes are served: the legacy APIVersions / APIGroupList /
APIResourceList walk, and aggregated discovery (APIGroupDiscoveryList),
which kubectl 1.32 asks for first and uses only when the response
Content-Type is exactly the one below.
"""

from kubesim import openapi_schemas
from kubesim.resources import version_priority

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = ("application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                      "as=APIGroupDiscoveryList")

VERSION = {
    "major": "1", "minor": "32", "gitVersion": "v1.32.5",
    "gitCommit": "9894294ef13a5b32803e3ca2c0d620a088cc84d1", "gitTreeState": "clean",
    "buildDate": "2025-05-15T09:00:00Z", "goVersion": "go1.23.8", "compiler": "gc",
    "platform": "linux/amd64",
}


def _gv(group, version):
    return version if not group else "%s/%s" % (group, version)


# --- aggregated ---------------------------------------------------------------

def _response_kind(res, kind=None):
    return {"group": res.group, "version": res.version, "kind": kind or res.kind}


def _aggregated_resource(res):
    entry = {"resource": res.plural, "responseKind": _response_kind(res),
             "scope": "Namespaced" if res.namespaced else "Cluster",
             "singularResource": res.singular, "verbs": list(res.verbs)}
    if res.short_names:
        entry["shortNames"] = list(res.short_names)
    if res.categories:
        entry["categories"] = list(res.categories)
    subs = [{"subresource": s, "responseKind": _response_kind(res, res.sub_kind(s)),
             "verbs": res.sub_verbs(s)} for s in res.subresources]
    if subs:
        entry["subresources"] = subs
    return entry


def aggregated(registry, core, api_version="apidiscovery.k8s.io/v2"):
    """The APIGroupDiscoveryList for /api (core=True) or /apis."""
    by_group = {}
    for res in registry.all():
        if (res.group == "") != core:
            continue
        versions = by_group.setdefault(res.group, {})
        versions.setdefault(res.version, []).append(_aggregated_resource(res))
    items = []
    for group, versions in by_group.items():
        meta = {"creationTimestamp": None}
        if group:
            meta["name"] = group
        items.append({"metadata": meta, "versions": [
            {"version": v, "resources": sorted(rs, key=lambda r: r["resource"]),
             "freshness": "Current"}
            for v, rs in sorted(versions.items(), key=lambda kv: version_priority(kv[0]))]})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": api_version,
            "metadata": {}, "items": items}


# --- legacy -------------------------------------------------------------------

def api_versions(server_address):
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                            "serverAddress": server_address}]}


def _api_group(group, versions):
    vs = [{"groupVersion": _gv(group, v), "version": v} for v in versions]
    return {"name": group, "versions": vs, "preferredVersion": vs[0]}


def api_group_list(registry):
    groups = [_api_group(g, vs) for g, vs in registry.group_versions().items() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(registry, group):
    versions = registry.group_versions().get(group)
    if not versions:
        return None
    return dict(_api_group(group, versions), kind="APIGroup", apiVersion="v1")


def resource_list(registry, group, version):
    """The APIResourceList for one group/version, or None if not served."""
    entries = []
    for res in registry.all():
        if res.group != group or res.version != version:
            continue
        entry = {"name": res.plural, "singularName": res.singular,
                 "namespaced": res.namespaced, "kind": res.kind, "verbs": list(res.verbs)}
        if res.short_names:
            entry["shortNames"] = list(res.short_names)
        if res.categories:
            entry["categories"] = list(res.categories)
        entries.append(entry)
        for sub in res.subresources:
            entries.append({"name": "%s/%s" % (res.plural, sub), "singularName": "",
                            "namespaced": res.namespaced, "kind": res.sub_kind(sub),
                            "verbs": res.sub_verbs(sub)})
    if not entries:
        return None
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": _gv(group, version), "resources": entries}


# --- OpenAPI v3 (just enough for kubectl) --------------------------------------
#
# kubectl apply/create decide from the OpenAPI v3 documents whether the server
# validates fields itself (the `fieldValidation` query parameter on writes).
# These documents say so for every resource, with an open schema per kind;
# kubectl then sends fieldValidation=Strict and skips client-side validation.

def _gv_path(group, version):
    return "api/" + version if not group else "apis/%s/%s" % (group, version)


def openapi_index(registry):
    paths = {}
    for group, versions in registry.group_versions().items():
        for v in versions:
            p = _gv_path(group, v)
            paths[p] = {"serverRelativeURL": "/openapi/v3/%s" % p}
    return {"paths": paths}


def _schema_name(res):
    return "%s.%s.%s" % (res.group or "core", res.version, res.kind)


def openapi_document(registry, group, version):
    """The OpenAPI v3 document of one group/version, or None."""
    paths, schemas = {}, {}
    prefix = "/" + _gv_path(group, version)
    for res in registry.all():
        if res.group != group or res.version != version:
            continue
        gvk = {"group": group, "version": version, "kind": res.kind}
        described = openapi_schemas.schemas_for(group, version, res.kind)
        name = openapi_schemas.schema_name(group, version, res.kind) if described else \
            _schema_name(res)
        ref = {"$ref": "#/components/schemas/" + name}
        write = {"parameters": [{"name": "fieldValidation", "in": "query",
                                 "schema": {"type": "string"}},
                                {"name": "dryRun", "in": "query", "schema": {"type": "string"}}],
                 "requestBody": {"content": {"application/json": {"schema": ref}}},
                 "responses": {"200": {"description": "OK"}},
                 "x-kubernetes-group-version-kind": gvk}
        coll = prefix + ("/namespaces/{namespace}/" if res.namespaced else "/") + res.plural
        paths[coll] = {"post": dict(write, **{"x-kubernetes-action": "post"})}
        paths[coll + "/{name}"] = {
            "put": dict(write, **{"x-kubernetes-action": "put"}),
            "patch": dict(write, **{"x-kubernetes-action": "patch"})}
        if described:
            schemas.update(described)
            continue
        schemas[_schema_name(res)] = {
            "type": "object", "x-kubernetes-preserve-unknown-fields": True,
            "x-kubernetes-group-version-kind": [gvk]}
    if not paths:
        return None
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (kube-sim)", "version": "v1.32.5"},
            "paths": paths, "components": {"schemas": schemas}}
