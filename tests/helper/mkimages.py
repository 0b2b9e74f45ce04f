#!/usr/bin/env python3
"""Build image archives for the runai-adm images tests, with no network and
no Docker daemon, byte for byte deterministic (fixed mtimes, gzip mtime 0).

    mkimages.py legacy OUT.tar      docker save before Docker 25 (GNU tar,
                                    long member names, a shared layer stored
                                    as a symlink, repositories file)
    mkimages.py docker25 OUT.tar    docker save from Docker 25 (PAX tar: OCI
                                    layout plus manifest.json)
    mkimages.py ocidir OUT/         OCI image layout directory, gzip layers,
                                    two images and a multi-platform index with
                                    one platform absent
    mkimages.py ociarchive OUT.tar  the same layout in a tar (oci-archive)
    mkimages.py layers OUT.tar N SIZE [SEED]
                                    docker save (legacy) of one image,
                                    registry.example/bench/big:1, with N
                                    layers of SIZE bytes of pseudo-random
                                    data each (for pushes of some size)
    mkimages.py mixed OUT.tar       docker save (legacy) of one image,
                                    registry.example/gz/mixed:1, whose
                                    layer.tar files are raw bytes of each
                                    kind --compress gzip meets: random,
                                    text, both in one, empty, one byte

Each prints a JSON summary on stdout: per image its references, manifest
digest (computed here, independently of the C code), config digest and
layer digests and sizes.
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

MTIME = 1700000000


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def layer_tar(files):
    """An uncompressed layer tar with the given {path: bytes}."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in sorted(files.items()):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = MTIME
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as g:
        g.write(data)
    return buf.getvalue()


LAYER_BASE = layer_tar({"etc/os-release": b"ID=test\n",
                        "bin/hello": b"#!/bin/sh\necho hello\n" * 50})
LAYER_APP1 = layer_tar({"app/one.txt": b"first image\n" * 100})
LAYER_APP2 = layer_tar({"app/two.txt": b"second image\n" * 300})


def config(layers, cmd):
    c = {"architecture": "amd64", "os": "linux",
         "config": {"Cmd": [cmd]},
         "rootfs": {"type": "layers", "diff_ids": [sha(l) for l in layers]},
         "history": [{"created_by": "test"} for _ in layers]}
    return json.dumps(c, sort_keys=True, separators=(",", ":")).encode()


IMAGES = [
    {"refs": ["registry.example/run-ai/one:1.0"],
     "layers": [LAYER_BASE, LAYER_APP1], "cmd": "/app/one"},
    {"refs": ["registry.example/run-ai/two:2.0", "registry.example/run-ai/two:latest"],
     "layers": [LAYER_BASE, LAYER_APP2], "cmd": "/app/two"},
]


class Tar:
    def __init__(self, path, fmt):
        self.t = tarfile.open(path, "w", format=fmt)

    def file(self, name, data):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        ti.mtime = MTIME
        ti.mode = 0o644
        self.t.addfile(ti, io.BytesIO(data))

    def dir(self, name):
        ti = tarfile.TarInfo(name)
        ti.type = tarfile.DIRTYPE
        ti.mtime = MTIME
        ti.mode = 0o755
        self.t.addfile(ti)

    def link(self, name, target, sym=True):
        ti = tarfile.TarInfo(name)
        ti.type = tarfile.SYMTYPE if sym else tarfile.LNKTYPE
        ti.linkname = target
        ti.mtime = MTIME
        self.t.addfile(ti)

    def close(self):
        self.t.close()


