# Shared names for the rules. Rules stay thin: each one is a `python -m graphrepro` call.
import json
import re
import shlex
import sys

from snakemake.settings.types import DeploymentMethod

sys.path.insert(0, os.path.join(workflow.basedir, "src"))  # a checkout works without installing
from graphrepro.configs import (
    block_repeats,
    sampling_design,
    sources_of,
    targets_reading,
    terrain_compare_parts,
)
from graphrepro.plan import interleaved_groups
from graphrepro.experiments import get_target
from graphrepro.solvers import resolve, run_file_id
from graphrepro.snakemake_args import job_pythonpath
from graphrepro.wholerun import reference_configfiles

SRC = os.path.join(workflow.basedir, "src")
# the package's own files (the native programs' sources): the checkout's src/graphrepro, or where
# the wheel put it when the workflow runs from the installed package (`graphrepro study`)
import graphrepro as _graphrepro

PACKAGE_DIR = os.path.dirname(_graphrepro.__file__)
CONDA_ENV = os.path.join(workflow.basedir, "envs", "graphrepro.yaml")
CONDA_GPU_ENV = os.path.join(workflow.basedir, "envs", "graphrepro-gpu.yaml")  # + CUDA libs, cupy


def conda_env(device):
    """The smallest env a job on `device` needs: the CUDA libraries only where a GPU is timed."""
    return CONDA_GPU_ENV if "gpu" in device else CONDA_ENV


# Rules call the environment's `python` from PATH, never a path of the host that planned the job,
# so a job runs wherever its executor puts it (a SLURM node, a container). Snakemake does not put
# its own environment on PATH (`.venv/bin/snakemake` leaves PATH as it was: checked), so put the
# interpreter's directory first, as activating the venv would. Every job's own snakemake reads this
# file again and puts its interpreter first; under --sdm conda the env's activation comes after
# and wins.
# (Not an `envvars:` entry: that would carry the planning host's PATH into every job.)
_BIN = os.path.dirname(sys.executable)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _BIN:
    os.environ.update(PATH=os.pathsep.join([_BIN, os.environ.get("PATH", "")]))
# Every rule records its interpreter as a parameter (`py`), and snakemake remakes a job whose
# parameters changed: so the name is always "python", whichever way snakemake was started (the
# `snakemake` script, `python3 -m snakemake`, or `graphrepro rerun`'s `sys.executable -m
# snakemake`), or `rerun` would remake graphs and sources and the next run remake them again.
# Where this interpreter has no `python` beside it (a system python3), a link named `python` to
# it, in a folder of the working directory's .snakemake, goes first on PATH instead.
if not os.access(os.path.join(_BIN, "python"), os.X_OK):
    _SHIM = os.path.abspath(os.path.join(".snakemake", "graphrepro-python"))
    os.makedirs(_SHIM, exist_ok=True)
    if os.path.realpath(os.path.join(_SHIM, "python")) != os.path.realpath(sys.executable):
        _tmp = os.path.join(_SHIM, f"python.{os.getpid()}")
        os.symlink(sys.executable, _tmp)
        os.replace(_tmp, os.path.join(_SHIM, "python"))  # atomic: parallel jobs read it whole
    os.environ.update(PATH=os.pathsep.join([_SHIM, os.environ.get("PATH", "")]))
_PYTHON = "python"
# A list, so `{params.py:q}` quotes each word: no config value or path is ever shell syntax.
if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method:
    # --sdm conda: the env's python, and our package (the checkout's, or the wheel's alone)
    PY = ["env", f"PYTHONPATH={job_pythonpath(SRC)}", "python"]
else:
    PY = [_PYTHON]
RES = config["results"]
# every timing job times fixed anchors before and after its work (harness/anchors.py): the
# drift between jobs the ledger widens cross-job claims by; 0 in the config turns them off
ANCHOR_ARGS = ["--anchor-repeats", str(config["measure"].get("anchor_repeats", 5))]


# A run id in a file name never has a comma (target_runs), nor a path of its own.
wildcard_constraints:
    solver=r"[^,/]+",


