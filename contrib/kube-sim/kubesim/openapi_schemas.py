"""The OpenAPI v3 schemas of the built-in kinds kube-sim serves, so that
`kubectl explain` walks their fields (pods.spec.containers,
services.spec.ports, ...). discovery.openapi_document puts them in the
group/version documents; kinds not described here keep an open schema.

Each definition is (description, {field: (type, description)}); a type
is "string", "integer", "boolean", "quantity" (int-or-string), "time",
"map" (of strings), "object" (free-form), another definition's name, or
one of these in brackets for an array. Every schema keeps
`x-kubernetes-preserve-unknown-fields`: kube-sim validates only what its
validation module checks, and says so.
"""

META = "io.k8s.apimachinery.pkg.apis.meta.v1."
CORE = "io.k8s.api.core.v1."

S, I, B, Q, T, M = "string", "integer", "boolean", "quantity", "time", "map"

DEFS = {
    "ObjectMeta": ("Metadata every persisted object has.", {
        "name": (S, "Unique within a namespace; cannot be changed."),
        "generateName": (S, "Prefix for a name the server generates when name is empty."),
        "namespace": (S, "The namespace the object lives in; empty for cluster-scoped kinds."),
        "uid": (S, "Unique id the server assigns; never reused."),
        "resourceVersion": (S, "Opaque version for optimistic concurrency and watches."),
        "generation": (I, "Sequence number of the desired state's changes."),
        "creationTimestamp": (T, "When the server stored the object."),
        "deletionTimestamp": (T, "When the object is to be deleted (set by the server)."),
        "labels": (M, "Key/value pairs that selectors match."),
        "annotations": (M, "Key/value pairs for tools; never used to select."),
        "ownerReferences": ("[OwnerReference]", "Objects this one depends on; when all are "
                            "gone, this one is garbage collected."),
        "finalizers": ("[string]", "Tasks that must finish before the object is removed."),
        "managedFields": ("[ManagedFieldsEntry]", "Which manager set which fields "
                          "(server-side apply)."),
    }),
    "OwnerReference": ("Names an object this one depends on.", {
        "apiVersion": (S, "API version of the owner."), "kind": (S, "Kind of the owner."),
        "name": (S, "Name of the owner."), "uid": (S, "UID of the owner."),
        "controller": (B, "True for the managing controller (at most one)."),
        "blockOwnerDeletion": (B, "Foreground deletion of the owner waits for this object."),
    }),
    "ManagedFieldsEntry": ("The fields one manager owns, from one kind of operation.", {
        "manager": (S, "Who manages the fields."),
        "operation": (S, "Apply or Update."), "apiVersion": (S, "Version of the fields."),
        "time": (T, "When the entry last changed."),
        "fieldsType": (S, "The format of fieldsV1: FieldsV1."),
        "fieldsV1": ("object", "The set of fields, as a tree."),
        "subresource": (S, "The subresource the fields were written through."),
    }),
    "Pod": ("A group of containers that run together on one node.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: Pod."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "spec": ("PodSpec", "What the pod should run."),
        "status": ("PodStatus", "What the pod is doing, as last observed (read-only)."),
    }),
    "PodTemplateSpec": ("The pods a workload makes.", {
        "metadata": ("ObjectMeta", "Metadata of the pods."),
        "spec": ("PodSpec", "What the pods run."),
    }),
    "PodSpec": ("What a pod runs and where.", {
        "containers": ("[Container]", "The containers of the pod; at least one. They cannot "
                       "be added or removed once the pod exists."),
        "initContainers": ("[Container]", "Containers that run to completion, in order, "
                           "before the others start."),
        "volumes": ("[Volume]", "Volumes the containers may mount."),
        "nodeName": (S, "The node the pod is bound to; set by the scheduler."),
        "nodeSelector": (M, "Labels a node must have to run the pod."),
        "schedulerName": (S, "The scheduler that places the pod."),
        "restartPolicy": (S, "Always, OnFailure or Never: when containers restart."),
        "serviceAccountName": (S, "The service account the pod runs as."),
        "securityContext": ("PodSecurityContext", "User and group settings for all "
                            "containers."),
        "tolerations": ("[Toleration]", "Taints the pod tolerates."),
        "priorityClassName": (S, "The pod's priority class."),
        "hostname": (S, "The pod's hostname; defaults to its name."),
        "subdomain": (S, "With a headless service, the pod's DNS subdomain."),
        "terminationGracePeriodSeconds": (I, "Seconds between the stop signal and the kill."),
        "imagePullSecrets": ("[LocalObjectReference]", "Secrets for pulling the images."),
    }),
    "Container": ("One program the pod runs, in its image.", {
        "name": (S, "Unique within the pod (DNS label); cannot be changed."),
        "image": (S, "The container image to run."),
        "imagePullPolicy": (S, "Always, Never or IfNotPresent."),
        "command": ("[string]", "The entrypoint; replaces the image's ENTRYPOINT."),
        "args": ("[string]", "Arguments to the entrypoint; replace the image's CMD."),
        "workingDir": (S, "The working directory; the image's default when empty."),
        "env": ("[EnvVar]", "Environment variables set in the container."),
        "ports": ("[ContainerPort]", "Ports the container serves (informational)."),
        "resources": ("ResourceRequirements", "Compute resources the container asks for "
                      "and may use."),
        "volumeMounts": ("[VolumeMount]", "Volumes mounted into the container's filesystem."),
        "securityContext": ("SecurityContext", "Security options of the container."),
        "stdin": (B, "Keep a stdin buffer open for attach."),
        "tty": (B, "Allocate a terminal; needs stdin."),
    }),
    "ContainerPort": ("A network port of a container.", {
        "name": (S, "Name services can refer to (IANA_SVC_NAME)."),
        "containerPort": (I, "The port number on the pod's IP."),
        "protocol": (S, "TCP, UDP or SCTP; TCP by default."),
        "hostPort": (I, "The port on the node's IP, if any."),
    }),
    "EnvVar": ("An environment variable of a container.", {
        "name": (S, "The variable's name."),
        "value": (S, "The value; $(VAR) references expand."),
        "valueFrom": ("object", "A source for the value (a field, a resource, a key of a "
                      "ConfigMap or Secret)."),
    }),
    "ResourceRequirements": ("Compute resources of a container.", {
        "limits": ("map-quantity", "The most the container may use."),
        "requests": ("map-quantity", "What the scheduler reserves for the container."),
    }),
    "VolumeMount": ("Where a volume appears in a container.", {
        "name": (S, "The volume's name, one of the pod's volumes."),
        "mountPath": (S, "The path in the container; must not contain ':'."),
        "readOnly": (B, "Mounted read-only."),
        "subPath": (S, "A path within the volume to mount instead of its root."),
    }),
    "Volume": ("A named volume of the pod; exactly one source is set.", {
        "name": (S, "The volume's name, unique within the pod."),
        "persistentVolumeClaim": ("PersistentVolumeClaimVolumeSource", "A claim in the "
                                  "pod's namespace."),
        "hostPath": ("HostPathVolumeSource", "A directory of the node."),
        "configMap": ("ConfigMapVolumeSource", "The keys of a ConfigMap, as files."),
        "secret": ("SecretVolumeSource", "The keys of a Secret, as files."),
        "emptyDir": ("EmptyDirVolumeSource", "A directory that lives as long as the pod."),
    }),
    "PersistentVolumeClaimVolumeSource": ("A reference to a claim.", {
        "claimName": (S, "The claim's name in the pod's namespace."),
        "readOnly": (B, "Mounted read-only."),
    }),
    "HostPathVolumeSource": ("A file or directory of the node.", {
        "path": (S, "The path on the node."),
        "type": (S, "What must be there: Directory, DirectoryOrCreate, File..."),
    }),
    "ConfigMapVolumeSource": ("A ConfigMap's keys as files.", {
        "name": (S, "The ConfigMap's name."),
        "items": ("[KeyToPath]", "Which keys, at which paths; all keys when empty."),
        "defaultMode": (I, "Mode bits of the files, 0644 by default."),
        "optional": (B, "Whether the ConfigMap may be missing."),
    }),
    "SecretVolumeSource": ("A Secret's keys as files.", {
        "secretName": (S, "The Secret's name."),
        "items": ("[KeyToPath]", "Which keys, at which paths; all keys when empty."),
        "defaultMode": (I, "Mode bits of the files, 0644 by default."),
        "optional": (B, "Whether the Secret may be missing."),
    }),
    "KeyToPath": ("One key as one file.", {
        "key": (S, "The key."), "path": (S, "The relative path of its file."),
        "mode": (I, "Mode bits of that file."),
    }),
    "EmptyDirVolumeSource": ("An empty directory made for the pod.", {
        "medium": (S, "\"\" for the node's disk, Memory for a tmpfs."),
        "sizeLimit": (Q, "The most the volume may hold."),
    }),
    "LocalObjectReference": ("Names an object in the same namespace.", {
        "name": (S, "The object's name."),
    }),
    "SecurityContext": ("Security options of one container.", {
        "runAsUser": (I, "The UID the process runs as."),
        "runAsGroup": (I, "The GID the process runs as."),
        "runAsNonRoot": (B, "Refuse to start as UID 0."),
        "allowPrivilegeEscalation": (B, "Whether a process may gain more privileges than "
                                     "its parent."),
        "privileged": (B, "Run as privileged (host-root equivalent)."),
        "readOnlyRootFilesystem": (B, "Mount the root filesystem read-only."),
    }),
    "PodSecurityContext": ("Security options of all containers of a pod.", {
        "runAsUser": (I, "The UID processes run as."),
        "runAsGroup": (I, "The GID processes run as."),
        "runAsNonRoot": (B, "Refuse to start as UID 0."),
        "fsGroup": (I, "A group that owns the volumes."),
    }),
    "Toleration": ("A taint the pod tolerates.", {
        "key": (S, "The taint key; empty with Exists matches all."),
        "operator": (S, "Exists or Equal."), "value": (S, "The value for Equal."),
        "effect": (S, "NoSchedule, PreferNoSchedule or NoExecute; empty: all."),
        "tolerationSeconds": (I, "How long a NoExecute taint is tolerated."),
    }),
    "PodStatus": ("The pod as last observed.", {
        "phase": (S, "Pending, Running, Succeeded, Failed or Unknown."),
        "conditions": ("[object]", "PodScheduled, Initialized, ContainersReady, Ready."),
        "hostIP": (S, "The node's IP."), "podIP": (S, "The pod's IP."),
        "startTime": (T, "When the kubelet took the pod."),
        "containerStatuses": ("[object]", "One per container: state, restarts, image."),
        "message": (S, "Why the pod is in this state."),
        "reason": (S, "A CamelCase word for why, such as Evicted."),
    }),
    "Service": ("A stable address for a set of pods.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: Service."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "spec": ("ServiceSpec", "How the service is reached and which pods serve it."),
        "status": ("object", "The load balancer, when there is one."),
    }),
    "ServiceSpec": ("How a service is reached.", {
        "type": (S, "ClusterIP, NodePort, LoadBalancer or ExternalName."),
        "selector": (M, "Labels of the pods that serve it."),
        "ports": ("[ServicePort]", "The ports the service exposes."),
        "clusterIP": (S, "The virtual IP; None for a headless service."),
        "externalTrafficPolicy": (S, "Cluster or Local."),
        "loadBalancerClass": (S, "The load balancer implementation, if not the default."),
    }),
    "ServicePort": ("A port of a service.", {
        "name": (S, "Unique within the service; required with several ports."),
        "port": (I, "The port the service exposes."),
        "targetPort": (Q, "The pods' port: a number or a named container port."),
        "nodePort": (I, "The port on every node (NodePort, LoadBalancer)."),
        "protocol": (S, "TCP, UDP or SCTP."),
    }),
    "ConfigMap": ("Configuration data as key/value pairs.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: ConfigMap."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "data": (M, "UTF-8 values by key."),
        "binaryData": (M, "Base64 values by key."),
        "immutable": (B, "Once true, the data cannot change."),
    }),
    "Secret": ("Confidential data as key/value pairs.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: Secret."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "data": (M, "Base64 values by key."),
        "stringData": (M, "Plain values by key, merged into data on write."),
        "type": (S, "What the data is for, such as Opaque."),
        "immutable": (B, "Once true, the data cannot change."),
    }),
    "PersistentVolumeClaim": ("A user's request for storage.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: PersistentVolumeClaim."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "spec": ("PersistentVolumeClaimSpec", "What storage is asked for."),
        "status": ("object", "The phase (Pending, Bound, Lost) and capacity."),
    }),
    "PersistentVolumeClaimSpec": ("What storage a claim asks for.", {
        "accessModes": ("[string]", "ReadWriteOnce, ReadOnlyMany, ReadWriteMany..."),
        "resources": ("ResourceRequirements", "requests.storage: the size."),
        "storageClassName": (S, "The class; the default class when absent."),
        "volumeName": (S, "The volume the claim is bound to."),
        "volumeMode": (S, "Filesystem or Block."),
    }),
    "Namespace": ("A scope for names.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: Namespace."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "spec": ("object", "Finalizers."), "status": ("object", "Active or Terminating."),
    }),
    "Node": ("A machine that runs pods.", {
        "apiVersion": (S, "Versioned schema of this representation: v1."),
        "kind": (S, "The REST resource's kind: Node."),
        "metadata": ("ObjectMeta", "Standard object metadata."),
        "spec": ("object", "Taints, unschedulable (cordon), pod CIDR."),
        "status": ("object", "Capacity, allocatable, conditions, addresses, versions."),
    }),
}

