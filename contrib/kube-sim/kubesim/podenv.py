"""Where and how a new process of a pod runs: its sandbox view (user,
working directory, limits), its environment, and for a GPU pod the
nvidia-smi it finds on its PATH with the file of its GPUs; and which pod
commands the host can run for real.

podproc.ProcessTable.place asks `placement` for every process it starts
(exec, attach console, the pod's own command), so all of a pod's
processes see the same pod.
"""

import json
import os
import shutil

from kubesim import gpuview, podnet, podvolumes, sandbox
from kubesim.objutil import number
from kubesim.podreq import container_spec
from kubesim.quantity import QuantityError, parse as parse_quantity

EXEC_PATH = "/usr/local/bin:/usr/bin:/bin"
HERE = os.path.dirname(os.path.abspath(__file__))


def pod_env(pod, container, tty, home, gpus=None):
    """A small, predictable environment plus the container's own env."""
    env = {"PATH": EXEC_PATH, "HOME": home, "HOSTNAME": pod["metadata"]["name"],
           podnet.ENV: podnet.pod_address(pod)}
    if tty:
        env["TERM"] = "xterm"
    if gpus:
        env["PATH"] = gpus[0] + ":" + EXEC_PATH
        env["NVIDIA_VISIBLE_DEVICES"] = ",".join(g["uuid"] for g in gpus[1])
    for item in container_spec(pod, container).get("env") or []:
        if isinstance(item, dict) and item.get("name") and "value" in item:
            env[item["name"]] = str(item["value"])
    return env


def limits(pod, container):
    """Bytes of the container's memory and ephemeral-storage limits."""
    out = {}
    limits = (container_spec(pod, container).get("resources") or {}).get("limits") or {}
    for key in ("memory", "ephemeral-storage"):
        if key in limits:
            try:
                out[key] = int(parse_quantity(limits[key])[0])
            except QuantityError:
                pass
    return out


def run_as(pod, container):
    """(uid, gid) from the container's securityContext, else the pod's."""
    uid = gid = None
    for ctx in ((pod.get("spec") or {}).get("securityContext") or {},
                container_spec(pod, container).get("securityContext") or {}):
        if ctx.get("runAsUser") is not None:
            uid = int(number(ctx.get("runAsUser"), 0))
        if ctx.get("runAsGroup") is not None:
            gid = int(number(ctx.get("runAsGroup"), 0))
    return uid, gid


_NVIDIA_MADE = set()

# Images whose programs this host has too (a shell, coreutils, python3):
# a pod of one of them with a command runs it for real, in its sandbox.
# Any other image (pytorch, a notebook...) keeps the simulated training
# run, since its programs are not here.
RUNNABLE_IMAGES = ("busybox", "alpine", "ubuntu", "debian", "bash", "python")


# Notebook images (jupyter/base-notebook, quay.io/jupyter/scipy-notebook...)
# run kube-sim's notebook (notebook.py) for their start script: it serves
# and logs like Jupyter. Another command in them runs for real, as their
# shell and python3 are this host's too.
NOTEBOOK_STARTS = ("start-notebook.sh", "start-notebook.py", "start.sh", "jupyter",
                   "jupyter-lab", "jupyter-notebook", "jupyter-server")
TOOLS_DIR = "/opt/kube-sim"          # where a pod finds kube-sim's notebook
NOTEBOOK = TOOLS_DIR + "/notebook.py"
_TOOLS_MADE = set()


def image_repo(image):
    return (image or "").rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]


def is_notebook_image(image):
    repo = image_repo(image)
    owner = (image or "").split("@", 1)[0].rsplit("/", 2)
    return repo.endswith("notebook") or repo in ("jupyterlab", "jupyter") or \
        (len(owner) >= 2 and owner[-2] == "jupyter")


def runnable_argv(pod, container, notebook=NOTEBOOK):
    """The container's command line when the host can run its image, else
    None (no command: the image's entrypoint is unknown here). A notebook
    image's start (no command, or its start script) is kube-sim's
    notebook at `notebook`, with the arguments it was given."""
    c = container_spec(pod, container)
    argv = [str(a) for a in (c.get("command") or []) + (c.get("args") or [])]
    if is_notebook_image(c.get("image")):
        if not argv or os.path.basename(argv[0]) in NOTEBOOK_STARTS:
            return ["/usr/bin/python3", "-I", notebook] + argv[1:]
        return argv
    if not argv or image_repo(c.get("image")) not in RUNNABLE_IMAGES:
        return None
    return argv


