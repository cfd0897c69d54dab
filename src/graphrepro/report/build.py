"""``reports/index.html``: each document's tables and figures, published values beside ours.

The page is self-contained (figures are embedded) so it can be mailed or archived as one file.
GPU results that could not run on this machine are shown as "not run", and where a reference run
from a GPU machine is committed under ``reports/reference/`` it is shown beside them, labelled
with the machine, versions, commit and date it came from.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
from pathlib import Path

import jinja2
import pandas as pd

from ..documents import DOCUMENTS
from ..experiments import all_targets, published
from ..harness.measure import NOT_RUN_NO_GPU

VERDICT_CLASSES = {"holds": "holds", "differs": "differs", "not run": "notrun",
                   "pending": "pending", "not implemented in this study": "na"}


_DECIMAL = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?|-?\d+e[-+]?\d+")  # integers stay as written


def _html_table(df: pd.DataFrame) -> str:
    def fmt(v):
        if isinstance(v, str) and _DECIMAL.fullmatch(v):
            v = float(v)  # tables are read back as text: a measured 0.0750264998 shows as 0.07503
        if isinstance(v, float):
            return "" if pd.isna(v) else f"{v:,.4g}"
        return "" if v is None else str(v)

    head = "".join(f"<th>{jinja2.utils.markupsafe.escape(c)}</th>" for c in df.columns)
    body = []
    for _, row in df.iterrows():
        cells = []
        for c in df.columns:
            text = fmt(row[c])
            cls = ""
            if c == "verdict":
                key = text.split(":")[0].split(" (")[0].strip()
                cls = f' class="verdict {VERDICT_CLASSES.get(key, "pending")}"' if key else ""
            elif text.startswith("not run"):
                cls = ' class="notrun"'
            cells.append(f"<td{cls}>{jinja2.utils.markupsafe.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _embed_png(path: Path) -> str | None:
    if not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def _provenances(root: Path) -> list[dict]:
    seen, out = set(), []
    for p in sorted(root.glob("runs/**/*.provenance.json")):
        record = json.loads(p.read_text())
        key = (record.get("host"), record.get("gpu"), record.get("commit"))
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out


def _reference(reference: Path) -> dict | None:
    prov = reference / "provenance.json"
    if not prov.is_file():
        return None
    return json.loads(prov.read_text())


def build_report(results: Path, output: Path, *, reference: Path, config_path: Path | None = None):
    ref_prov = _reference(reference)
    sections = []
    verdicts: dict[str, int] = {}
    not_run_here = False
    for doc in DOCUMENTS:
        items = []
        mine = [t for t in all_targets() if t.document == doc.short]
        for t in sorted(mine, key=lambda t: not t.ready):  # measured tables first, plans after
            item = {"target": t, "table": None, "figure": None, "reference_table": None,
                    "reference_figure": None, "published": None, "summary": None,
                    "reference_summary": None}
            table_path = results / "targets" / f"{t.name}.csv"
            if t.ready and table_path.is_file():
                df = pd.read_csv(table_path, dtype=str, keep_default_na=False)
                item["table"] = _html_table(df)
                item["summary"] = _summary(t, df)
                item["figure"] = _embed_png(results / "figures" / f"{t.name}.png")
                for v in df.get("verdict", []):
                    key = v.split(":")[0].split(" (")[0].strip()
                    if key:  # rows that only report a measurement carry no verdict
                        verdicts[key] = verdicts.get(key, 0) + 1
                if df.apply(lambda col: col.str.startswith(NOT_RUN_NO_GPU)).any().any():
                    not_run_here = True
                ref_table = reference / "targets" / f"{t.name}.csv"
                if ref_prov and ref_table.is_file():
                    ref_df = pd.read_csv(ref_table, dtype=str, keep_default_na=False)
                    item["reference_table"] = _html_table(ref_df)
                    item["reference_summary"] = _summary(t, ref_df)
                    item["reference_figure"] = _embed_png(reference / "figures" / f"{t.name}.png")
            pub = published(doc.short)
            pub = pub[pub["item"] == t.item]
            if len(pub) and item["table"] is None:
                item["published"] = _html_table(pub[["where", "row", "column", "value", "unit", "note"]])
            items.append(item)
        sections.append({"doc": doc, "entries": items})

    env = jinja2.Environment(loader=jinja2.PackageLoader("graphrepro.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    html = env.get_template("index.html.j2").render(
        generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        sections=sections, verdicts=verdicts, not_run_here=not_run_here,
        provenances=_provenances(results), reference=ref_prov,
        config_text=config_path.read_text() if config_path and config_path.is_file() else None,
        config_name=str(config_path) if config_path else None,
        stand_ins=_stand_ins(results), terrains=_terrains(results),
        standins=_standins(results), terrain_compare=_terrain_compare(results))
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    tmp.write_text(html)
    tmp.replace(output)


def _summary(target, table: pd.DataFrame) -> str | None:
    """The target's own sentence on whether the claims hold; a broken one must not sink the page."""
    if target.summary is None:
        return None
    try:
        return target.summary(table)
    except Exception as e:  # noqa: BLE001  (the table is still shown; say why the text is not)
        return f"(summary unavailable: {type(e).__name__}: {e})"


