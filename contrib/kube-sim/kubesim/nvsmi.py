"""The `nvidia-smi` a GPU pod runs: it answers like the real one for the
GPUs and the share of them the pod holds (a 0.5 pod on an 80 GB GPU sees
40960 MiB), with utilization and memory in use from the load model
(gpuload.py), so what a user sees inside a pod agrees with `runai top`.

Covered: `--query-gpu=F,...` with `--format=csv[,noheader][,nounits]`,
`-i ID`, `-L`, `--version`, the default table, and `-l S` / `-lms MS`
loops; the output follows captures of a real nvidia-smi 580 (H100), byte
for byte in layout, units and error messages.

The pod's GPUs come from a JSON file (`pod_spec`, written by podproc when
the pod's sandbox is made). Pure but for `main`; no kubesim imports other
than gpuload, because the pod runs a copy of these two files.
"""

import json
import sys
import time

try:
    from kubesim import gpuload
except ImportError:  # the copy inside a pod
    import gpuload

# field -> (header with unit, unit suffix when units are shown)
FIELDS = {
    "timestamp": ("timestamp", ""),
    "driver_version": ("driver_version", ""),
    "count": ("count", ""),
    "name": ("name", ""),
    "index": ("index", ""),
    "uuid": ("uuid", ""),
    "serial": ("serial", ""),
    "pci.bus_id": ("pci.bus_id", ""),
    "persistence_mode": ("persistence_mode", ""),
    "pstate": ("pstate", ""),
    "fan.speed": ("fan.speed [%]", " %"),
    "temperature.gpu": ("temperature.gpu", ""),
    "utilization.gpu": ("utilization.gpu [%]", " %"),
    "utilization.memory": ("utilization.memory [%]", " %"),
    "memory.total": ("memory.total [MiB]", " MiB"),
    "memory.used": ("memory.used [MiB]", " MiB"),
    "memory.free": ("memory.free [MiB]", " MiB"),
    "memory.reserved": ("memory.reserved [MiB]", " MiB"),
    "power.draw": ("power.draw [W]", " W"),
    "power.limit": ("power.limit [W]", " W"),
    "power.max_limit": ("power.max_limit [W]", " W"),
    "mig.mode.current": ("mig.mode.current", ""),
    "mig.mode.pending": ("mig.mode.pending", ""),
    "compute_mode": ("compute_mode", ""),
}
ALIASES = {"gpu_name": "name", "gpu_uuid": "uuid", "gpu_bus_id": "pci.bus_id",
           "temperature.gpu.current": "temperature.gpu", "utilization.gpu.current":
           "utilization.gpu", "power.draw.instant": "power.draw"}
RESERVED_MIB = 512           # the driver keeps this much of each GPU's memory


