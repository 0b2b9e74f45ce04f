"""The `nvidia-smi` a GPU pod runs: it answers like the real one for the
GPUs and the share of them the pod holds (a 0.5 pod on an 80 GB GPU sees
40960 MiB), with utilization and memory in use from the load model
(gpuload.py), so what a user sees inside a pod agrees with `runai top`.

Covered: `--query-gpu=F,...` with `--format=csv[,noheader][,nounits]`,
`-i ID`, `-L`, `--version`, the default table, and `-l S` / `-lms MS`
loops; the output follows captures of a real nvidia-smi 580 (H100), byte
for byte in layout, units and error messages.

The pod's GPUs come from a JSON file (`pod_spec`, written by podproc when
the pod's sandbox is made). The same program is a whole emulated node's
nvidia-smi (`node_spec`, kept current by nodegpus.py): there every GPU
lists its tenants, the pods holding it or a share of it, whose loads add
up, and `--query-compute-apps` and the table's Processes part show one
process per tenant, as the node's own driver would. A pod sees no
processes, as in a real container's PID namespace. The file is read
again for every report of a loop, so a loop follows pods that come and
go. Pure but for `main`; no kubesim imports other than gpuload, because
the pod runs a copy of these two files.
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
# --query-compute-apps field -> header with unit, unit suffix
APP_FIELDS = {
    "timestamp": ("timestamp", ""),
    "gpu_name": ("gpu_name", ""),
    "gpu_bus_id": ("gpu_bus_id", ""),
    "gpu_serial": ("gpu_serial", ""),
    "gpu_uuid": ("gpu_uuid", ""),
    "pid": ("pid", ""),
    "process_name": ("process_name", ""),
    "used_gpu_memory": ("used_gpu_memory [MiB]", " MiB"),
}
APP_ALIASES = {"name": "process_name", "used_memory": "used_gpu_memory"}
RESERVED_MIB = 512           # the driver keeps this much of each GPU's memory


def tenant_use(gpu, tenant, now):
    """(utilization %, MiB used) of one tenant's share of a whole GPU."""
    share = float(tenant.get("share", 1.0))
    util, mem = gpuload.pod_load(tenant.get("seed", ""), tenant.get("kind", "train"),
                                 float(tenant.get("start", now)), now)
    return util * share, int(gpu["memory_mib"] * share * mem) if util or mem else 0


def use(gpu, now):
    """(MiB total, utilization %, MiB used) of a GPU as its viewer sees
    it: a pod its share alone; a node the whole device, its tenants'
    time slices and memory added up."""
    if "tenants" in gpu:
        uses = [tenant_use(gpu, t, now) for t in gpu["tenants"]]
        util = min(100, int(round(sum(u for u, _ in uses))))
        return int(gpu["memory_mib"]), util, sum(m for _, m in uses)
    total = int(gpu["memory_mib"] * float(gpu.get("share", 1.0)))
    util, mem = gpuload.pod_load(gpu.get("seed", ""), gpu.get("kind", "train"),
                                 float(gpu.get("start", now)), now)
    return total, util, int(total * mem) if util or mem else 0


def sample(gpu, now):
    """One GPU as the pod (or node) sees it at `now`: a dict of every field."""
    total, util, used = use(gpu, now)
    temp, power = gpuload.device_sample(util, used, gpu.get("tdp", 400), gpu.get("idle", 60),
                                        gpu.get("uuid", ""))
    reserved = min(RESERVED_MIB, total // 16)
    return {
        "name": gpu["name"], "uuid": gpu["uuid"], "pci.bus_id": gpu["bus_id"],
        "serial": serial(gpu),
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


def serial(gpu):
    return gpu.get("serial", "1652%09d" % int(gpuload.unit(gpu["uuid"]) * 1e9))


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
            "|" + "=" * 89 + "|"]
    procs = processes(gpus, now)
    for index, _, pid, name, mib in procs:
        out.append("|%5d   N/A  N/A %15d %6s   %-31s%12sMiB |" % (index, pid, "C", name[:31], mib))
    if not procs:
        out.append(_row("  No running processes found".ljust(89)))
    out.append(rule)
    return out


def processes(gpus, now):
    """(index, gpu, pid, name, MiB) of every tenant's process, in device
    order: what the node's driver lists."""
    out = []
    for i, gpu in enumerate(gpus):
        for t in gpu.get("tenants") or ():
            _, mib = tenant_use(gpu, t, now)
            out.append((int(gpu.get("index", i)), gpu, int(t.get("pid", 0)),
                        t.get("process") or "python3", mib))
    return out


def app_rows(gpus, fields, now, header=True, units=True):
    """The lines of --query-compute-apps (no rows, and status 0, when no
    process runs); ValueError as for --query-gpu."""
    names = []
    for f in fields:
        f = APP_ALIASES.get(f.strip(), f.strip())
        if f not in APP_FIELDS:
            raise ValueError('Field "%s" is not a valid field to query.' % f)
        names.append(f)
    procs = processes(gpus, now)
    lines = [", ".join(APP_FIELDS[f][0] for f in names)] if header else []
    stamp = time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(now)) + \
        ".%03d" % int((now % 1) * 1000)
    for _, gpu, pid, name, mib in procs:
        values = {"timestamp": stamp, "gpu_name": gpu["name"], "gpu_bus_id": gpu["bus_id"],
                  "gpu_serial": serial(gpu), "gpu_uuid": gpu["uuid"], "pid": str(pid),
                  "process_name": name, "used_gpu_memory": str(mib)}
        lines.append(", ".join(values[f] + (APP_FIELDS[f][1] if units else "") for f in names))
    return lines


