"""The control plane's assets (environments, compute resources, data
sources, credentials), planted through /_sim/controlplane
{"assets": [...]} and served by GET /api/v1/asset/environment, /compute,
/datasource and /credentials, the lists every release's document has.

A planted asset is {kind, name, scope, spec, description?}: kind one of
the document's AssetKind values (environment, compute, nfs, pvc, s3,
git, hostPath, config-map, secret-volume, accessKey, dockerRegistry,
password, genericSecret, ngcApiKey), scope "tenant", "cluster" (the
emulated one) or "project:NAME", spec the kind's own spec as the
document shapes it (the judge checks it in every answer). The emulator
adds the meta: id, times, creator, the scope's ids."""

import uuid

from kubesim.store import now_rfc3339

from kubesim.controlplane.state import TENANT_ID

# each list's kinds, and the key a data source's or credential's spec
# sits under in its list entry (DatasourceListResponseAssetSpec,
# CredentialsListResponseAssetSpec)
GROUPS = {
    "environment": {"environment": None},
    "compute": {"compute": None},
    "datasource": {"nfs": "nfs", "pvc": "pvc", "s3": "s3", "git": "git",
                   "hostPath": "hostPath", "config-map": "config_map",
                   "secret-volume": "secret"},
    "credentials": {"accessKey": "accessKey", "password": "password",
                    "dockerRegistry": "dockerRegistry", "genericSecret": "genericSecret",
                    "ngcApiKey": "ngcApiKey"},
}
KINDS = {kind: group for group, kinds in GROUPS.items() for kind in kinds}


class AssetError(ValueError):
    pass


def plant(state, items):
    """The planted assets, each checked and given its meta."""
    out = []
    for a in items or []:
        kind, name = a.get("kind"), a.get("name")
        if kind not in KINDS:
            raise AssetError("asset kind %r: one of %s" % (kind, ", ".join(sorted(KINDS))))
        if not isinstance(name, str) or not name:
            raise AssetError("an asset needs a name")
        scope = a.get("scope") or "tenant"
        if scope not in ("tenant", "cluster") and not scope.startswith("project:"):
            raise AssetError("asset scope %r: tenant, cluster or project:NAME" % scope)
        now = now_rfc3339()
        out.append({"id": str(uuid.uuid4()), "kind": kind, "name": name, "scope": scope,
                    "description": a.get("description"), "spec": a.get("spec") or {},
                    "createdAt": now})
    return out


def _meta(state, a):
    meta = {"name": a["name"], "scope": "tenant", "id": a["id"], "kind": a["kind"],
            "tenantId": TENANT_ID, "createdBy": "admin@run.ai", "createdAt": a["createdAt"],
            "updatedBy": "admin@run.ai", "updatedAt": a["createdAt"]}
    if a.get("description"):
        meta["description"] = a["description"]
    if a["scope"] == "cluster":
        meta.update(scope="cluster", clusterId=state.cluster_id)
    elif a["scope"].startswith("project:"):
        project = _project(state, a)
        meta.update(scope="project", clusterId=state.cluster_id,
                    projectId=int(project["id"]) if project else 0,
                    projectName=a["scope"].split(":", 1)[1])
    return meta


def _project(state, a):
    name = a["scope"].split(":", 1)[1]
    return next((p for p in state.projects() if p["name"] == name), None)


def entry(state, a, status):
    """The asset as its list gives it."""
    key = GROUPS[KINDS[a["kind"]]][a["kind"]]
    out = {"meta": _meta(state, a), "spec": {key: a["spec"]} if key else a["spec"]}
    if status and KINDS[a["kind"]] in ("datasource", "credentials"):
        out["status"] = {"status": "No issues found"}
    return out


def _visible(state, a, query):
    """The list's filters: name, scope, and projectId / clusterId (that
    scope's own assets and those of the scopes above it)."""
    meta = _meta(state, a)
    name = query.get("name", [None])[0]
    if name is not None and meta["name"] != name:
        return False
    scope = query.get("scope", [None])[0]
    if scope is not None and meta["scope"] != scope:
        return False
    pid = query.get("projectId", [None])[0]
    if pid is not None and meta["scope"] == "project" and str(meta["projectId"]) != pid:
        return False
    if pid is not None and scope == "project" and meta["scope"] != "project":
        return False
    cid = query.get("clusterId", [None])[0]
    if cid is not None and meta["scope"] in ("cluster", "project") and \
            meta.get("clusterId") != cid:
        return False
    return True


def listing(state, assets, group, query):
    """{"entries": [...]}: the group's assets the query selects, in the
    order they were planted (the document promises no order: a client
    sorts them itself)."""
    status = query.get("statusInfo", ["false"])[0] == "true"
    chosen = [a for a in assets if KINDS[a["kind"]] == group and _visible(state, a, query)]
    return {"entries": [entry(state, a, status) for a in chosen]}