def sample(gpu, now):
    """One GPU as the pod sees it at `now`: a dict of every field."""
    share = float(gpu.get("share", 1.0))
    total = int(gpu["memory_mib"] * share)
    util, mem = gpuload.pod_load(gpu.get("seed", ""), gpu.get("kind", "train"),
                                 float(gpu.get("start", now)), now)
    used = int(total * mem) if util or mem else 0
    temp, power = gpuload.device_sample(util, used, gpu.get("tdp", 400), gpu.get("idle", 60),
                                        gpu.get("uuid", ""))
    reserved = min(RESERVED_MIB, total // 16)
    return {
        "name": gpu["name"], "uuid": gpu["uuid"], "pci.bus_id": gpu["bus_id"],
        "serial": gpu.get("serial", "1652%09d" % int(gpuload.unit(gpu["uuid"]) * 1e9)),
        "persistence_mode": "Enabled", "pstate": "P0", "fan.speed": "[N/A]",
        "temperature.gpu": str(temp), "utilization.gpu": str(util),
        "utilization.memory": str(min(100, util // 2)),
        "memory.total": str(total), "memory.used": str(used),
        "memory.reserved": str(reserved),
        "memory.free": str(max(0, total - used - reserved)),
        "power.draw": "%.2f" % power, "power.limit": "%.2f" % gpu.get("tdp", 400),
        "power.max_limit": "%.2f" % gpu.get("tdp", 400),
        "mig.mode.current": "Disabled", "mig.mode.pending": "Disabled",
        "compute_mode": "Default", "driver_version": gpuload.DRIVER,
    }


def query_rows(gpus, fields, now, header=True, units=True):
    """The lines of --query-gpu; raises ValueError with nvidia-smi's
    message for an unknown field."""
    names = []
    for f in fields:
        f = ALIASES.get(f.strip(), f.strip())
        if f not in FIELDS:
            raise ValueError('Field "%s" is not a valid field to query.' % f)
        names.append(f)
    lines = []
    if header:
        lines.append(", ".join(FIELDS[f][0] for f in names))
    stamp = time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(now)) + \
        ".%03d" % int((now % 1) * 1000)
    for i, gpu in enumerate(gpus):
        s = sample(gpu, now)
        s.update({"index": str(i), "count": str(len(gpus)), "timestamp": stamp})
        cells = []
        for f in names:
            v = s[f]
            if units and FIELDS[f][1] and not v.startswith("["):
                v += FIELDS[f][1]
            cells.append(v)
        lines.append(", ".join(cells))
    return lines


def list_lines(gpus):
    return ["GPU %d: %s (UUID: %s)" % (i, g["name"], g["uuid"]) for i, g in enumerate(gpus)]


def _row(*cells):
    return "|" + "|".join(cells) + "|"


def table(gpus, now):
    """The default report: the GPU table, then the processes (a pod's own
    PID namespace hides them, as in a real container)."""
    rule = "+" + "-" * 89 + "+"
    sep = "+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+"
    out = [time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(now)) + "       ",
           rule,
           _row(" NVIDIA-SMI %-23sDriver Version: %-15sCUDA Version: %-9s"
                % (gpuload.DRIVER, gpuload.DRIVER, gpuload.CUDA)),
           sep,
           _row(" GPU  Name                 Persistence-M ", " Bus-Id          Disp.A ",
                " Volatile Uncorr. ECC "),
           _row(" Fan  Temp   Perf          Pwr:Usage/Cap ", "           Memory-Usage ",
                " GPU-Util  Compute M. "),
           _row(" " * 41, " " * 24, "               MIG M. "),
           "|" + "=" * 41 + "+" + "=" * 24 + "+" + "=" * 22 + "|"]
    for i, gpu in enumerate(gpus):
        s = sample(gpu, now)
        power = "%dW / %4dW" % (int(float(s["power.draw"])), int(float(s["power.limit"])))
        out += [
            _row("%4d  %-30s%3s  " % (i, s["name"][:30], "On"),
                 "   %-16s Off " % s["pci.bus_id"], "%21s " % "0"),
            _row(" N/A  %3sC    P0%s " % (s["temperature.gpu"], power.rjust(24)),
                 "%8sMiB / %6sMiB " % (s["memory.used"], s["memory.total"]),
                 "%7s%%%13s " % (s["utilization.gpu"], "Default")),
            _row(" " * 41, " " * 24, "%21s " % "Disabled"),
            sep]
    out += ["", rule,
            _row(" Processes:".ljust(89)),
            _row("  GPU   GI   CI              PID   Type   Process name"
                 "                        GPU Memory ".ljust(89)),
            _row("        ID   ID                                      "
                 "                         Usage      ".ljust(89)),
            "|" + "=" * 89 + "|",
            _row("  No running processes found".ljust(89)),
            rule]
    return out


def _parse(argv):
    """argv -> dict of what was asked; raises ValueError for a usage error."""
    opts = {"query": None, "format": None, "ids": None, "list": False, "version": False,
            "loop_ms": None}
    it = iter(argv)
    for arg in it:
        key, _, val = arg.partition("=")
        if key in ("--query-gpu", "--format", "-i", "--id", "-l", "--loop", "-lms",
                   "--loop-ms") and not val:
            val = next(it, None)
            if val is None:
                raise ValueError("Option %s requires a value" % key)
        if key == "--query-gpu":
            opts["query"] = [f for f in val.split(",") if f.strip()]
        elif key == "--format":
            opts["format"] = set(val.split(","))
        elif key in ("-i", "--id"):
            opts["ids"] = val.split(",")
        elif key in ("-L", "--list-gpus"):
            opts["list"] = True
        elif key == "--version":
            opts["version"] = True
        elif key in ("-l", "--loop"):
            opts["loop_ms"] = int(float(val) * 1000)
        elif key in ("-lms", "--loop-ms"):
            opts["loop_ms"] = int(val)
        else:
            raise ValueError('Invalid combination of input arguments. '
                             'Please run \'nvidia-smi -h\' for help.')
    if opts["query"] is not None and not opts["format"]:
        raise ValueError('"--format=" switch is missing. Please run \'nvidia-smi -h\' for help.')
    return opts


def _select(gpus, ids):
    if ids is None:
        return gpus
    out = []
    for ident in ids:
        for i, g in enumerate(gpus):
            if ident.strip() in (str(i), g["uuid"], g["bus_id"]):
                out.append(g)
    return out


def main(argv, spec, out=sys.stdout, clock=time.time, sleep=time.sleep, max_loops=None):
    """Runs like nvidia-smi with `argv` for the pod GPUs in `spec`;
    returns the exit status."""
    try:
        opts = _parse(argv)
    except ValueError as e:
        out.write(str(e) + "\n\n")
        return 2
    if opts["version"]:
        out.write("NVIDIA-SMI version  : %s\nNVML version        : %s\n"
                  "DRIVER version      : %s\nCUDA Version        : %s\n"
                  % (gpuload.DRIVER, gpuload.DRIVER.rsplit(".", 1)[0], gpuload.DRIVER,
                     gpuload.CUDA))
        return 0
    gpus = _select(spec.get("gpus") or [], opts["ids"])
    if not spec.get("gpus"):
        out.write("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                  "driver. Make sure that the latest NVIDIA driver is installed and running.\n\n")
        return 9
    if not gpus:
        out.write("No devices were found\n")
        return 6
    loops = 0
    while True:
        now = clock()
        if opts["list"]:
            lines = list_lines(gpus)
        elif opts["query"] is not None:
            fmt = opts["format"]
            try:
                lines = query_rows(gpus, opts["query"], now, header="noheader" not in fmt,
                                   units="nounits" not in fmt)
            except ValueError as e:
                out.write(str(e) + "\n\n")
                return 2
        else:
            lines = table(gpus, now)
        out.write("\n".join(lines) + "\n")
        out.flush()
        loops += 1
        if opts["loop_ms"] is None or (max_loops is not None and loops >= max_loops):
            return 0
        sleep(opts["loop_ms"] / 1000.0)


def run_file(path):
    """Entry point of the pod's nvidia-smi: the pod's GPUs from `path`."""
    try:
        with open(path) as f:
            spec = json.load(f)
    except (OSError, ValueError):
        spec = {}
    try:
        return main(sys.argv[1:], spec)
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