REFERENCE = os.path.join(workflow.basedir, config["reference"])
CLAIMS = os.path.join(os.path.dirname(config["report"]) or ".", "claims.csv")  # beside the report
# The config the report names: the last --configfile given (CLI_CONFIGFILES, Snakefile), else
# the embedded default. (snakemake appends the Snakefile's own configfile after the --configfile
# files, so workflow.configfiles[-1] would always be the default even when a user config
# overrides it.)
CONFIGFILE = str(
    CLI_CONFIGFILES[-1]
    if CLI_CONFIGFILES
    else (workflow.configfiles[-1] if workflow.configfiles else "")
)


def ready_targets():
    """The configured targets whose code exists (planned ones are listed, not run)."""
    return [name for name in config["targets"] if get_target(name).ready]


def target_run_ids(name):
    """The runs a target needs: the config's `runs:` list if given, else the target's own."""
    return config["targets"][name].get("runs") or list(get_target(name).solvers)


def target_graphs(name):
    """A target's graphs; targets that read only benchmark tables (gerritsen2012's) have none."""
    return config["targets"][name].get("graphs") or []


def target_also(name):
    """{graph: [run ids]} a target reads besides its own graphs' runs (config key `also`)."""
    return config["targets"][name].get("also") or {}


def target_runs(name):
    """Run files are named by run id with "+" for its commas (solvers.run_file_id): a wildcard
    with a comma would reach a submitted job cut short (snakemake issue 2366)."""
    runs = [(g, r) for g in target_graphs(name) for r in target_run_ids(name)]
    runs += [(g, r) for g, rs in target_also(name).items() for r in rs]
    return [f"{RES}/runs/{g}/{run_file_id(r)}.csv" for g, r in runs]


def target_sources(name):
    graphs = target_graphs(name) + [g for g in target_also(name) if g not in target_graphs(name)]
    return [f"{RES}/sources/{g}.json" for g in graphs]


def graph_config(name):
    try:
        return config["graphs"][name]
    except KeyError:
        raise ValueError(
            f"graph {name!r} is used by a target but not defined under graphs:"
        ) from None


def option_args(spec):
    """`{k: v}` as argv words `--k v` (a list: the shell lines quote each word with `:q`)."""
    return [w for k, v in sorted(spec.items()) for w in (f"--{k.replace('_', '-')}", str(v))]


def generate_args(name):
    spec = dict(graph_config(name)["generate"])
    return [spec.pop("kind"), *option_args(spec)]


def dense_graph_names():
    """Graphs given as `dense:` (an2017): their .npz is a descriptor made by rule dense_graph."""
    return [g for g, c in config["graphs"].items() if "dense" in c]


DENSE_GRAPH = "|".join(re.escape(g) for g in dense_graph_names()) or "(?!)"  # (?!): matches nothing


def dense_args(name):
    return option_args(graph_config(name)["dense"])


def count_args(graph):
    """A run's --count-sources where the graph's config limits its counting passes."""
    counted = (config["graphs"].get(graph) or {}).get("count_sources")
    return [] if counted is None else ["--count-sources", str(counted)]


def sampling_args():
    """The compare step's --sampling (configs.sampling_design): none without a sampling: key."""
    design = sampling_design(config)
    if design is None:
        return []
    cap = "" if design.cap is None else f"cap={design.cap},"
    return ["--sampling", f"first={design.first},batch={design.batch},{cap}drift={design.drift}"]


def batch_args(graph, run_ids):
    """A run job's --sampling where the config samples: its sources timed in batches until the
    claims of the targets that read its tables are decided (claims/batches.py); --decides names
    those targets, --eye-sources the sources where none has a claim. A sharded graph's runs are
    not batched (a shard is a slice of the sources, not their first ones): every source."""
    if sampling_design(config) is None or graph in SHARDED:
        return []
    decides = sorted({t for r in run_ids for t in targets_reading(config, graph, r)})
    eye = (config.get("sampling") or {}).get("eye_sources")
    return [
        *sampling_args(),
        *(["--decides", *decides] if decides else []),
        *(["--eye-sources", str(eye)] if eye else []),
    ]