def legacy(out):
    t = Tar(out, tarfile.GNU_FORMAT)
    manifest, repos, summary = [], {}, []
    seen = {}
    for im in IMAGES:
        cfg = config(im["layers"], im["cmd"])
        cfgname = hashlib.sha256(cfg).hexdigest() + ".json"
        t.file(cfgname, cfg)
        paths = []
        for l in im["layers"]:
            # a long directory name: exercises GNU 'L' long names
            lid = hashlib.sha256(b"id" + l).hexdigest() + "-" + "x" * 60
            p = lid + "/layer.tar"
            if l in seen:
                # docker stores a layer shared by two images once; here the
                # second copy is a symlink to the first
                t.dir(lid + "-again")
                p = lid + "-again/layer.tar"
                t.link(p, "../" + seen[l])
            else:
                t.dir(lid)
                t.file(lid + "/VERSION", b"1.0")
                t.file(p, l)
                seen[l] = p
            paths.append(p)
        manifest.append({"Config": cfgname, "RepoTags": im["refs"], "Layers": paths})
        for r in im["refs"]:
            repo, tag = r.rsplit(":", 1)
            repos.setdefault(repo, {})[tag] = hashlib.sha256(b"id" + im["layers"][-1]).hexdigest()
        cd = {"mediaType": "application/vnd.oci.image.config.v1+json",
              "digest": sha(cfg), "size": len(cfg)}
        lds = [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                "digest": sha(l), "size": len(l)} for l in im["layers"]]
        summary.append({"references": im["refs"], "config": sha(cfg),
                        "layers": [sha(l) for l in im["layers"]],
                        "sizes": [len(l) for l in im["layers"]],
                        "configSize": len(cfg), "descriptors": [cd] + lds})
    t.file("repositories", json.dumps(repos).encode())
    t.file("manifest.json", json.dumps(manifest).encode())
    t.close()
    return summary


def oci_blobs(compress):
    """blobs {digest: bytes}, index descriptors, summary."""
    blobs, descs, summary = {}, [], []
    for im in IMAGES:
        cfg = config(im["layers"], im["cmd"])
        blobs[sha(cfg)] = cfg
        lds = []
        for l in im["layers"]:
            b = gz(l) if compress else l
            blobs[sha(b)] = b
            lds.append({"mediaType": "application/vnd.oci.image.layer.v1.tar" +
                        ("+gzip" if compress else ""),
                        "digest": sha(b), "size": len(b)})
        m = {"schemaVersion": 2,
             "mediaType": "application/vnd.oci.image.manifest.v1+json",
             "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                        "digest": sha(cfg), "size": len(cfg)},
             "layers": lds}
        mb = json.dumps(m, indent=2).encode()
        blobs[sha(mb)] = mb
        descs.append((im, {"mediaType": m["mediaType"], "digest": sha(mb),
                           "size": len(mb)}))
        summary.append({"references": im["refs"], "digest": sha(mb),
                        "config": sha(cfg),
                        "layers": [d["digest"] for d in lds],
                        "sizes": [d["size"] for d in lds]})
    return blobs, descs, summary


def write_layout(put, compress, docker25=False):
    blobs, descs, summary = oci_blobs(compress)
    entries = []
    for im, d in descs:
        for r in im["refs"]:
            e = dict(d)
            if docker25:
                e["annotations"] = {"io.containerd.image.name": "docker.io/" + r,
                                    "org.opencontainers.image.ref.name": r.rsplit(":", 1)[1]}
            else:
                e["annotations"] = {"org.opencontainers.image.ref.name": r}
            entries.append(e)
    if not docker25:
        # a multi-platform index whose arm64 manifest was never pulled
        amd = descs[0][1]
        idx = {"schemaVersion": 2,
               "mediaType": "application/vnd.oci.image.index.v1+json",
               "manifests": [dict(amd, platform={"architecture": "amd64", "os": "linux"}),
                             {"mediaType": amd["mediaType"], "size": 1234,
                              "digest": sha(b"absent arm64 manifest"),
                              "platform": {"architecture": "arm64", "os": "linux"}}]}
        ib = json.dumps(idx).encode()
        blobs[sha(ib)] = ib
        entries.append({"mediaType": idx["mediaType"], "digest": sha(ib),
                        "size": len(ib),
                        "annotations": {"org.opencontainers.image.ref.name":
                                        "registry.example/run-ai/multi:3.0"}})
        # the index's present manifest is image one's: one image, two refs
        summary[0]["references"] = summary[0]["references"] + ["registry.example/run-ai/multi:3.0"]
    put("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
    for dg in sorted(blobs):
        put("blobs/sha256/" + dg[7:], blobs[dg])
    put("index.json", json.dumps({"schemaVersion": 2,
                                  "mediaType": "application/vnd.oci.image.index.v1+json",
                                  "manifests": entries}).encode())
    if docker25:
        mj = []
        for im, d in descs:
            m = json.loads(blobs[d["digest"]])
            mj.append({"Config": "blobs/sha256/" + m["config"]["digest"][7:],
                       "RepoTags": im["refs"],
                       "Layers": ["blobs/sha256/" + l["digest"][7:] for l in m["layers"]]})
        put("manifest.json", json.dumps(mj).encode())
    return summary


def big_legacy(out, n, size, seed):
    """One image of n incompressible layers, each a tar of one file."""
    import random
    rnd = random.Random(seed)
    t = Tar(out, tarfile.GNU_FORMAT)
    layers, paths = [], []
    for i in range(n):
        # the tar headers take 1.5 KiB; the file fills the rest
        data = rnd.randbytes(max(size - 2048, 0))
        lt = layer_tar({"data/%d.bin" % i: data})
        lid = hashlib.sha256(b"id%d" % i + lt[:4096]).hexdigest()
        t.dir(lid)
        t.file(lid + "/layer.tar", lt)
        layers.append((sha(lt), len(lt)))
        paths.append(lid + "/layer.tar")
    c = {"architecture": "amd64", "os": "linux", "config": {"Cmd": ["/big"]},
         "rootfs": {"type": "layers", "diff_ids": [d for d, _ in layers]},
         "history": [{"created_by": "test"} for _ in layers]}
    cfg = json.dumps(c, sort_keys=True, separators=(",", ":")).encode()
    cfgname = hashlib.sha256(cfg).hexdigest() + ".json"
    t.file(cfgname, cfg)
    ref = "registry.example/bench/big:1"
    t.file("manifest.json", json.dumps([{"Config": cfgname, "RepoTags": [ref],
                                         "Layers": paths}]).encode())
    t.close()
    return [{"references": [ref], "config": sha(cfg), "configSize": len(cfg),
             "layers": [d for d, _ in layers], "sizes": [s for _, s in layers],
             "descriptors": [{"mediaType": "application/vnd.oci.image.config.v1+json",
                              "digest": sha(cfg), "size": len(cfg)}] +
             [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
               "digest": d, "size": s} for d, s in layers]}]


