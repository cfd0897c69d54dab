"""The workflow's configs as the commands see them: which targets a config has rules for, which
config has the others, and the files a target measures (to re-measure it).

Configs merge as snakemake merges them: the embedded default (``config/config.yaml``) first, then
each ``--configfile`` key by key, later ones winning.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .bounded import load_yaml
from .errors import InputError

DEFAULT = Path("config/config.yaml")


def root() -> Path:
    """Where the configs that apply lie: the working directory (where snakemake runs), else the
    checkout this package is installed from (an editable install), else the configs packaged in
    the wheel (``graphrepro/config``)."""
    package = Path(__file__).resolve().parent
    for candidate in (Path("."), package.parent.parent, package):
        if (candidate / DEFAULT).is_file():
            return candidate
    return Path(".")


def merge(paths) -> dict:
    """The files' configs merged as snakemake merges --configfile files: mappings key by key,
    anything else (a list, None) replaced."""
    from snakemake.utils import update_config

    config: dict = {}
    for path in paths:
        update_config(config, load_yaml(path) or {})
    return config


def load(configfiles=()) -> dict:
    """The default config merged with the given files (paths relative to the working directory)."""
    default = root() / DEFAULT
    return merge(([default] if default.is_file() else []) + [Path(p) for p in configfiles])


def sources_of(config: dict, graph: str) -> int:
    """How many seeded sources a graph's runs time: the graph's own ``sources`` where its entry
    sets one (a document's sample on its graphs), else ``measure.sources``; where the config's
    ``sampling`` sets ``eye_sources`` and no target that uses the graph decides a claim (figures
    drawn for the eye), at most that."""
    own = ((config.get("graphs") or {}).get(graph) or {}).get("sources")
    count = int(own if own is not None else (config.get("measure") or {}).get("sources", 6))
    eye = (config.get("sampling") or {}).get("eye_sources")
    if eye is not None and not _decides_a_claim(config, graph):
        return min(count, int(eye))
    return count


def _decides_a_claim(config: dict, graph: str) -> bool:
    """Whether any of the config's targets that time the graph has claims to judge."""
    deciding = _claim_targets()
    for name, tcfg in (config.get("targets") or {}).items():
        tcfg = tcfg or {}
        if graph in (tcfg.get("graphs") or []) or graph in (tcfg.get("also") or {}):
            if name in deciding:
                return True
    return False


def targets_reading(config: dict, graph: str, run_id: str, with_claims: bool = False) -> list:
    """The config's ready targets that read run ``run_id`` on ``graph`` (their own runs on their
    graphs, or ``also``), in config order; ``with_claims``: only those with claims to judge."""
    from .experiments import get_target
    from .solvers import run_file_id

    out = []
    for name, tcfg in (config.get("targets") or {}).items():
        tcfg, target = tcfg or {}, get_target(name)
        if not target.ready or (with_claims and name not in _claim_targets()):
            continue
        runs = tcfg.get("runs") or list(target.solvers)
        pairs = [(g, r) for g in tcfg.get("graphs") or [] for r in runs]
        pairs += [(g, r) for g, rs in (tcfg.get("also") or {}).items() for r in rs]
        if any(g == graph and run_file_id(r) == run_file_id(run_id) for g, r in pairs):
            out.append(name)
    return out


@functools.cache
def _claim_targets() -> frozenset:
    from .claims import load_claims

    return frozenset(load_claims()["target"])


def sampling_design(config: dict):
    """The config's sequential design (``claims.sequential.Design``), or None where it sets no
    ``sampling``."""
    from .claims.sequential import Design

    given = config.get("sampling")
    if not given:
        return None
    return Design(first=int(given.get("first", 10)), batch=int(given.get("batch", 10)),
                  cap=given.get("cap"), drift=float(given.get("drift", 0.0)))


def configs_with(target: str) -> list[str]:
    """The config files under config/ whose targets include this one (alone or over the default)."""
    found, base, here = [], root(), Path(__file__).resolve().parent
    for p in sorted((base / "config").glob("*.yaml")):
        try:
            targets = (load_yaml(p) or {}).get("targets") or {}
        except (InputError, AttributeError):
            continue
        if isinstance(targets, dict) and target in targets:
            # a packaged config is named by its full path: no config/ lies where the user is
            found.append(str(p.relative_to(base) if base.resolve() != here else p))
    return found


def measured_files(name: str, config: dict) -> list[str]:
    """The run and benchmark files behind a target on this config: what re-measuring it redoes
    (the graphs, sources and the target's table are left alone, the table then rebuilt)."""
    from .experiments import get_target
    from .solvers import run_file_id

    target, settings = get_target(name), (config.get("targets") or {}).get(name) or {}
    res = config.get("results", "results")
    run_ids = settings.get("runs") or list(target.solvers)
    pairs = [(g, r) for g in settings.get("graphs") or [] for r in run_ids]
    pairs += [(g, r) for g, rs in (settings.get("also") or {}).items() for r in rs]
    graphs = config.get("graphs") or {}
    files = []
    for g, r in dict.fromkeys(pairs):
        # a graph's source shards: forcing the merged run table would only merge again
        n = int((graphs.get(g) or {}).get("shards", 1))
        files += ([f"{res}/shards/{g}/{run_file_id(r)}.{i}.csv" for i in range(n)] if n > 1
                  else [f"{res}/runs/{g}/{run_file_id(r)}.csv"])
    # chapter 3's block tables in shards: likewise, and their second passes with them (a pass
    # left from before would measure the drift against timings no longer in the table)
    shards = int((config.get("gerritsen2012_mst") or {}).get("block_shards", 1))
    files += [f"{res}/shards/benchmarks/{b}.{i}.csv" if shards > 1 and is_block_table(b)
              else f"{res}/benchmarks/{b}.csv"
              for b in target.benchmarks for i in range(shards if is_block_table(b) else 1)]
    return files + [f"{res}/shards/benchmarks/repeat/{b}.{i}.csv"
                    for b in target.benchmarks if is_block_table(b) for i in block_repeats(config)]


def terrain_compare_parts(config: dict) -> tuple[list[str], list[str]]:
    """(the two terrains, real then stand-in; the chapter-3 versions timed on each) of the
    config's ``terrain_compare``, or ([], []) where it compares none."""
    tc = config.get("terrain_compare") or {}
    terrains = [tc[k] for k in ("real", "standin") if tc.get(k)]
    if len(terrains) < 2:
        return [], []
    return terrains, list(tc.get("mst_variants", ["cpu_baseline", "gpu_baseline"]))


def block_repeats(config: dict) -> list[int]:
    """The shards of each of chapter 3's versions timed again as a second pass
    (``gerritsen2012_mst.block_repeat_shards``), where its blocks are sharded at all."""
    g12 = config.get("gerritsen2012_mst") or {}
    if int(g12.get("block_shards", 1)) <= 1:
        return []
    return sorted(set(g12.get("block_repeat_shards") or []))


def is_block_table(bench: str) -> bool:
    from .solvers.gerritsen2012.mst_measure import VARIANTS

    return bench.removeprefix("gerritsen2012_mst_") in VARIANTS