def target_benchmarks(name):
    """Benchmark tables a target reads besides its runs (an2017_transfers), and those it reads
    where present (``also_reads``: another target's table, measuring the drift between jobs)
    when this config makes them too."""
    t = get_target(name)
    also = [b for b in t.also_reads if b in config.get("targets", {})]
    return [f"{RES}/benchmarks/{b}.csv" for b in (*t.benchmarks, *also)]


def graph_file(name):
    cfg = graph_config(name)
    return cfg["file"] if "file" in cfg else f"{RES}/graphs/{name}.gr"


for _name in config["targets"]:
    get_target(_name)  # an unknown target, solver or parameter fails here, before anything runs
    for _run in target_run_ids(_name):
        resolve(_run)
    for _g in target_graphs(_name) + list(target_also(_name)):
        graph_config(_g)
    for _runs in target_also(_name).values():
        for _run in _runs:
            resolve(_run)


# ---- Where jobs run and what they ask for (README "On a SLURM cluster") ----------------------
# `timing` tokens keep timed jobs apart: a GPU-timed job holds one token and one `gpu`, a
# CPU-timed job holds every token. The default profile gives one token (one timed job at a time on
# this machine); `--resources gpu=N timing=N` lets N GPU-timed jobs run at once, each bound to its
# own device (graphrepro/placement.py). Several GPUs of one host take the gpu-host profile's
# placement (below): without it the CPU timings refuse to start, as they would run unpinned.
# The slurm profile scopes `timing`, `gpu` and `prep` to each submitted job (`local`), so the
# cluster is not serialised: SLURM keeps timed jobs apart instead (config `cluster:` timed_cpu /
# timed_gpu), and a group job runs its steps one at a time.
CLUSTER = {
    "gpu_model": "",
    "timed_cpu": "--exclusive",
    "timed_gpu": "--exclusive",
    "cpus_per_gpu": 0,
    "cpu_threads": 8,
    "runtime_scale": 1.0,
    **(config.get("cluster") or {}),
}
_timing = workflow.global_resources.get("timing")
TIMING_TOKENS = int(getattr(_timing, "value", _timing) or 1)  # --resources timing=N
SUBMITTED = workflow.nodes is not None  # --jobs N: jobs go to an executor


def dense_vertices(name):
    cfg = (config["graphs"].get(name) or {}).get("dense")
    return int(cfg["vertices"]) if cfg else 0


def graph_arcs(name):
    """Arcs of graph `name` as its config says (a dense graph: its n^2 matrix entries), known
    before the graph exists, so a dry run shows every job's memory."""
    cfg = graph_config(name)
    if "dense" in cfg:
        return dense_vertices(name) ** 2
    if "generate" in cfg:
        gen = cfg["generate"]
        return int(gen.get("arcs") or 4 * gen.get("rows", 1) * gen.get("cols", 1))
    if "dataset" in cfg:
        from graphrepro.datasets import load_registry

        ds = load_registry(REGISTRY).get(cfg["dataset"])
        return int(((ds.arcs if ds else 0) or 0) * cfg.get("scale", 1.0))
    path = cfg.get("file", "")
    return int(os.path.getsize(path) / 10) if os.path.exists(path) else 0  # ~10 bytes a text arc


def graph_mem_mb(name, factor=1.0):
    """Memory for a step that holds graph `name`: a dense graph's int32 matrix is generated where
    used (20480 vertices: 1.7 GB, so 3.1 GB asked; snakemake's default is 1000 MB); a CSR graph
    about 48 bytes an arc with its reverse and the solver's arrays. `factor` for text parsing."""
    n = dense_vertices(name)
    return int(1024 + factor * (1.25 * n * n * 4 / 1e6 if n else 48 * graph_arcs(name) / 1e6))