def _parse(argv):
    """argv -> dict of what was asked; raises ValueError for a usage error."""
    opts = {"query": None, "apps": None, "format": None, "ids": None, "list": False,
            "version": False, "loop_ms": None}
    it = iter(argv)
    for arg in it:
        key, _, val = arg.partition("=")
        if key in ("--query-gpu", "--query-compute-apps", "--format", "-i", "--id", "-l",
                   "--loop", "-lms", "--loop-ms") and not val:
            val = next(it, None)
            if val is None:
                raise ValueError("Option %s requires a value" % key)
        if key == "--query-gpu":
            opts["query"] = [f for f in val.split(",") if f.strip()]
        elif key == "--query-compute-apps":
            opts["apps"] = [f for f in val.split(",") if f.strip()]
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
    if (opts["query"] is not None or opts["apps"] is not None) and not opts["format"]:
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
    """Runs like nvidia-smi with `argv` for the GPUs in `spec` (a dict, or
    a function giving the current one, called for every report); returns
    the exit status."""
    try:
        opts = _parse(argv)
    except ValueError as e:
        out.write(str(e) + "\n\n")
        return 2
    current = spec if callable(spec) else (lambda: spec)
    if opts["version"]:
        out.write("NVIDIA-SMI version  : %s\nNVML version        : %s\n"
                  "DRIVER version      : %s\nCUDA Version        : %s\n"
                  % (gpuload.DRIVER, gpuload.DRIVER.rsplit(".", 1)[0], gpuload.DRIVER,
                     gpuload.CUDA))
        return 0
    loops = 0
    while True:
        now = clock()
        all_gpus = current().get("gpus") or []
        gpus = _select(all_gpus, opts["ids"])
        if not all_gpus:
            out.write("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                      "driver. Make sure that the latest NVIDIA driver is installed and "
                      "running.\n\n")
            return 9
        if not gpus:
            out.write("No devices were found\n")
            return 6
        try:
            lines = report(opts, gpus, now)
        except ValueError as e:
            out.write(str(e) + "\n\n")
            return 2
        if lines:
            out.write("\n".join(lines) + "\n")
        out.flush()
        loops += 1
        if opts["loop_ms"] is None or (max_loops is not None and loops >= max_loops):
            return 0
        sleep(opts["loop_ms"] / 1000.0)


def report(opts, gpus, now):
    """The lines of one report of what `opts` asks for."""
    fmt = opts["format"] or ()
    if opts["list"]:
        return list_lines(gpus)
    if opts["apps"] is not None:
        return app_rows(gpus, opts["apps"], now, header="noheader" not in fmt,
                        units="nounits" not in fmt)
    if opts["query"] is not None:
        return query_rows(gpus, opts["query"], now, header="noheader" not in fmt,
                          units="nounits" not in fmt)
    return table(gpus, now)


def read_spec(path):
    """The GPUs in the JSON file at `path`; none when it cannot be read
    (nvidia-smi then says the driver is unreachable)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def run_file(path):
    """Entry point of the pod's and the node's nvidia-smi: the GPUs from
    `path`, read again for every report."""
    try:
        return main(sys.argv[1:], lambda: read_spec(path))
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
