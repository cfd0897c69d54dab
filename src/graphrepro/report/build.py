"""``reports/index.html``: the claims ledger first, then each target's claims, figure and table.

The page is self-contained (figures and CSVs are embedded) so it can be mailed or archived as one
file. It reads one ledger, this machine's rows merged with the committed reference run's
(``report/ledger.py::precedence``, each row naming its run), and shows every claim with that one
number: in the claims table, in its section, and in the section's table where a row stands for
it. A target whose claims come from the reference run, or that this machine could not run, shows
the reference run's table, labelled with the commit, config, date and device of its runs.
Sections are collapsed to a line with their verdict counts; each reason is said once.
"""

from __future__ import annotations

import base64
import datetime as _dt
from pathlib import Path

import jinja2
import pandas as pd

from .. import atomic, gpu
from ..bounded import load_json, read_csv
from ..claims import split_ids
from ..documents import DOCUMENTS, all_documents
from ..experiments import all_targets, published
from ..harness.measure import NOT_RUN_NO_GPU
from ..harness.provenance import STUDY_PACKAGES
from .distributions import section_distributions
from .heldout import section_view
from .ledger import (
    FROM_RUN,
    REFERENCE,
    THIS_MACHINE,
    VERDICTS,
    read_ledger,
    the_ledger,
    verdict_counts,
)
from .page import (
    checked_against,
    claim_rows,
    ours_text,
    previous_reference_ledger,
    verification,
    what_changed,
)
from .present import csv_href, explanations, html_table
from .provenance import benchmark_devices, table_provenance
from .replicates import commit_line, drift_by_kind, read_drift
from .summary import write_summary
from .tables import figure_caption, figure_is_empty


def _embed_png(path: Path) -> str | None:
    if not path.is_file():
        return None
    if figure_is_empty(path):  # drawn with nothing to show: no placeholder image on the page
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def _provenances(root: Path) -> list[dict]:
    seen, out = set(), []
    for p in sorted(root.glob("runs/**/*.provenance.json")):
        record = load_json(p)
        key = (record.get("host"), record.get("gpu"), record.get("commit"))
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out


def _this_run_commits(results: Path) -> dict:
    """This machine's run as commit_line reads a run record: each commit its runs name."""
    return {"calls": [{"commit": p.get("commit"), "date": p.get("date", "")}
                      for p in _provenances(results) if p.get("commit")]}


def _reference(reference: Path) -> dict | None:
    prov = reference / "provenance.json"
    if not prov.is_file():
        return None
    return load_json(prov)


def _launch_floor(results: Path, reference: Path) -> dict | None:
    """What one launch costs: measured here (the launch_floor rule), else the reference run's."""
    for root, where in ((results, "this machine"), (reference, "the reference run's machine")):
        path = root / "benchmarks" / "launch_floor.csv"
        if not path.is_file():
            continue
        df = read_csv(path, keep_default_na=False)
        measured = df[df["value"].astype(str) != ""]
        if measured.empty:
            continue  # "not run: no GPU" here: show the reference's instead, if any
        native = measured[(measured["path"] == "native") & (measured["measure"] == "harish_round")]
        device = str(measured["device"].iloc[0]) if "device" in measured else ""
        return {"where": where, "device": device,
                "table": html_table(measured[["measure", "path", "note", "value", "unit"]]
                                    .astype(str), "t-launch-floor"),
                "native_round_us": float(native["value"].iloc[0]) if len(native) else None}
    return None


def _beside_floor(df: pd.DataFrame, floor: dict | None) -> pd.DataFrame:
    """Each per-round column (us/iteration, us/round) followed by the native round's floor."""
    if not floor or floor["native_round_us"] is None:
        return df
    df = df.copy()
    for col in [c for c in df.columns if c.endswith(("us/iteration", "us/round"))]:
        df.insert(df.columns.get_loc(col) + 1, f"{col}: native floor",
                  f"{floor['native_round_us']:.1f}")
    return df