# the kinds with their own document entry, by (group, version, kind)
KINDS = {("", "v1", k): CORE + k for k in
         ("Pod", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim", "Namespace",
          "Node")}


def _full_name(name):
    return (META if name in ("ObjectMeta", "OwnerReference", "ManagedFieldsEntry")
            else CORE) + name


def _property(ftype, text):
    if ftype.startswith("[") and ftype.endswith("]"):
        inner = _property(ftype[1:-1], "")
        inner.pop("description", None)
        return {"type": "array", "items": inner, "description": text}
    simple = {S: {"type": "string"}, I: {"type": "integer", "format": "int32"},
              B: {"type": "boolean"}, T: {"type": "string", "format": "date-time"},
              Q: {"x-kubernetes-int-or-string": True},
              M: {"type": "object", "additionalProperties": {"type": "string"}},
              "map-quantity": {"type": "object", "additionalProperties":
                               {"x-kubernetes-int-or-string": True}},
              "object": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    if ftype in simple:
        out = dict(simple[ftype])
    else:
        out = {"allOf": [{"$ref": "#/components/schemas/" + _full_name(ftype)}]}
    if text:
        out["description"] = text
    return out


def schema(name, gvk=None):
    text, fields = DEFS[name]
    out = {"description": text, "type": "object",
           "properties": {f: _property(t, d) for f, (t, d) in fields.items()},
           "x-kubernetes-preserve-unknown-fields": True}
    if gvk:
        out["x-kubernetes-group-version-kind"] = [gvk]
    return out


def schemas_for(group, version, kind):
    """{schema name: schema} for a kind and every definition it reaches,
    or None when the kind is not described here."""
    top = KINDS.get((group, version, kind))
    if top is None:
        return None
    out, todo = {}, [kind]
    while todo:
        name = todo.pop()
        if _full_name(name) in out:
            continue
        gvk = {"group": group, "version": version, "kind": kind} if name == kind else None
        out[_full_name(name)] = schema(name, gvk)
        for ftype, _ in DEFS[name][1].values():
            inner = ftype.strip("[]")
            if inner in DEFS:
                todo.append(inner)
    return out


def schema_name(group, version, kind):
    return KINDS.get((group, version, kind))
