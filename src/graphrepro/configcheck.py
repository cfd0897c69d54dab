"""The workflow config checked before any rule runs: a refusal is one short line, never a job's
traceback an hour later.

The JSON schema (config/schema/config.schema.yaml) holds what a schema can say: types, ranges,
strict patterns for every name and path. What it cannot say is checked here: ``low <= high``,
target settings against the target's own, the gerritsen2012 variants, names that must exist.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

from .bounded import load_yaml
from .credentials import strip_credentials
from .errors import InputError

# the package's config/ (the checkout's, through a link; the wheel's own copy when installed)
SCHEMA = Path(__file__).resolve().parent / "config" / "schema" / "config.schema.yaml"

def _where(path) -> str:
    return "/".join(str(p) for p in path) or "(top)"


def _shown(value) -> str:
    shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _message(error) -> str:
    """One line for a jsonschema error: where, the value, what was expected."""
    where = _where(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in known)
        if known and unknown:  # name the mistyped key and what it could have been
            at = f"under {where!r}" if error.absolute_path else "at the top level"
            return (f"unknown key {', '.join(map(repr, unknown))} {at}; known keys there: "
                    f"{', '.join(known)}")
    if error.validator == "propertyNames":  # the offending key is inside the error's context
        for sub in error.context or []:
            if sub.validator == "pattern":
                what = (sub.schema or {}).get("description") or f"matching {sub.validator_value}"
                return f"{where}: key {_shown(sub.instance)} is not {what}"
    if error.validator == "pattern":
        what = error.schema.get("description") or f"matching {error.validator_value}"
        return f"{where}: {_shown(error.instance)} is not {what}"
    text = error.message
    return f"{where}: {text if len(text) < 200 else text[:197] + '...'}"


@functools.lru_cache(maxsize=2)
def _validator(schema_path: str):
    import jsonschema

    return jsonschema.Draft202012Validator(load_yaml(schema_path))


def schema_errors(config: dict, schema_path=SCHEMA) -> list[str]:
    """Every schema violation, one line each (the most specific error of each branch)."""
    import jsonschema

    validator = _validator(str(schema_path))
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.path])
    return [_message(jsonschema.exceptions.best_match([e])) for e in errors]


def _finite_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def semantic_errors(config: dict) -> list[str]:
    """What the schema cannot say."""
    errors = []
    graphs = config.get("graphs") or {}
    terrains = config.get("terrains") or {}
    for name, cfg in graphs.items():
        r = (cfg or {}).get("reweight") if isinstance(cfg, dict) else None
        if isinstance(r, dict) and _finite_number(r.get("low")) and _finite_number(r.get("high")):
            if r["low"] > r["high"]:
                errors.append(f"graphs/{name}/reweight: low {r['low']} > high {r['high']}")
            if r["high"] < 1:
                errors.append(f"graphs/{name}/reweight: high must be at least 1")
    for target, cfg in (config.get("targets") or {}).items():
        if not isinstance(cfg, dict):
            continue
        for g in cfg.get("graphs") or []:
            if g not in graphs:
                errors.append(f"targets/{target}: graph {g!r} is not defined under graphs:")
        for t in cfg.get("terrains") or []:
            if t not in terrains:
                errors.append(f"targets/{target}: terrain {t!r} is not defined under terrains:")
        if "settings" in cfg and target.startswith("gerritsen2012_table5_"):
            errors += [f"targets/{target}/settings: {e}"
                       for e in settings_errors(target.replace("gerritsen2012_", ""),
                                                cfg["settings"] or {})]
        for run in cfg.get("runs") or []:
            bad = run_id_errors(run)
            errors += [f"targets/{target}/runs: {e}" for e in bad]
            if not bad and (why := unshowable(target, run)):
                errors.append(f"targets/{target}/runs: {why}")
    g12 = config.get("gerritsen2012_mst") or {}
    if g12:
        from .solvers.gerritsen2012.mst_measure import VARIANTS

        for key in ("sweep_variant", "phases_cpu", "phases_gpu"):
            if key in g12 and g12[key] not in VARIANTS:
                errors.append(f"gerritsen2012_mst/{key}: {g12[key]!r} is not one of "
                              f"{', '.join(VARIANTS)}")
        shards, blocks = g12.get("block_shards", 1), g12.get("blocks", 16)  # (the rule's default)
        if shards > blocks:  # (checked after the schema: both whole numbers)
            errors.append(f"gerritsen2012_mst/block_shards: {shards} shards of {blocks} blocks: "
                          "at most one shard a block")
        again = g12.get("block_repeat_shards") or []
        if again and shards <= 1:
            errors.append(f"gerritsen2012_mst/block_repeat_shards: {again} given while "
                          "block_shards is 1: only a shard can be timed again (block_shards > 1)")
        elif beyond := [i for i in again if i >= shards]:
            errors.append(f"gerritsen2012_mst/block_repeat_shards: shard(s) "
                          f"{', '.join(map(str, beyond))} of {shards} shards: each must be "
                          f"0..{shards - 1}")
        for key in ("terrain", "phases_terrain", "full_terrain"):
            if key in g12 and g12[key] not in terrains:
                errors.append(f"gerritsen2012_mst/{key}: terrain {g12[key]!r} is not defined "
                              f"under terrains:")
    return errors


def run_id_errors(run_id: str) -> list[str]:
    from .solvers import resolve

    try:
        resolve(run_id)
    except InputError as e:
        return [str(e)]
    return []


def unshowable(target: str, run_id: str) -> str | None:
    """Why ``target``'s table cannot show ``run_id`` (it would be run, verified and dropped from
    the table without a word), or None."""
    from .experiments import all_targets

    t = next((t for t in all_targets() if t.name == target), None)
    if t is None or not t.cannot_show(run_id):
        return None
    from .solvers import parse_run_id

    shown = sorted({parse_run_id(r)[0] for r in t.solvers} | set(t.also_shows))
    return (f"run {run_id!r} cannot be shown by target {target}'s table (its solvers: "
            f"{', '.join(shown)}); it would be run and left out of the table")


def settings_errors(table: str, settings: dict) -> list[str]:
    """A gerritsen2012 chapter-5 target's settings against the table's own: known keys, and each
    value of its default's kind (a number where a number goes, a list of numbers for a list)."""
    from .experiments.gerritsen2012_sssp_run import DEFAULTS

    if table not in DEFAULTS:
        return [f"unknown table {table!r}"]
    known = {**DEFAULTS[table], "timeout_s": 0, "cpu_threads": 0}
    errors = []
    for key, value in settings.items():
        if key not in known:
            errors.append(f"unknown setting {key!r}; known: {', '.join(DEFAULTS[table])}")
            continue
        default = known[key]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, str):
            ok = isinstance(value, str)
        elif isinstance(default, list):
            ok = isinstance(value, list) and all(
                (_finite_number(v) and v >= 0) or
                (isinstance(v, list) and all(_finite_number(x) and x >= 0 for x in v))
                for v in value)
        else:  # a number, or None meaning "the default"
            ok = (value is None and default is None) or (_finite_number(value) and value >= 0)
        if not ok:
            kind = ("true or false" if isinstance(default, bool) else "text"
                    if isinstance(default, str) else "a list of numbers >= 0"
                    if isinstance(default, list) else "a number >= 0")
            errors.append(f"{key}: {value!r} is not {kind}")
    return errors


# Our largest config is about 2,000 values; a YAML alias bomb that got past the file's own check
# (a --config value, a merge) reaches 10^9, which the schema's walk would take hours over.
MAX_VALUES = 100_000


def _too_many_values(config) -> bool:
    count, stack = 0, [config]
    while stack:
        value = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return True
        if isinstance(value, dict):
            stack.extend(value.values())
            count += len(value)  # the keys
        elif isinstance(value, list):
            stack.extend(value)
    return False


def check_config(config: dict, schema_path=SCHEMA, *, semantic: bool = True) -> None:
    """Raise InputError naming every problem (one line each) unless the config is sound.
    ``semantic=False``: the schema only (its names and paths; a fraction of a second, where the
    rest is left to the workflow's own check)."""
    if _too_many_values(config):
        raise InputError(f"bad config: more than {MAX_VALUES:,} values (a YAML alias bomb?); "
                         "refused before any check walks it")
    errors = schema_errors(config, schema_path)
    if not errors and semantic:
        errors = semantic_errors(config)
    if errors:
        shown = errors[:10] + ([f"... and {len(errors) - 10} more"] if len(errors) > 10 else [])
        raise InputError(strip_credentials("bad config: " + "; ".join(shown)))