def _read(path: Path) -> pd.DataFrame | None:
    from ..harness.files import check_csv

    if not path.is_file():
        return None
    check_csv(path)  # a table cut short is named, not shown with gaps
    return read_csv(path, dtype=str, keep_default_na=False)


def _not_run_here(df: pd.DataFrame | None) -> bool:
    return df is not None and bool(df.apply(lambda c: c.str.contains(NOT_RUN_NO_GPU, regex=False))
                                   .to_numpy().any())


def _uses_gpu(t) -> bool:
    from ..solvers import load_all, resolve

    load_all()
    return any(resolve(r)[0].device == "gpu" for r in t.solvers)


def _ledger_values(df: pd.DataFrame, ledger: pd.DataFrame | None, run: str) -> pd.DataFrame:
    """A table's rows that stand for a claim show the ledger's number for it, never a second
    one: the one row of a claim takes the ledger's ``ours`` (with its interval) and verdict; the
    rows a claim spans (one graph each) keep their own values and take the claim's verdict. Where
    the ledger took the claim from the other run, the verdict cell says so, with that run's
    value and setting, so no value of one run sits under the other's label. The table's own
    cells stay in its CSV."""
    if ledger is None or "claim_id" not in df.columns:
        return df
    from .page import setting_text

    by_id = {r["claim_id"]: r for r in ledger.to_dict("records") if r.get("claim_id")}
    ids = {i: split_ids(cell) for i, cell in df["claim_id"].items()}
    rows_of = {}
    for i, claims in ids.items():
        for c in claims:
            rows_of.setdefault(c, []).append(i)
    df = df.copy()
    for i, claims in ids.items():
        known = [by_id[c] for c in claims if c in by_id]
        if not known:
            continue
        said = []
        for r in known:
            elsewhere = r.get(FROM_RUN, run) != run
            if elsewhere:
                said.append(f"{r['verdict']} ({r[FROM_RUN]}, {setting_text(r)}: {ours_text(r)})")
            else:
                said.append(r["verdict"])
        if "verdict" in df.columns:
            df.at[i, "verdict"] = "; ".join(said)
        if len(claims) == 1 and "ours" in df.columns and len(rows_of[claims[0]]) == 1 \
                and known[0].get(FROM_RUN, run) == run and str(known[0].get("ours", "")):
            df.at[i, "ours"] = ours_text(known[0])
    return df


def _shown(t, root: Path, df: pd.DataFrame, run: str, floor: dict | None = None,
           ledger: pd.DataFrame | None = None) -> dict:
    """What a section shows of one run's table: summary, figure, table, CSV, label notes."""
    shown = _beside_floor(_ledger_values(df, ledger, run), floor)
    return {"run": run, "summary": _summary(t, df, root / "targets" / f"{t.name}.claims.csv"),
            "figure": _embed_png(root / "figures" / f"{t.name}.png"),
            "caption": figure_caption(root / "figures" / f"{t.name}.png"),
            "table": html_table(shown, f"t-{t.name}-{'ref' if run == REFERENCE else 'here'}"),
            "csv": csv_href(df), "csv_name": f"{t.name}{'-reference' if run == REFERENCE else ''}.csv",
            "explain": explanations(df), "checked": checked_against(t, df)}


def _data_short(data: str) -> str:
    """A claim's data in a few words for the claims table ("stand-ins: 7 graphs"); the cell's
    title and the claims CSV keep every graph's full description."""
    parts = [p for p in data.split("; ") if p.strip()]
    if len(parts) <= 1 and len(data) <= 80:
        return data
    kinds = {"stand-in": 0, "real topology": 0, "real": 0}
    for p in parts:
        low = p.lower()
        kind = ("stand-in" if "stand-in" in low else "real topology" if "real topology" in low
                else "real")
        kinds[kind] += 1
    names = ", ".join(p.split(":")[0] for p in parts)
    return "; ".join(f"{k}{'s' if n != 1 and k == 'stand-in' else ''}: {n}"
                     for k, n in kinds.items() if n) + f" ({names})"


