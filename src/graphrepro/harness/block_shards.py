"""gerritsen2012 chapter 3's centre blocks timed in shards, and the shards merged back.

The thesis timed its 10,000 centre blocks one after another, in one program. `mst-blocks --shard
I/N` times every N-th of them (``mst_measure.shard_blocks``) in a job of its own, so that one
version's blocks spread over a host's GPUs (one GPU job a GPU at a time) or, for a CPU version,
over its timed cores (``host_cpu_slots`` one-core timings side by side). `merge-blocks` joins a
version's shards into the one table the chapter's targets read, once it has checked they are
exactly the shards of one measurement, and says how the blocks were timed where that is not
the thesis's one at a time: ``timed_as`` on the table's first row (as near-far's series, not
repeated on 10,000 rows) and in the merged provenance record, from what each shard's record
says of its placement and when its timed blocks ran.

Versions are timed in separate passes (other calls, other days), never interleaved, so a
comparison of two versions holds whatever the machine drifted by between their passes. A few
shards of each version timed again (``block_repeat_shards``: ``--repeats``) are the measure of
that drift: the merged table keeps their rows as ``pass`` 2 (the shards' rows are pass 1), and
the chapter's evidence reads every statistic from pass 1 and the drift from the two.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from ..bounded import read_csv
from ..errors import InputError
from ..placement import last_level_caches
from ..solvers.gerritsen2012.mst_measure import shard_blocks
from .files import check_csv, read_record
from .shards import check_alike, parse_shard

# What every shard of one measurement has alike (a shard that did not run has some of them).
SAME = ("variant", "per_block", "reduce", "device", "block_side", "blocks", "grid", "rows", "cols")


def passes(table: pd.DataFrame) -> pd.Series:
    """Each row's pass: a table without the column (an older run's, an unsharded one) is all
    pass 1."""
    if "pass" not in table:
        return pd.Series(1, index=table.index)
    return pd.to_numeric(table["pass"], errors="coerce").fillna(1).astype(int)


def block_job_record(record: dict, table: pd.DataFrame, *, settings: dict,
                     started_s: float | None, wall_s: float) -> dict:
    """A block job's provenance record (a shard's, or a whole table's): the machine's
    (``record``), the settings, the caches its cores share, and the job's times: `graphrepro
    plan` predicts the next jobs from its seconds a block, the merge finds which shards were
    timed at once from its timed span."""
    timed = table.attrs.get("timed_unix")
    ok = table[table["status"] == "ok"] if "status" in table else table.iloc[0:0]
    job = {"startup_s": started_s, "wall_s": (started_s or 0.0) + wall_s,
           "blocks": int(ok["block"].nunique()) if len(ok) else 0,
           "block_side": settings.get("block_side"), "trials": settings.get("trials"),
           "timed_s": timed[1] - timed[0] if timed else 0.0,
           "timed_start_unix": timed[0] if timed else None,
           "timed_end_unix": timed[1] if timed else None, "end_unix": time.time()}
    return {**record, "settings": settings, "last_level_caches": last_level_caches(),
            "job": {k: round(v, 4) if isinstance(v, float) and not k.endswith("_unix") else v
                    for k, v in job.items()}}


def _label(path: Path, table: pd.DataFrame) -> tuple[int, int]:
    got = table["shard"].dropna().unique() if "shard" in table else []
    if len(got) != 1:
        raise InputError(f"{path}: not a table of `mst-blocks --shard I/N` (its shard column: "
                         f"{sorted(map(str, got)) or 'none'})")
    return parse_shard(str(got[0]))


def _in_order(paths: list[Path], tables: list[pd.DataFrame]) -> list[int]:
    """The shards' positions by shard number, once every shard 0..N-1 is there exactly once."""
    labels = [_label(p, t) for p, t in zip(paths, tables)]
    splits = sorted({n for _, n in labels})
    if len(splits) != 1:
        raise InputError(f"{paths[0]}: shards of different splits ({', '.join(map(str, splits))} "
                         "shards) cannot be merged")
    n, where = splits[0], {}
    for k, (i, _) in enumerate(labels):
        if i in where:
            raise InputError(f"shard {i}/{n} given twice: {paths[where[i]]} and {paths[k]}")
        where[i] = k
    missing = [f"{i}/{n}" for i in range(n) if i not in where]
    if missing:
        raise InputError(f"shard(s) {', '.join(missing)} missing: {len(paths)} of {n} given "
                         f"(first: {paths[0]})")
    return [where[i] for i in range(n)]


def _check_blocks(paths, tables, n: int) -> int:
    """Shard i holds exactly the blocks shard_blocks gives it, each trial once: so the shards'
    blocks are distinct and together every chosen block."""
    total = int(tables[0]["blocks"].iloc[0])
    for i, (p, t) in enumerate(zip(paths, tables)):
        want, got = set(shard_blocks(total, (i, n))), set(t["block"].astype(int))
        if got != want:
            extra, short = sorted(got - want)[:5], sorted(want - got)[:5]
            raise InputError(f"{p}: shard {i}/{n} of {total} blocks should hold blocks {i}, "
                             f"{i + n}, ... (shard_blocks); it has {extra or 'none'} beyond them "
                             f"and lacks {short or 'none'}")
        if t.duplicated(["block", "trial"]).any():
            raise InputError(f"{p}: a block's trial twice")
    return total


def _record_of(path: Path) -> dict:
    prov = path.with_suffix(".provenance.json")
    if not prov.is_file():
        raise InputError(f"{prov}: missing; a shard's record says where and when its blocks "
                         "were timed")
    return read_record(prov, "a shard's provenance record")


def _read(paths: list[Path]) -> list[pd.DataFrame]:
    for p in paths:
        check_csv(p)
    return [read_csv(p) for p in paths]


def _ran(table: pd.DataFrame) -> bool:
    return ("status" in table) and bool((table["status"] == "ok").any())


def _repeat_indices(repeats, rtables, tables, n: int) -> list[int]:
    """Which shard each repeat times again, once each, as a shard of this very measurement."""
    indices: list[int] = []
    for rp, rt in zip(repeats, rtables):
        i, m = _label(rp, rt)
        if m != n:
            raise InputError(f"{rp}: a repeat of shard {i}/{m}, but the shards are {n}")
        if i in indices:
            raise InputError(f"shard {i}/{n} repeated twice: {repeats[indices.index(i)]} and {rp}")
        indices.append(i)
        check_alike([rp], [*tables, rt], SAME,
                    problem="{path}: not a repeat of these shards: their {key}s differ ({seen})")
    return indices


def _check_repeat_blocks(repeats, rtables, indices, paths, tables, n: int) -> None:
    """A second pass times exactly the blocks its first pass timed, each trial once: else the
    two passes' means differ by their blocks, not by the machine's drift."""
    for rp, rt, i in zip(repeats, rtables, indices):
        got, want = set(rt["block"].astype(int)), set(tables[i]["block"].astype(int))
        if got != want:
            raise InputError(f"{rp}: a repeat of shard {i}/{n} should time the blocks its first "
                             f"pass timed ({paths[i]}); it has {sorted(got - want)[:5] or 'none'} "
                             f"beyond them and lacks {sorted(want - got)[:5] or 'none'}")
        if rt.duplicated(["block", "trial"]).any():
            raise InputError(f"{rp}: a block's trial twice")


def merge_block_shards(paths: list[Path], repeats: list[Path] = ()) -> tuple[pd.DataFrame, dict]:
    """(the version's table, its provenance record) from all N shard tables of it, and the
    ``repeats`` (shards of it timed again as a second pass), each with its provenance record
    beside it; anything that is not exactly that is refused."""
    paths, repeats = [Path(p) for p in paths], [Path(p) for p in repeats]
    if not paths:
        raise InputError("no shard tables to merge")
    tables = _read(paths)
    order = _in_order(paths, tables)
    paths, tables = [paths[k] for k in order], [tables[k] for k in order]
    n = len(paths)
    check_alike(paths, tables, SAME)
    records = [_record_of(p) for p in paths]
    rtables = _read(repeats)
    indices = _repeat_indices(repeats, rtables, tables, n)
    again = [_record_of(p) for p in repeats]
    more = {"repeats": again} if repeats else {}
    ran = [_ran(t) for t in (*tables, *rtables)]
    if not any(ran):  # not run anywhere (no GPU here): one row saying why, as unsharded
        return tables[0].drop(columns="shard").head(1), {**records[0], "shards": records, **more}
    if not all(ran):
        k = ran.index(False)
        p, t = (paths + repeats)[k], (tables + rtables)[k]
        raise InputError(f"{p}: shard {_label(p, t)[0]}/{n} did not run ({t['status'].iloc[0]}) "
                         "while the others did: not one table")
    names = sorted({str(v) for t in (*tables, *rtables) for v in t["device_name"].dropna().unique()})
    if len(names) > 1:
        raise InputError(f"{paths[0]}: shards timed on different devices ({', '.join(names)}): "
                         "their blocks cannot be one table")
    total = _check_blocks(paths, tables, n)
    _check_repeat_blocks(repeats, rtables, indices, paths, tables, n)
    merged = (pd.concat([t.assign(**{"pass": 1}) for t in tables]
                        + [t.assign(**{"pass": 2}) for t in rtables], ignore_index=True)
              .sort_values(["pass", "block", "trial"], kind="stable").reset_index(drop=True))
    facts = {**timing_facts(merged, records, n, total), "repeats": sorted(indices)}
    text = how_timed(facts)
    if text:
        merged["timed_as"] = [text] + [None] * (len(merged) - 1)
    return merged, {**records[0], "shards": records, **more, "block_shards": facts,
                    "timed_as": text}


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    """The most spans that overlap at one moment (one ending as another begins: not at once)."""
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def _gpu_of(record: dict) -> str | None:
    """The GPU a shard ran on: its PCI id, else the one device it was bound to."""
    seen = (record.get("placement") or {}).get("cuda_visible_devices")
    return record.get("pci_bus_id") or (seen if seen and "," not in str(seen) else None)


def timing_facts(merged: pd.DataFrame, records: list[dict], n: int, total: int) -> dict:
    """What the shards' records show of how the blocks were timed (None: not recorded)."""
    jobs = [r.get("job") or {} for r in records]
    spans = [(j["timed_start_unix"], j["timed_end_unix"]) for j in jobs
             if j.get("timed_start_unix") is not None and j.get("timed_end_unix") is not None]
    places = [r.get("placement") or {} for r in records]
    pinned = [str(p.get("pinned")) for p in places]
    caches = [r.get("last_level_caches") for r in records]
    gpus = [_gpu_of(r) for r in records]
    return {"shards": n, "blocks": total, "device": str(merged["device"].iloc[0]),
            "device_name": str(merged["device_name"].iloc[0]),
            "reduce": str(merged["reduce"].iloc[0]),
            "cpu_slots": max(int(p.get("cpu_slots") or 1) for p in places),
            "at_once": _most_at_once(spans) if len(spans) == n else None,
            "pinned": sorted(set(pinned)),
            "slot_cores": sorted({int(m[1]) for p in pinned if (m := re.match(r"slot (\d+) of", p))}),
            "last_level_caches": sorted({c for cs in caches for c in cs}) if all(caches) else None,
            "gpus": sorted(set(gpus)) if all(gpus) else None}


def how_timed(facts: dict) -> str:
    """One sentence: how a version's blocks were timed, where not as the thesis did (one after
    another in one job: ''); it says no more than the shards' records show, and which shards
    were timed again as a second pass."""
    text, again = _how_placed(facts), facts.get("repeats")
    if again:
        text += ("; " if text else "") + (f"shard{'s' * (len(again) > 1)} "
                                          f"{', '.join(map(str, again))} timed again in a second "
                                          "pass, for the drift between passes")
    return text


def _how_placed(facts: dict) -> str:
    n, m = facts["shards"], facts.get("at_once")
    if n <= 1:
        return ""
    head = f"blocks timed in {n} shards (shard i timing blocks i, i+{n}, i+{2 * n}, ...)"
    thesis = "the thesis timed them one at a time"
    if m is None:
        head += " (when each was timed is not recorded)"
    if facts["device"] == "cpu":
        if m and m > 1 and facts["cpu_slots"] > 1:
            llc = facts.get("last_level_caches")
            shared = ("sharing one last-level cache and the memory bus" if llc and len(llc) == 1
                      else "on different last-level caches of one host" if llc
                      else "on one host (which caches they shared is not recorded)")
            return (f"{head}, up to {m} at a time side by side on cores of their own, one thread "
                    f"each, {shared}; {thesis}")
        if m and m > 1:
            return f"{head}, up to {m} at a time on cores not kept apart; {thesis}"
        where = (" on a core of its own" if facts["slot_cores"] else
                 " on the cores kept for timing" if facts["pinned"] == ["timed"] else "")
        return (f"{head}, one shard at a time{where}: one after another, as the thesis" if m == 1
                else f"{head}; {thesis}")
    gpus, model = facts.get("gpus"), facts["device_name"]
    if gpus and len(gpus) > 1:
        text = f"{head}, one job a GPU at a time on {len(gpus)} GPUs of one model ({model})"
        if m and m > 1:
            text += f", up to {m} at once"
            if facts["reduce"].startswith("cpu") and facts["pinned"] == ["untimed"]:
                text += (", their CPU reduce steps on each job's host thread, side by side on "
                         "the host's untimed cores")
        return f"{text}; {thesis} on one GPU"
    if gpus:
        return (f"{head}, all on one GPU ({model})"
                + (", one after another, as the thesis" if m == 1 else f"; {thesis}"))
    return f"{head}, one job a GPU at a time ({model}; which GPU each ran on is not recorded)"
