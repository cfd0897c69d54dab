"""How a target table is shown: the columns a reader needs by default, the rest behind a toggle.

A target table keeps every column it has (the downloadable CSV is the table as written); the page
shows by default the row labels, the data it was measured on, published, ours, ratio and verdict,
and hides the rest behind a per-table "all columns" button, so every default view fits a 1400 px
window. Labels the documents use without saying what they are get one line of explanation.
"""

from __future__ import annotations

import base64
import html
import json
import re

import pandas as pd

from .. import atomic

MAX_DEFAULT_COLUMNS = 10
_DECIMAL = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?|-?\d+e[-+]?\d+")  # integers stay as written
# Columns that say which row this is, in the order they are preferred.
_LABELS = ("claim", "method", "criterion", "what", "version", "row", "column", "graph", "solver",
           "kind", "Delta", "vertices per thread t", "family")
# Labels a table may carry from its document, and what they mean (shown under the table).
EXPLAIN = {
    "[1]": '"[1]": (baseline - this) / baseline for the CPU version, the baseline being '
           "Table 3.1's (the thesis's own label)",
    "[2]": '"[2]": the same for the GPU version',
    "xx": '"xx": printed so in the document, which gives no value for that cell',
    "STAND-IN": "STAND-IN: measured on a synthetic graph of the original's size, not on the "
                "document's data (the data column says which)",
    "IQR": "IQR: interquartile range (25th-75th percentile) over sources",
}


def _role(col: str) -> str | None:
    c = col.lower()
    if c == "verdict":
        return "verdict"
    if c == "data":
        return "data"
    if c.startswith("published") or "thesis" in c:
        return "published"
    if c == "ratio" or " / " in c or "speedup" in c or " over " in c:
        return "ratio"
    if c == "ours" or "(ours" in c or c.endswith(("(ms)", "(s)")):
        return "ours"
    return None


def default_columns(columns: list[str]) -> list[str]:
    """The columns shown before "all columns": up to two row labels, data, then published, ours
    and ratio columns as the table orders them, and verdict; at most MAX_DEFAULT_COLUMNS."""
    if len(columns) <= MAX_DEFAULT_COLUMNS:
        return list(columns)
    labels = [c for c in _LABELS if c in columns][:2] or columns[:1]
    picked = set(labels)
    budget = MAX_DEFAULT_COLUMNS - len(labels) - ("verdict" in columns)
    for c in ("data", "run", "published", "ours", "ratio"):  # a claims-style table's own first
        if c in columns and budget > 0:
            picked.add(c)
            budget -= 1
    # published, ours and ratio in the table's own order, so a (thesis) column keeps its (ours);
    # published columns take at most half, so a table that lists them all first still shows ours
    quota = budget // 2
    for c in columns:
        role = _role(c)
        if budget > 0 and c not in picked and role in ("published", "ours", "ratio"):
            if role == "published":
                if quota == 0:
                    continue
                quota -= 1
            picked.add(c)
            budget -= 1
    # too few named columns (a table of timings): fill with the first numeric ones
    for c in columns:
        if budget > 0 and c not in picked and c != "verdict" and c != "note":
            picked.add(c)
            budget -= 1
    if "verdict" in columns:
        picked.add("verdict")
    return [c for c in columns if c in picked]


def _cell(value: str) -> str:
    """A cell's text: parameters as k=v rather than raw JSON; long numbers shortened."""
    s = str(value)
    if s.startswith("{") and s.endswith("}"):
        try:
            d = json.loads(s)
            return ", ".join(f"{k}={v}" for k, v in d.items()) or "defaults"
        except ValueError:
            return s
    if _DECIMAL.fullmatch(s):  # tables are read back as text: 0.0750264998 shows as 0.07503
        return f"{float(s):,.4g}"
    return s


def _breakable(escaped: str) -> str:
    """Escaped cell text with a line-break opportunity after each "/" and "," of a long token (a
    URL in a `data` cell, a run id with its parameters, "frontier@chase=8,chunk=128,..."): a
    browser will not break it otherwise, and one such cell widens the table past the page."""
    return re.sub(r"\S{30,}", lambda m: re.sub(r"([/,])", r"\1<wbr>", m.group(0)), escaped)


def _verdict_class(text: str) -> str:
    """The ledger's five verdicts take the claims table's colours; a table row's verdict is the
    ledger's (graphrepro.claims), "a; b" where it stands for several claims: the first colours."""
    head = text.split(";")[0].split(":")[0].split(" (")[0].strip()
    if head in ("reproduced", "direction only", "not reproduced", "inconclusive",
                "not testable here"):
        return "v-" + head.replace(" ", "-")
    return {"not run": "notrun"}.get(head, "na")


def explanations(df: pd.DataFrame) -> list[str]:
    """The EXPLAIN lines for labels this table uses, in headers or cells."""
    text = " ".join(df.columns) + " " + " ".join(df.astype(str).to_numpy().ravel().tolist())
    return [line for key, line in EXPLAIN.items()
            if re.search(r"(?<![\w\[])" + re.escape(key) + r"(?![\w\]])", text)]


def csv_href(df: pd.DataFrame) -> str:
    return "data:text/csv;base64," + base64.b64encode(atomic.csv_text(df).encode()).decode()


def _superseded(row) -> bool:
    """A row timed only on numba's own launches (claims/origin.py's name for the old path)."""
    path = str(row.get("launch_path", "") or "")
    return "numba's launches" in path and "graphrepro.launch;" not in path and not \
        path.startswith("graphrepro.launch")


def html_table(df: pd.DataFrame, table_id: str) -> str:
    """The table with its extra columns marked (hidden until "all columns" is pressed)."""
    columns = list(df.columns)
    shown = set(default_columns(columns))
    extra = [c for c in columns if c not in shown]
    esc = html.escape
    hidden = ' class="extra"'
    head = "".join(f"<th{hidden if c in extra else ''}>{esc(c)}</th>" for c in columns)
    body, superseded = [], 0
    for _, row in df.iterrows():
        cells = []
        old = _superseded(row)
        superseded += old
        for c in columns:
            v = _cell(row[c])
            cls = ["extra"] if c in extra else []
            if c == "verdict":
                cls += ["verdict", _verdict_class(v)]
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{_breakable(esc(v))}</td>")
        body.append(('<tr class="superseded" title="timed on the superseded launch path">'
                     if old else "<tr>") + "".join(cells) + "</tr>")
    toggle = (f'<button type="button" class="toggle" data-for="{table_id}">all columns '
              f"({len(columns)})</button>" if extra else "")
    note = (f'<p class="note superseded-note">{superseded} grey row{"s" * (superseded != 1)}: '
            "timed on the superseded launch path (numba's own launches, before "
            "graphrepro.launch); they decide no claim until rerun.</p>" if superseded else "")
    return (f'{note}{toggle}<div class="tbl" id="{table_id}"><table class="data"><thead><tr>{head}'
            f'</tr></thead><tbody>{"".join(body)}</tbody></table></div>')