# ---- One host with several GPUs (workflow/profiles/gpu-host, README "Several GPUs of one host") --
# `host_gpus` (the profile sets it to auto) turns this on: one timed GPU job per GPU at once (the
# GPU count from --resources gpu=N, else host_gpus, else every GPU found), the one-core CPU timings
# side by side on cores kept for them (`cpu_timed`, one token a slot; host_cpu_slots, by default
# every core the GPU workers and the workflow leave: placement.host_split), a parallel CPU timing
# on all of them, and everything untimed on the other cores.
# The split reaches every job through the environment (graphrepro.placement.pin_cpus).
# The profile's host_* settings are read from its own file, so a `--config` on the command line
# (which replaces the profile's `config:` list) cannot drop them; a host_* key given there wins.
from graphrepro.placement import candidate_devices, profile_host_settings

try:
    HOST_SETTINGS = {
        **profile_host_settings(sys.argv[1:], [os.getcwd(), workflow.basedir]),
        **{k: v for k, v in config.items() if k.startswith("host_")},
    }
except InputError as e:
    raise WorkflowError(str(e)) from None
HOST = HOST_SETTINGS.get("host_gpus") is not None and not SUBMITTED
HOST_GPUS = HOST_TIMED_CPUS = HOST_UNTIMED_CPUS = None
HOST_CPU_SLOTS = 1  # one-core CPU timings side by side (host_cpu_slots)
# a host of several GPUs that is not placed refuses its CPU timings (pin_words)
UNPLACED_GPUS = 0 if HOST or SUBMITTED else len(candidate_devices())
if HOST:
    from graphrepro.placement import export_host_split, host_resources, host_split

    _given = workflow.global_resources.get("gpu")
    _given = getattr(_given, "value", _given)
    _auto = HOST_SETTINGS["host_gpus"] == "auto"
    HOST_GPUS = int(
        _given or (len(candidate_devices()) if _auto else HOST_SETTINGS["host_gpus"]) or 0
    )
    _cpus = sorted(os.sched_getaffinity(0))[: max(workflow.cores, 2)]
    # the one-core timings side by side on every core the GPU workers and the workflow leave
    # (host_cpu_slots=auto), each timing its CPU anchor before and after its work
    HOST_TIMED_CPUS, HOST_UNTIMED_CPUS, HOST_CPU_SLOTS, _slots_basis = host_split(
        _cpus,
        HOST_GPUS,
        HOST_SETTINGS.get("host_timed_cores", "auto"),
        HOST_SETTINGS.get("host_cpu_slots", "auto"),
    )
    _tokens = host_resources(HOST_GPUS, HOST_CPU_SLOTS)
    for _name, _value in _tokens.items():
        workflow.register_resource(_name, _value)
    TIMING_TOKENS = _tokens["timing"]
    export_host_split(
        os.environ, HOST_GPUS, HOST_TIMED_CPUS, HOST_UNTIMED_CPUS, HOST_CPU_SLOTS, _slots_basis
    )


def pin_words(device):
    """Words before a timed job's python: a CPU-timed job on the host's timed cores, with as many
    numba threads as there are of them (recorded in its provenance), or, with host_cpu_slots > 1,
    a one-core timing ("cpu1") on a slot core of its own with one thread; a GPU-timed run handed
    to its GPU's worker (start-up once per GPU, not per run file; `host_worker: false` to not);
    nothing elsewhere; on a host of several GPUs without placement, a refusal for a CPU timing
    (a GPU-timed job binds itself to one free device: placement.bind_gpu)."""
    if UNPLACED_GPUS > 1 and "cpu" in device:
        from graphrepro.placement import unplaced_refusal

        raise WorkflowError(unplaced_refusal(UNPLACED_GPUS))
    if HOST and device == "gpu":  # handed to the GPU's worker process (cli/worker.py)
        return ["env", "GRAPHREPRO_WORKER=1"] if HOST_SETTINGS.get("host_worker", True) else []
    if not HOST or "cpu" not in device:
        return []
    # a CPU-only job sees no GPU: it must not open a context on (or lock) a GPU being timed
    hide = ["GRAPHREPRO_GPUS=", "CUDA_VISIBLE_DEVICES="] if "gpu" not in device else []
    if device == "cpu1" and HOST_CPU_SLOTS > 1:
        return ["env", "GRAPHREPRO_PIN=slot", "NUMBA_NUM_THREADS=1", *hide]
    return ["env", "GRAPHREPRO_PIN=timed", f"NUMBA_NUM_THREADS={len(HOST_TIMED_CPUS)}", *hide]