def tool_files(state_dir):
    """STATE/tools/: kube-sim's programs pods run (the notebook), bound
    read-only at TOOLS_DIR; fresh copies once per run."""
    top = os.path.join(state_dir, "tools")
    if top not in _TOOLS_MADE:
        _TOOLS_MADE.add(top)
        os.makedirs(top, exist_ok=True)
        os.chmod(top, 0o755)
        tmp = os.path.join(top, "notebook.py.tmp")
        shutil.copyfile(os.path.join(HERE, "notebook.py"), tmp)
        os.chmod(tmp, 0o644)
        os.rename(tmp, os.path.join(top, "notebook.py"))
    return top


def nvidia_files(state_dir):
    """The nvidia-smi every GPU pod runs (bin/nvidia-smi, with copies of
    nvsmi.py and gpuload.py in lib/), made once per state directory."""
    top = os.path.join(state_dir, "nvidia")
    exe = os.path.join(top, "bin", "nvidia-smi")
    if top not in _NVIDIA_MADE:  # fresh copies once per run
        _NVIDIA_MADE.add(top)
        # every GPU pod's user reads them (bound at /opt/nvidia), whatever
        # kube-sim's umask
        for d in (top, os.path.join(top, "lib"), os.path.join(top, "bin")):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o755)
        for name in ("nvsmi.py", "gpuload.py"):
            shutil.copyfile(os.path.join(HERE, name), os.path.join(top, "lib", name))
            os.chmod(os.path.join(top, "lib", name), 0o644)
        tmp = exe + ".tmp"
        with open(tmp, "w") as f:
            f.write("#!/usr/bin/python3 -I\n"
                    "import os, sys\n"
                    "here = os.path.dirname(os.path.realpath(sys.argv[0]))\n"
                    "sys.path.insert(0, os.path.join(here, '..', 'lib'))\n"
                    "import nvsmi\n"
                    "sys.exit(nvsmi.run_file(os.environ.get('KUBE_SIM_GPU_SPEC', '%s')))\n"
                    % sandbox.NVIDIA_SPEC)
        os.chmod(tmp, 0o755)
        os.rename(tmp, exe)
    return top


def placement(sim, pod, container, tty, scratch, policy):
    """(cwd, env, view) for a new process of `pod` under `policy` (host:
    view None, the scratch directory as cwd)."""
    name = pod["metadata"]["name"]
    spec = gpuview.pod_spec(sim.store, pod)
    gpus = None
    if spec["gpus"]:
        top = nvidia_files(sim.state_dir)
        # .etc is kube-sim's: no pod can write there (View.prepare)
        path = os.path.join(scratch, ".etc", "gpus.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC,
                     0o644)
        with os.fdopen(fd, "w") as f:
            os.fchmod(fd, 0o644)  # the pod's user reads it, at /run/nvidia/pod.json
            json.dump(spec, f)
        os.rename(path + ".tmp", path)
        gpus = (top, path)
    if policy.mode == "host":
        env = pod_env(pod, container, tty, scratch,
                      (os.path.join(gpus[0], "bin"), spec["gpus"]) if gpus else None)
        if gpus:
            env["KUBE_SIM_GPU_SPEC"] = gpus[1]
        return scratch, env, None
    uid, gid = run_as(pod, container)
    volumes, skipped = podvolumes.mounts(sim, pod, container, scratch)
    view = sandbox.View(name, scratch, uid, gid,
                        container_spec(pod, container).get("workingDir"),
                        limits(pod, container), gpus, volumes,
                        tools=(tool_files(sim.state_dir), TOOLS_DIR))
    view.prepare()
    view.skipped[:0] = skipped
    env = pod_env(pod, container, tty, view.home,
                  (sandbox.NVIDIA_DIR + "/bin", spec["gpus"]) if gpus else None)
    return view.workdir, env, view
