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

from ..documents import BEYOND, DOCUMENTS
from ..experiments import all_targets, published
from ..harness.measure import NOT_RUN_NO_GPU

# The rule's five verdicts (graphrepro.claims.rule), styled with the page's existing classes.
VERDICT_CLASSES = {"reproduced": "holds", "direction only": "pending", "not reproduced": "differs",
                   "inconclusive": "pending", "not testable here": "na",
                   "holds": "holds", "differs": "differs", "not run": "notrun",
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


def _launch_floor(results: Path, reference: Path) -> dict | None:
    """What one launch costs: measured here (the launch_floor rule), else the reference run's."""
    for root, where in ((results, "this machine"), (reference, "the reference run's machine")):
        path = root / "benchmarks" / "launch_floor.csv"
        if not path.is_file():
            continue
        df = pd.read_csv(path, keep_default_na=False)
        measured = df[df["value"].astype(str) != ""]
        if measured.empty:
            continue  # "not run: no GPU" here: show the reference's instead, if any
        native = measured[(measured["path"] == "native") & (measured["measure"] == "harish_round")]
        device = str(measured["device"].iloc[0]) if "device" in measured else ""
        return {"where": where, "device": device,
                "table": _html_table(measured[["measure", "path", "note", "value", "unit"]]
                                     .astype(str)),
                "native_round_us": float(native["value"].iloc[0]) if len(native) else None}
    return None


def _beside_floor(df: pd.DataFrame, floor: dict | None) -> pd.DataFrame:
    """Each per-round column (us/iteration, us/round) followed by the native round's floor."""
    if not floor or floor["native_round_us"] is None:
        return df
    for col in [c for c in df.columns if c.endswith(("us/iteration", "us/round"))]:
        df.insert(df.columns.get_loc(col) + 1, f"{col}: native floor",
                  f"{floor['native_round_us']:.1f}")
    return df


def build_report(results: Path, output: Path, *, reference: Path, config_path: Path | None = None,
                 claims: Path | None = None):
    """``claims``: this run's ledger (``reports/claims.csv``); the reference run's is
    ``reference/claims.csv``."""
    from ..harness.files import check_csv

    ref_prov = _reference(reference)
    floor = _launch_floor(results, reference)
    ledger = pd.read_csv(claims, dtype=str, keep_default_na=False) if claims and claims.is_file() \
        else None
    sections = []
    verdicts: dict[str, int] = {}
    not_run_here = False
    for doc in (*DOCUMENTS, BEYOND):
        items = []
        mine = [t for t in all_targets() if t.document == doc.short]
        for t in sorted(mine, key=lambda t: not t.ready):  # measured tables first, plans after
            item = {"target": t, "table": None, "figure": None, "reference_table": None,
                    "reference_figure": None, "published": None, "summary": None,
                    "reference_summary": None}
            table_path = results / "targets" / f"{t.name}.csv"
            if t.ready and table_path.is_file():
                check_csv(table_path)  # a table cut short is named, not shown with gaps
                df = pd.read_csv(table_path, dtype=str, keep_default_na=False)
                item["table"] = _html_table(_beside_floor(df.copy(), floor))
                item["summary"] = _summary(t, df, results / "targets" / f"{t.name}.claims.csv")
                item["figure"] = _embed_png(results / "figures" / f"{t.name}.png")
                if ledger is None:
                    for v in df.get("verdict", []):
                        key = v.split(":")[0].split(" (")[0].strip()
                        if key:  # rows that only report a measurement carry no verdict
                            verdicts[key] = verdicts.get(key, 0) + 1
                if df.apply(lambda col: col.str.startswith(NOT_RUN_NO_GPU)).any().any():
                    not_run_here = True
                ref_table = reference / "targets" / f"{t.name}.csv"
                if ref_prov and ref_table.is_file():
                    ref_df = pd.read_csv(ref_table, dtype=str, keep_default_na=False)
                    item["reference_table"] = _html_table(_beside_floor(ref_df.copy(), floor))
                    item["reference_summary"] = _summary(
                        t, ref_df, reference / "targets" / f"{t.name}.claims.csv")
                    item["reference_figure"] = _embed_png(reference / "figures" / f"{t.name}.png")
            pub = published(doc.short)
            pub = pub[pub["item"] == t.item]
            if len(pub) and item["table"] is None:
                item["published"] = _html_table(pub[["where", "row", "column", "value", "unit", "note"]])
            items.append(item)
        sections.append({"doc": doc, "entries": items})
    if ledger is not None:  # one count per claim, not per table row
        verdicts = ledger["verdict"].value_counts().to_dict()

    env = jinja2.Environment(loader=jinja2.PackageLoader("graphrepro.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    html = env.get_template("index.html.j2").render(
        generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        sections=sections, verdicts=verdicts, not_run_here=not_run_here,
        provenances=_provenances(results), reference=ref_prov,
        config_text=config_path.read_text() if config_path and config_path.is_file() else None,
        config_name=str(config_path) if config_path else None,
        stand_ins=_stand_ins(results), terrains=_terrains(results), launch_floor=floor)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    tmp.write_text(html)
    tmp.replace(output)


def _summary(target, table: pd.DataFrame, claims: Path | None = None) -> str | None:
    """The summary of the target's ledger rows where it has claims, else the target's own
    sentence; a broken one must not sink the page."""
    from ..claims import summary

    try:
        if claims is not None and claims.is_file():
            rows = pd.read_csv(claims, dtype=str, keep_default_na=False)
            if len(rows):
                return summary(rows)
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
        record = json.loads(p.read_text())
        origin = record.get("origin") or {}
        out.append({"graph": record["graph"], "stands_for": record.get("stands_for"),
                    "kind": origin.get("kind"), "data": describe_origin(origin) if origin else "",
                    "published": origin.get("published") or {},
                    "vertices": record["stats"]["vertices"], "arcs": record["stats"]["arcs"],
                    "sources": len(record["sources"]), "seed": record["seed"]})
    return out


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