HOST_WORKERS: list = []  # the devices whose GPU workers this run started


def start_host_workers():
    """On a GPU host, each GPU's worker starts with the run (interpreter, imports, CUDA
    context: seconds), while graphs and references are made, not in the first run's time on
    that GPU; a worker already there (or starting) stays the only one. Started where the
    config's targets time a GPU solver (read from the config: the jobs snakemake will run are
    not public API); a worker with nothing to do leaves after its idle time."""
    if not HOST or not HOST_SETTINGS.get("host_worker", True):
        return
    from graphrepro.client import start_worker

    gpu_runs = [r for t in ready_targets() for r in target_run_ids(t) if "gpu" in timed_device(r)]
    if gpu_runs:
        # each worker's first job compiles all their kernels while its first graph loads
        os.environ.update(GRAPHREPRO_PRECOMPILE=json.dumps(sorted(set(gpu_runs))))
        HOST_WORKERS[:] = candidate_devices()[:HOST_GPUS]
        for device in HOST_WORKERS:
            start_worker(device, idle_s=300)


def stop_host_workers():
    """A run's last step: no worker it started keeps a GPU's context after it."""
    if HOST_WORKERS:
        from graphrepro.client import stop_workers

        stop_workers(HOST_WORKERS)


_RUN_PRIORITY: dict = {}


def run_priority(w):
    """On a GPU host, the longest runs start first (their expected seconds a job), so that the
    last job to end is a short one: started last, a long shard keeps one GPU busy while the
    others wait (seen on 4 GPUs: issue 31). The seconds are the time-boxed call's own estimates
    where it runs under one (GRAPHREPRO_ESTIMATES: the deadline gate's, e.g. from an earlier
    call's recorded wall times), else `graphrepro plan`'s from this run and the committed runs.
    Elsewhere every run has the same priority."""
    if not HOST:
        return 0
    if not _RUN_PRIORITY:
        _RUN_PRIORITY.update(_expected_seconds())
        _RUN_PRIORITY[None] = 0  # planned, even where the config has no runs
    return _RUN_PRIORITY.get((w.graph, w.solver), 0)


def interleaved_files(graph, ids, shard, suffix):
    """An interleaved group's tables (or provenance records), of one shard where it has one."""
    if shard is None:
        return [f"{RES}/runs/{graph}/{run_file_id(r)}{suffix}" for r in ids]
    return [f"{RES}/shards/{graph}/{run_file_id(r)}.{shard}{suffix}" for r in ids]


def group_priority(graph, run_ids):
    """An interleaved job's priority: the seconds of all its runs (run_priority's measure)."""
    from types import SimpleNamespace

    return lambda w: sum(
        run_priority(SimpleNamespace(graph=graph, solver=run_file_id(r))) for r in run_ids
    )


def _expected_seconds():
    """{(graph, run file id): seconds of its longest job}; a benchmark's (chapter 3's block
    jobs) under ("benchmarks", its name), from results/benchmarks/NAME.csv or its shards
    results/shards/benchmarks/NAME.I.csv, as a run's shards are named."""
    from pathlib import Path

    out = {}
    given = os.environ.get("GRAPHREPRO_ESTIMATES")
    if given and os.path.isfile(given):
        from graphrepro.bounded import load_json

        for path, secs in load_json(given).items():
            path = Path(path)
            name = path.name.removesuffix(".csv")
            if path.parent.parent.name == "shards":
                name = name.rsplit(".", 1)[0]  # NAME.SHARD.csv
            key = (path.parent.name, name)
            out[key] = max(out.get(key, 0), max(1, round(secs)))
        return out
    from graphrepro.plan import plan_blocks, plan_runs

    for r in [
        *plan_runs(config, Path(REFERENCE), Path(RES)),
        *plan_blocks(config, Path(REFERENCE), Path(RES)),
    ]:
        out[(r.graph, run_file_id(r.run_id))] = max(1, round(max(r.job_seconds())))
    return out