def _claim_rows(ledger: pd.DataFrame) -> list[dict]:
    return [{**r, "data_shown": _data_short(str(r.get("data") or ""))} for r in claim_rows(ledger)]


def build_report(results: Path, output: Path, *, reference: Path, config_path: Path | None = None,
                 claims: Path | None = None, reference_claims: Path | None = None,
                 reference_config: dict | None = None):
    """The page. ``claims``/``reference_claims``: the runs' ledger CSVs where they exist (else
    the rows gathered from each target's claims file); ``reference_config``: the merged config the
    reference run used, to credit each reference table with its own runs' provenance."""
    ref_prov = _reference(reference)
    floor = _launch_floor(results, reference)
    targets = [t for t in all_targets() if t.ready]
    # a report over the reference run itself (results == reference): everything is the reference's
    alone = ref_prov is not None and results.resolve() == reference.resolve()
    local_tables = {t.name: None if alone else _read(results / "targets" / f"{t.name}.csv")
                    for t in targets}
    ref_tables = {t.name: (_read(reference / "targets" / f"{t.name}.csv") if ref_prov else None)
                  for t in targets}
    # GPU targets this machine did not run, and targets only the reference run measured
    no_gpu = not gpu.cuda_available()
    use_ref = {t.name for t in targets if ref_tables[t.name] is not None
               and (local_tables[t.name] is None or _not_run_here(local_tables[t.name])
                    or (no_gpu and _uses_gpu(t)))}
    if alone:  # the reference run's own page: its ledger, every row its run's
        ledger = read_ledger(reference_claims if reference_claims and reference_claims.is_file()
                             else reference / "claims.csv").assign(**{FROM_RUN: REFERENCE})
        ledger_source = str(reference_claims or reference / "claims.csv")
    else:
        ledger, ledger_source = the_ledger(results, reference if ref_prov else None, claims=claims,
                                           reference_claims=reference_claims if ref_prov else None,
                                           gpu_here=not no_gpu)
    # a target with claims shows the table of the run its claims come from: the reference run's
    # where they all do, else this machine's own table wherever it made one (issue 53)
    by_target = ledger.groupby("target")[FROM_RUN].agg(lambda s: set(s))
    judged_here = set(ledger.loc[(ledger[FROM_RUN] == THIS_MACHINE)
                                 & (ledger["verdict"] != "not testable here"), "target"])
    for t, runs in by_target.items():
        if runs == {REFERENCE} and ref_tables.get(t) is not None:
            use_ref.add(t)
        elif t in judged_here and local_tables.get(t) is not None:
            use_ref.discard(t)
    # the report's order: documents as listed, targets as registered, claims as the ledger has them
    order = {t.name: i for i, t in enumerate(all_targets())}
    docs = {d.short: i for i, d in enumerate(all_documents())}
    ledger = ledger.assign(_d=ledger["document"].map(docs).fillna(len(docs)),
                           _t=ledger["target"].map(order).fillna(len(order))).sort_values(
        ["_d", "_t"], kind="stable").drop(columns=["_d", "_t"]).reset_index(drop=True)
    ref_settings = (reference_config or {}).get("targets", {})

    sections = []
    # the documents, those plugins brought, then today's best, beside the documents (issue 21)
    for doc in all_documents():
        items = []
        for t in [t for t in all_targets() if t.document == doc.short]:
            item = {"target": t, "shown": None, "other": None, "published": None,
                    "not_run_line": False, "provenance": None, "devices": None,
                    "claims": _claim_rows(mine := ledger[ledger["target"] == t.name])}
            local, ref = local_tables.get(t.name), ref_tables.get(t.name)
            if t.name in use_ref:
                item["shown"] = _shown(t, reference, ref, REFERENCE, floor, mine)
                if local is not None:  # its own table, if it ran any of it, collapsed below
                    item["not_run_line"] = "no GPU" if _not_run_here(local) else "set aside"
                    if not _not_run_here(local):
                        item["other"] = _shown(t, results, local, THIS_MACHINE, floor, mine)
            elif local is not None:
                item["shown"] = _shown(t, results, local, THIS_MACHINE, floor, mine)
                if ref is not None:
                    item["other"] = _shown(t, reference, ref, REFERENCE, floor, mine)
            if item["shown"] and t.name == "frontier_sssp":  # tuning apart from held-out graphs
                item["peers"] = section_view(ref if item["shown"]["run"] == REFERENCE else local,
                                             item["shown"]["run"])
            if (item["shown"] or {}).get("run") == REFERENCE or item["other"]:
                item["provenance"] = table_provenance(reference, t, ref_settings.get(t.name))
                if not item["provenance"]:
                    item["devices"] = benchmark_devices(reference, t)
            if item["shown"] is None:
                pub = published(doc.short)
                pub = pub[pub["item"] == t.item]
                if len(pub):
                    item["published"] = html_table(
                        pub[["where", "row", "column", "value", "unit", "note"]], f"p-{t.name}")
            item["tally"] = _tally(ledger[ledger["target"] == t.name])
            if item["shown"]:
                root = reference if item["shown"]["run"] == REFERENCE else results
                item["distributions"] = section_distributions(root, t.name)
            items.append(item)
        sections.append({"doc": doc, "entries": items,
                         "tally": _tally(ledger[ledger["document"] == doc.short])})

    counts = verdict_counts(ledger, [d.short for d in DOCUMENTS])
    previous, changes_against = (previous_reference_ledger(reference) if ref_prov
                                 else (None, ""))
    current_ref = (read_ledger(reference / "claims.csv")
                   if ref_prov and (reference / "claims.csv").is_file() else None)
    changes = what_changed(current_ref, previous) if current_ref is not None else []
    # the run a page speaks for is the reference run where there is one: its replicates' drift
    drift = read_drift(reference if ref_prov else results)
    rows_shown = _claim_rows(ledger)
    env = jinja2.Environment(loader=jinja2.PackageLoader("graphrepro.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    html = env.get_template("index.html.j2").render(
        generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        runs_counted={"reference": int((ledger[FROM_RUN] == REFERENCE).sum()),
                      "here": int((ledger[FROM_RUN] != REFERENCE).sum()),
                      "set_aside": int((ledger.get("other_from_run", pd.Series(dtype=str))
                                        .astype(str) != "").sum())},
        sections=sections, launch_floor=floor, verdicts=VERDICTS, counts=counts, claims=rows_shown,
        claims_csv=csv_href(ledger), ledger_source=ledger_source,
        changes=changes, changes_against=changes_against,
        drift=drift_by_kind(drift), drift_measured=drift is not None,
        replicated=sum(1 for r in rows_shown if r["replicates"]),
        commit=commit_line(ref_prov) if ref_prov else commit_line(_this_run_commits(results)),
        verified=verification(reference) if ref_prov else None,
        reference_targets=sorted(use_ref), not_run_here=bool(use_ref) or any(
            _not_run_here(df) for df in local_tables.values()),
        provenances=[] if alone else _provenances(results), reference=ref_prov,
        study_packages=STUDY_PACKAGES,
        config_text=config_path.read_text() if config_path and config_path.is_file() else None,
        config_name=str(config_path) if config_path else None,
        stand_ins=_stand_ins(results), terrains=_terrains(results),
        standins=_standins(results), terrain_compare=_terrain_compare(results),
        # what the reference run's verdicts on stand-ins rest on, beside this machine's
        ref_standins=(_standins(reference, "t-standins-reference")
                      if ref_prov and not alone else None),
        ref_terrain_compare=(_terrain_compare(reference, "t-terrain-compare-reference")
                             if ref_prov and not alone else None))
    atomic.write_text(output, html)
    write_summary(output, ledger, ledger_source, use_ref)
    return ledger


def _tally(rows: pd.DataFrame) -> list[tuple[str, int]]:
    """(verdict, count) for the verdicts these ledger rows have, in the ledger's order."""
    return [(v, int((rows["verdict"] == v).sum())) for v in VERDICTS
            if (rows["verdict"] == v).any()]


def _summary(target, table: pd.DataFrame, claims: Path | None = None) -> str | None:
    """The target's own sentence where it has no claims (a target with claims shows their rows
    instead: each reason is said once, in the claims table); a broken one must not sink the
    page."""
    try:
        if claims is not None and claims.is_file():
            rows = read_csv(claims, dtype=str, keep_default_na=False)
            if len(rows):
                return None
        if target.summary is None:
            return None
        return target.summary(table)
    except Exception as e:  # noqa: BLE001  (the table is still shown; say why the text is not)
        return f"(summary unavailable: {type(e).__name__}: {e})"


def _stand_ins(results: Path) -> list[dict]:
    """Every graph of this run, with what it is: real data, a labelled stand-in, or synthetic."""
    from ..datasets.origin import describe_origin

    out = []
    for p in sorted((results / "sources").glob("*.json")):
        record = load_json(p)
        origin = record.get("origin") or {}
        out.append({"graph": record["graph"], "stands_for": record.get("stands_for"),
                    "kind": origin.get("kind"), "data": describe_origin(origin) if origin else "",
                    "published": origin.get("published") or {},
                    "vertices": record["stats"]["vertices"], "arcs": record["stats"]["arcs"],
                    "sources": len(record["sources"]), "seed": record["seed"]})
    return out


def _standins(results: Path, table_id: str = "t-standins") -> dict | None:
    """The `standins` table (road stand-ins against the real graphs at hand), if it was made."""
    from ..datasets.standins import default_recipe_check

    path = results / "standins" / "standins.csv"
    if not path.is_file():
        return None
    df = read_csv(path, dtype=str, keep_default_na=False)
    if not len(df):
        return {"table": None, "summary": None}
    goals = df[df["graph"] == "stand-in"]
    met = [r["dataset"] for _, r in goals.iterrows() if r["goal"] == "meets"]
    missed = [f"{r['dataset']} ({r['goal'][len('misses: '):]})" for _, r in goals.iterrows()
              if r["goal"] != "meets"]
    summary = (f"Goal met by {', '.join(met) or 'none'}"
               + (f"; missed by {'; '.join(missed)}" if missed else "") + ".")
    if check := default_recipe_check(df):
        summary += " " + check
    for key in df.loc[df["harish_median"] != "", "dataset"].unique():
        pair = df[df["dataset"] == key].set_index("graph")["harish_median"]
        if {"real", "stand-in"} <= set(pair.index):
            summary += (f" Harish iterations on {key} (not part of the goal): stand-in median "
                        f"{pair['stand-in']}, real {pair['real']}.")
    return {"table": html_table(df, table_id), "summary": summary}


def _terrain_compare(results: Path, table_id: str = "t-terrain-compare") -> dict | None:
    """gerritsen2012 per-block timings on a real terrain beside its stand-in's, if made."""
    path = results / "standins" / "terrain_compare.csv"
    if not path.is_file():
        return None
    meta = path.with_suffix(".json")
    what = load_json(meta) if meta.is_file() else {}
    df = read_csv(path, dtype=str, keep_default_na=False)
    return {"table": html_table(df, table_id), "real": what.get("real", ""),
            "standin": what.get("stand-in", "")}


def _terrains(results: Path) -> list[dict]:
    """Converted elevation grids (gerritsen2012), with what each one is."""
    from ..datasets.origin import describe_origin, read_origin

    out = []
    for p in sorted((results / "terrain").glob("*.zgrid.origin.json")):
        origin = read_origin(p)
        c = origin.get("converted", {})
        out.append({"name": p.name[: -len(".zgrid.origin.json")], "kind": origin.get("kind"),
                    "document_name": origin.get("document_name", ""),
                    "data": describe_origin(origin), "rows": c.get("rows"), "cols": c.get("cols"),
                    "side": c.get("side"), "unknown": c.get("unknown_values")})
    return out
