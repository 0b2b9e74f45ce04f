"""GPU arithmetic: how many GPUs (whole, or a fraction of one) a pod or a
pod template asks for, how much memory a node's GPUs have, and how the
scheduler writes GPU amounts.

The scheduler places by these numbers, the cluster snapshot counts with
them and the workload controller writes them into Run:ai's annotations;
keeping them apart from all three means every one reads the same figure.
Pure functions, no kubesim imports but objutil.
"""

from kubesim.objutil import annotation_of, label_of, number

GPU = "nvidia.com/gpu"
# MiB of memory per GPU, as NVIDIA GPU feature discovery labels a node;
# nodes without the label have an A100-80GB's.
GPU_MEMORY_LABEL = "nvidia.com/gpu.memory"
DEFAULT_GPU_MEMORY_MIB = 81920
EPS = 1e-6


def fmt_gpus(x):
    """GPU amounts as the scheduler writes them: "2", "0.5", "1.25"."""
    return "%g" % round(x, 4)


def gpu_memory_request(pod):
    """Run:ai's gpu-memory annotation: whole megabytes of one GPU, or None."""
    try:
        mb = int(str(annotation_of(pod, "gpu-memory")).strip())
    except (TypeError, ValueError):
        return None
    return mb if mb > 0 else None


def node_gpu_memory(node):
    mib = number(label_of(node or {}, GPU_MEMORY_LABEL), 0.0)
    return mib if mib > 0 else float(DEFAULT_GPU_MEMORY_MIB)


def gpu_request(pod, gpu_memory=DEFAULT_GPU_MEMORY_MIB):
    """(whole GPUs, fraction) a pod (or a pod template) asks for. Memory
    (annotation gpu-memory) is the share of a GPU of `gpu_memory` MiB it
    needs (more than 1 when it cannot fit); else a fraction in (0, 1) from
    annotation gpu-fraction wins over whole GPUs."""
    mb = gpu_memory_request(pod)
    if mb is not None:
        return 0.0, mb / float(gpu_memory)
    frac = number(annotation_of(pod, "gpu-fraction"), 0.0)
    if 0 < frac < 1:
        return 0.0, frac
    whole = 0.0
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        amount = (res.get("limits") or {}).get(GPU, (res.get("requests") or {}).get(GPU))
        whole += number(amount, 0.0)
    if frac >= 1:
        whole = max(whole, frac)
    return whole, 0.0


def pod_gpus(pod, gpu_memory=DEFAULT_GPU_MEMORY_MIB):
    whole, frac = gpu_request(pod, gpu_memory)
    return whole + frac