def prep_threads():
    """Threads of an untimed preparation step that parallelises (a graph's reference distances):
    on a GPU host the untimed cores less one for each GPU job's host thread; on a cluster the
    job's own cores; here all but one core, so a GPU job can start beside it."""
    if SUBMITTED:
        return int(CLUSTER["cpu_threads"])
    if HOST:
        return max(1, len(HOST_UNTIMED_CPUS) - HOST_GPUS)
    return max(1, workflow.cores - 1)


def timed_threads(device):
    """A CPU-timed job ("cpu", or "cpu+gpu": CPU and GPU phases timed in one job) takes the whole
    machine here (its numba-parallel baselines use every core and nothing untimed runs beside it);
    on a cluster, `cluster: cpu_threads` (its node is its own under --exclusive anyway). A
    GPU-timed job needs one host thread."""
    if device == "gpu" or (HOST and device == "cpu1" and HOST_CPU_SLOTS > 1):
        return 1
    if HOST:
        return len(HOST_TIMED_CPUS)
    if SUBMITTED:
        return int(CLUSTER["cpu_threads"])  # (run here after all, snakemake caps it at --cores)
    return max(workflow.cores, 1)


def timed_resources(device, mem_mb=2048, runtime=60):
    """Every resource of a timed job on `device` ("cpu", "cpu1": a one-core CPU timing, "gpu" or
    "cpu+gpu")."""
    gpu = "gpu" in device
    alone = "cpu" in device  # timed on the CPU too: no other timed job beside it
    return {
        # on a GPU host a CPU-timed job has cores of its own (cpu_timed), so GPU jobs go on
        "timing": 1 if HOST or not alone else TIMING_TOKENS,
        # a one-core timing takes one of the host_cpu_slots, any other CPU timing all of them
        "cpu_timed": (1 if device == "cpu1" else HOST_CPU_SLOTS) if alone else 0,
        "gpu": 1 if gpu else 0,
        "mem_mb": int(mem_mb),
        "runtime": max(1, int(runtime * float(CLUSTER["runtime_scale"]))),
        "slurm_extra": CLUSTER["timed_cpu" if alone else "timed_gpu"],
        # the plugin's own resource (--cpus-per-gpu): its validator refuses it in slurm_extra
        "cpus_per_gpu": int(CLUSTER["cpus_per_gpu"]) if gpu and not alone else 0,
        "gpu_model": CLUSTER["gpu_model"] if gpu else "",  # --gpus=MODEL:1 where set
    }


def timed(device_of, mem_of=None, runtime=60):
    """`resources: **timed(...)` for a timed rule: device_of(wildcards) says "cpu", "gpu" or "cpu+gpu",
    mem_of(wildcards[, input]) the memory in MB (default 2 GB), runtime is in minutes."""

    def one(key):
        return lambda wildcards: timed_resources(device_of(wildcards), 0, runtime)[key]

    res = {key: one(key) for key in timed_resources("cpu") if key != "mem_mb"}
    return {**res, "mem_mb": mem_of or 2048}


def terrain_mem_mb(wildcards):
    """A terrain step holds a few arrays of its grid's size, padded to a power-of-two square: 16
    bytes a cell of the largest configured terrain (registry rows x cols), known before any
    terrain is converted so a dry run shows it."""
    from graphrepro.datasets import load_registry

    registry, cells = load_registry(REGISTRY), 0
    for cfg in (config.get("terrains") or {}).values():
        ds = registry.get(cfg["dataset"])
        side = max((ds.rows or 0), (ds.cols or 0)) if ds else 0
        cells = max(cells, (1 << max(side - 1, 0).bit_length()) ** 2 * cfg.get("scale", 1.0))
    return int(2048 + 16 * cells / 1e6)