def _stand_ins(results: Path) -> list[dict]:
    """Every graph of this run, with what it is: real data, a labelled stand-in, or synthetic."""
    from ..datasets.origin import describe_origin

    out = []
    for p in sorted((results / "sources").glob("*.json")):
        record = json.loads(p.read_text())
        origin = record.get("origin") or {}
        out.append({"graph": record["graph"], "stands_for": record.get("stands_for"),
                    "kind": origin.get("kind"), "data": describe_origin(origin) if origin else "",
                    "published": origin.get("published") or {},
                    "vertices": record["stats"]["vertices"], "arcs": record["stats"]["arcs"],
                    "sources": len(record["sources"]), "seed": record["seed"]})
    return out


def _standins(results: Path) -> dict | None:
    """The `standins` table (road stand-ins against the real graphs at hand), if it was made."""
    path = results / "standins" / "standins.csv"
    if not path.is_file():
        return None
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if not len(df):
        return {"table": None, "summary": None}
    goals = df[df["graph"] == "stand-in"]
    met = [r["dataset"] for _, r in goals.iterrows() if r["goal"] == "meets"]
    missed = [f"{r['dataset']} ({r['goal'][len('misses: '):]})" for _, r in goals.iterrows()
              if r["goal"] != "meets"]
    summary = (f"Goal met by {', '.join(met) or 'none'}"
               + (f"; missed by {'; '.join(missed)}" if missed else "") + ".")
    for key in df.loc[df["harish_median"] != "", "dataset"].unique():
        pair = df[df["dataset"] == key].set_index("graph")["harish_median"]
        if {"real", "stand-in"} <= set(pair.index):
            summary += (f" Harish iterations on {key} (not part of the goal): stand-in median "
                        f"{pair['stand-in']}, real {pair['real']}.")
    return {"table": _html_table(df), "summary": summary}


def _terrain_compare(results: Path) -> dict | None:
    """gerritsen2012 per-block timings on a real terrain beside its stand-in's, if made."""
    path = results / "standins" / "terrain_compare.csv"
    if not path.is_file():
        return None
    meta = path.with_suffix(".json")
    what = json.loads(meta.read_text()) if meta.is_file() else {}
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    return {"table": _html_table(df), "real": what.get("real", ""),
            "standin": what.get("stand-in", "")}


def _terrains(results: Path) -> list[dict]:
    """Converted elevation grids (gerritsen2012), with what each one is."""
    from ..datasets.origin import describe_origin

    out = []
    for p in sorted((results / "terrain").glob("*.zgrid.origin.json")):
        origin = json.loads(p.read_text())
        c = origin.get("converted", {})
        out.append({"name": p.name[: -len(".zgrid.origin.json")], "kind": origin.get("kind"),
                    "document_name": origin.get("document_name", ""),
                    "data": describe_origin(origin), "rows": c.get("rows"), "cols": c.get("cols"),
                    "side": c.get("side"), "unknown": c.get("unknown_values")})
    return out