def mixed_legacy(out):
    """One image whose layers are incompressible, compressible, mixed,
    empty and tiny (the bytes of each layer.tar, not real tars)."""
    import random
    rnd = random.Random(5)
    text = b"".join(b"line %d of a text layer %s\n" % (i, b"x" * (i % 37))
                    for i in range(40000))
    noise = rnd.randbytes(700 << 10)
    contents = [noise, text, text[:300 << 10] + noise[:400 << 10] + text,
                b"", b"z"]
    t = Tar(out, tarfile.GNU_FORMAT)
    paths = []
    for i, data in enumerate(contents):
        lid = hashlib.sha256(b"mixed%d" % i).hexdigest()
        t.dir(lid)
        t.file(lid + "/layer.tar", data)
        paths.append(lid + "/layer.tar")
    c = {"architecture": "amd64", "os": "linux", "config": {"Cmd": ["/m"]},
         "rootfs": {"type": "layers", "diff_ids": [sha(d) for d in contents]},
         "history": [{"created_by": "test"} for _ in contents]}
    cfg = json.dumps(c, sort_keys=True, separators=(",", ":")).encode()
    cfgname = hashlib.sha256(cfg).hexdigest() + ".json"
    t.file(cfgname, cfg)
    ref = "registry.example/gz/mixed:1"
    t.file("manifest.json", json.dumps([{"Config": cfgname, "RepoTags": [ref],
                                         "Layers": paths}]).encode())
    t.close()
    return [{"references": [ref], "config": sha(cfg), "configSize": len(cfg),
             "layers": [sha(d) for d in contents],
             "sizes": [len(d) for d in contents], "paths": paths}]


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "mixed":
        summary = mixed_legacy(out)
    elif kind == "layers":
        summary = big_legacy(out, int(sys.argv[3]), int(sys.argv[4]),
                             int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    elif kind == "legacy":
        summary = legacy(out)
    elif kind in ("docker25", "ociarchive"):
        t = Tar(out, tarfile.PAX_FORMAT)
        if kind == "docker25":
            t.dir("blobs")
            t.dir("blobs/sha256")
        summary = write_layout(t.file, compress=(kind == "ociarchive"),
                               docker25=(kind == "docker25"))
        t.close()
    elif kind == "ocidir":
        def put(name, data):
            p = os.path.join(out, name)
            os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        summary = write_layout(put, compress=True)
    else:
        sys.exit("unknown kind " + kind)
    json.dump(summary, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