def solver_device(run_id):
    return "gpu" if resolve(run_id)[0].device == "gpu" else "cpu"


def timed_device(*run_ids):
    """What a run (or an interleaved group) holds while it is timed: "cpu1" where every one is a
    CPU solver on one core (host_cpu_slots may time several side by side), else solver_device."""
    specs = [resolve(r)[0] for r in run_ids]
    if all(s.device == "cpu" and not s.parallel for s in specs):
        return "cpu1"
    return solver_device(run_ids[0])


# Functions of runs.smk and gerritsen2012_sssp.smk (snakemake --lint: rules and functions apart)
def calibration_file(w):
    """safari2017's N comes from Harish's runs on the same graph: those run first."""
    return interleaved_calibration(w.graph, [w.solver])


def interleaved_calibration(graph, run_ids):
    """The calibrations runs on a graph take (one run, or an interleaved group: runs.smk): one
    per calibrating solver."""
    by = sorted({resolve(r)[0].calibrated_by for r in run_ids} - {None})
    return [f"{RES}/calibration/{graph}/{b}.json" for b in by]


def peer_build(w):
    """A peer's run (document `peer`, issue 33) needs the peers built first (peers.smk)."""
    return [f"{PEERS_DIR}/manifest.json"] if resolve(w.solver)[0].document == "peer" else []


def sssp_terrain(name):
    terrains = config["targets"][name].get("terrains") or []
    if len(terrains) != 1:
        raise ValueError(f"target {name} needs exactly one terrain under terrains:")
    return f"{RES}/terrain/{terrains[0]}.zgrid"


# ---- Functions the other files use (snakemake --lint: rules and functions apart) -------------


# (datasets.smk)
def _one_of(names):
    """A wildcard constraint matching exactly these names (never matching when there are none)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


# (datasets.smk)
def reweight_args(cfg):
    r = cfg.get("reweight")
    return ["--reweight", str(r["low"]), str(r["high"]), str(r["seed"])] if r else []


# (datasets.smk)
def fetch_args(kind, name):
    """What decides which file a graph or terrain is made from: the fetch and the conversion
    take the same, so the conversion reads the record the fetch wrote for exactly these."""
    if kind == "graphs":
        cfg = graph_config(name)
        which = ["--mode", DATASETS_MODE, *MIRROR_ARGS]
    else:
        cfg = TERRAINS[name]
        which = (
            ["--mode", "standin", "--no-mirrors"]
            if cfg.get("standin")
            else ["--mode", DATASETS_MODE, *MIRROR_ARGS]
        )
    return [cfg["dataset"], *which, "--data", DATA, "--registry", REGISTRY]


# (datasets.smk)
def dataset_graph_args(name):
    cfg = graph_config(name)
    return [
        *fetch_args("graphs", name),
        "--name",
        name,
        "--scale",
        str(cfg.get("scale", 1.0)),
        *reweight_args(cfg),
    ]


# (datasets.smk)
def terrain_args(name):
    return [*fetch_args("terrain", name), "--scale", str(TERRAINS[name].get("scale", 1.0))]


# (datasets.smk)
def fetch_outputs():
    return [f"{RES}/downloads/graphs/{g}.json" for g in DATASET_GRAPHS] + [
        f"{RES}/downloads/terrain/{t}.json" for t in TERRAINS
    ]


# (datasets.smk)
def terrain_outputs():
    return [f"{RES}/terrain/{t}.zgrid" for t in TERRAINS]


# (datasets.smk)
def dataset_outputs():
    """Every registry graph and terrain the config names: `--config datasets=paper` fetches and
    verifies each of them, whether or not a target uses it yet."""
    return [f"{RES}/graphs/{g}.npz" for g in DATASET_GRAPHS] + terrain_outputs()


# (standins.smk)
def terrain_compare_outputs():
    return (
        [f"{RES}/standins/terrain_compare.csv", f"{RES}/standins/terrain_compare.json"]
        if TC
        else []
    )


# (standins.smk)
def _tc_inputs(which):
    name = TC[which]
    return {
        "zgrid": f"{RES}/terrain/{name}.zgrid",
        "mst": [f"{RES}/benchmarks/terrain_compare/{name}_mst_{v}.csv" for v in TC_MST],
        "sssp": [f"{RES}/benchmarks/terrain_compare/{name}_sssp.csv"],
    }


# (targets.smk)
# (targets.smk) a target whose code draws no figure gets its table only: no blank PNG
def figure_targets():
    return [t for t in ready_targets() if get_target(t).figure is not None]


def compare_shell(figure):
    return (
        "{params.py:q} -m graphrepro compare {wildcards.target:q} --runs {input.runs:q} "
        "--sources {input.sources:q} --benchmarks {input.benchmarks:q} --output {output.table:q} "
        + ("--figure {output.figure:q} " if figure else "")
        + "--claims {output.claims:q} {params.sampling:q} 2> {log:q}"
    )


def figure_caption(w):
    """One caption per figure for `snakemake --report`: what it shows (report/figstyle.py)."""
    from graphrepro.report.figstyle import caption

    return caption(get_target(w.target), [])


# (gerritsen2012.smk)
def g12_terrain(key):
    name = G12.get(key) or G12.get("terrain") or "jacksboro_dem"
    return f"{RES}/terrain/{name}.zgrid"


# (gerritsen2012.smk)
def g12_uses_gpu(variant):
    return 1 if any(is_gpu(r) for r in G12_VARIANTS[variant]) else 0


# (gerritsen2012.smk)
def g12_device(variant):
    return "gpu" if g12_uses_gpu(variant) else "cpu"


# (gerritsen2012.smk)
def g12_shard_device(variant):
    """What a shard of a version's blocks holds while timed: a CPU version (every step on the CPU,
    one thread) is a one-core timing, so host_cpu_slots=K times K shards side by side, each on a
    core of its own; a GPU version's shard is an ordinary GPU-timed job, one a GPU at once, its
    CPU reduce step (where it has one) on the job's host thread, on the untimed cores, as the
    unsharded job's is."""
    return "cpu1" if g12_device(variant) == "cpu" else "gpu"


# (gerritsen2012.smk)
def g12_shard_files(variant, suffix):
    return [
        f"{RES}/shards/benchmarks/gerritsen2012_mst_{variant}.{i}{suffix}"
        for i in range(G12_SHARDS)
    ]


# (gerritsen2012.smk)
def g12_repeat_files(variant, suffix):
    """The shards timed again as a second pass (block_repeat_shards; configcheck keeps each
    index below block_shards): the measure of the drift between versions' passes."""
    return [
        f"{RES}/shards/benchmarks/repeat/gerritsen2012_mst_{variant}.{i}{suffix}"
        for i in block_repeats(config)
    ]


# (gerritsen2012.smk)
def g12_priority(w):
    """As run_priority: on a GPU host the longest block jobs (the plan's seconds) start first."""
    from types import SimpleNamespace

    return run_priority(
        SimpleNamespace(graph="benchmarks", solver=f"gerritsen2012_mst_{w.variant}")
    )


# (gerritsen2012.smk)
def g12_phases_args(which, device):
    """Table 3.8 (`phases`: phases_terrain, optionally its centre crop phases_side) or its
    whole-grid variant (`phases_full`: full_terrain, uncropped). The whole grid outlasts a
    device call: it runs resumable, its journal and side files in a work directory that is no
    declared output, so snakemake leaves it where a call stops the job (timeboxed.py's WORK)."""
    side = G12.get("phases_side") if which == "phases" else None
    work = f"{RES}/work/gerritsen2012_mst_{which}_{device}" if which == "phases_full" else None
    return option_args(
        {
            "block_side": G12.get("io_block_side", 32),
            "trials": G12.get("trials", 1),
            "verify_max_vertices": G12.get("verify_max_vertices", 1 << 24),
            **({"sides": side} if side else {}),
            **({"work_dir": work} if work else {}),
        }
    )
