"""What the page says beside the numbers: units written once, intervals at their precision, what
each table's answers were checked against, which ratios depend on the hardware's balance, the run
each row came from, and what changed since the previous reference ledger (issues 30 and 35)."""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import pandas as pd

from ..bounded import read_csv
from .ledger import FROM_RUN, REFERENCE
from .replicates import replicate_sides

SHORT_REASON = 110  # characters of a reason shown in the claims table; the rest on demand


def _number(text) -> float | None:
    try:
        v = float(str(text).replace(",", ""))
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _decimals(low: float, high: float) -> int | None:
    """Decimal places that show an interval's width to its first significant digit and one more
    (1.069..1.143 -> 2: "1.07"); None where it has no width (then 4 significant digits)."""
    width = abs(high - low)
    if width == 0:
        return None
    return min(6, max(0, -math.floor(math.log10(width))))


def _fmt(v: float, decimals: int | None) -> str:
    """``v`` at the interval's decimals, but never fewer than keep its first two significant
    digits: a wide interval must not round the value itself away (0.3699 in [0.0049, 4.4] is
    "0.37", not "0"; 1.509 in [0.96, 2.3] is "1.5", not "2")."""
    if decimals is None:
        return f"{v:.4g}"
    def keeping_two(x: float) -> int:
        return decimals if x == 0 else max(decimals, 1 - math.floor(math.log10(abs(x))))

    # said of the value as rounded, so 0.996 reads "1.0" (not "1.00") and the text is a fixpoint
    decimals = keeping_two(round(v, keeping_two(v)))
    return f"{v:,.{decimals}f}" if abs(v) >= 1e4 else f"{v:.{decimals}f}"


def with_unit(value: str, unit: str) -> str:
    """A value with its unit once: none on an empty cell, none again where the value already
    ends with it ("3.36x-5.77x", "7 ms"), none after words."""
    value, unit = str(value or "").strip(), str(unit or "").strip()
    if not value:
        return ""
    # a unit follows a number: not words ("faster on all graphs"), nor a value with its own
    # units inside ("24.7 s / 4.9 s"), nor one that already ends with it ("3.36x-5.77x")
    if not unit or value.endswith(unit) or not re.search(r"\d[\])]?$", value):
        return value
    return f"{value}{'' if unit in ('x', '%') else ' '}{unit}"


def ours_text(row) -> str:
    """Ours with its interval, at the interval's precision, and the unit once."""
    ours, lo, hi = (row.get(k, "") for k in ("ours", "ours_low", "ours_high"))
    o, a, b = _number(ours), _number(lo), _number(hi)
    if o is None:
        return with_unit(ours, row.get("unit", ""))
    if a is None or b is None:
        return with_unit(_fmt(o, None), row.get("unit", ""))
    d = _decimals(a, b)
    text = _fmt(o, d) if (a, b) == (o, o) else f"{_fmt(o, d)} [{_fmt(a, d)}, {_fmt(b, d)}]"
    return with_unit(text, row.get("unit", ""))


_NUM = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_OURS_INTERVAL = re.compile(rf"\bours ({_NUM}) \(({_NUM})-({_NUM})\)")


def reason_text(reason: str) -> str:
    """The rule's reason with "ours 50.2 (49.08-51.28)" at its interval's precision ("ours 50
    (49-51)"), as the ours column shows it; the ledger CSV keeps the rule's own digits."""
    def at_precision(m: re.Match) -> str:
        o, a, b = (float(x) for x in m.groups())
        d = _decimals(a, b)
        if a == b == o:  # one value: no interval to show
            return f"ours {_fmt(o, d)}"
        return f"ours {_fmt(o, d)} ({_fmt(a, d)}-{_fmt(b, d)})"

    return _OURS_INTERVAL.sub(at_precision, str(reason or ""))


def short_reason(reason: str, limit: int = SHORT_REASON) -> tuple[str, bool]:
    """The reason's first sentence or clause, cut at a word; and whether more follows."""
    text = str(reason or "").strip()
    if len(text) <= limit:
        return text, False
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "\u2026", True


# Claims whose ratio sets one kind of hardware against another: the ratio says as much about the
# machine's balance (CPU cores against GPU, bandwidth against latency) as about the algorithms.
_BALANCE = (re.compile(r"\bCPU\b.*\bGPU\b|\bGPU\b.*\bCPU\b", re.I),
            re.compile(r"\b(parallel|GPU)\b.*\b(serial|sequential)\b|"
                       r"\b(serial|sequential)\b.*\b(parallel|GPU)\b", re.I),
            re.compile(r"\bthan (sequential|serial)\b|over serial", re.I),
            # singla's speedups are all of a GPU kernel over a serial CPU one
            re.compile(r"\bparallel\b.*\bspeed-?up\b|\bspeed-?up of edge-based\b", re.I),
            re.compile(r"\bBGL\b|Boost", re.I), re.compile(r"transfer|PCIe|pinned|pageable", re.I))
_NOT_A_RATIO = re.compile(r"\bnot said\b|\bO\(", re.I)


def hardware_balance(row) -> bool:
    """A ratio (or ordering) of CPU against GPU, serial against parallel, BGL against a GPU
    solver, or transfers: labelled so on the page. Bounds (O()) and claims that name no side
    are not ratios."""
    text = f"{row.get('claim', '')} {row.get('unit', '')}"
    if row.get("kind") in ("existence-limit", "best parameter") or _NOT_A_RATIO.search(text):
        return False
    return any(p.search(text) for p in _BALANCE)


def run_text(row) -> tuple[str, str]:
    """The short run cell ("ref. 2026-11-23") and its full text (the title)."""
    where = "reference" if row.get(FROM_RUN) == REFERENCE else "here"
    run = str(row.get("run", "") or "")
    day = run.split(" ")[0] if run and run[:4].isdigit() else ""
    full = f"{'the reference run' if where == 'reference' else 'this machine'}" + (
        f": {run}" if run else "") + (f"; {row['launch_path']}" if row.get("launch_path") else "")
    return (f"{'ref.' if where == 'reference' else 'here'} {day}".strip(), full)


def data_kind(row) -> str:
    """What the row's data was: the ledger's ``data_kind`` where it has one, else read from its
    ``data`` where it says (real / real topology / stand-in)."""
    kind = str(row.get("data_kind") or "").strip()
    if kind:
        return kind
    kinds = []
    for part in _listed(row.get("data")):
        kind = ("stand-in" if "STAND-IN" in part else "real topology" if "real topology" in part
                else "real" if re.search(r"\breal\b", part) else None)
        if kind and kind not in kinds:
            kinds.append(kind)
    # a terrain's name alone does not say which it is: the ledger's data_kind does (issue 51)
    return " and ".join(kinds)


def setting_text(row) -> str:
    """The setting a row was measured in, in the words precedence compares it by ("neuse_dem,
    10000 blocks of 256^2"; "ny at scale 0.001, 10 sources")."""
    from .ledger import setting

    s = setting(row)
    bits = [", ".join(sorted(s.get("on", ()))) + (f" at scale {s['scale']:g}"
                                                  if s.get("scale", 1) < 1 else "")]
    if "blocks" in s:
        bits.append(f"{s['blocks']} blocks" + (f" of {s['block side']}^2" if "block side" in s
                                               else ""))
    if "grid side" in s:
        bits.append(f"up to {s['grid side']}^2")
    for key in ("graphs", "sources", "batches"):
        if key in s:
            bits.append(f"{s[key]} {key}")
    if "gpu" in s:
        bits.append(str(row.get("device")))
    return ", ".join(b for b in bits if b) or str(row.get("n") or "")


def both_runs(r: dict) -> list[dict]:
    """Where both runs judged a claim: each run's value, verdict, data kind and setting,
    labelled, the counted one first (the merged ledger's ``other_*`` cells hold the other)."""
    if not str(r.get("other_from_run") or ""):
        return []
    other = {k[len("other_"):]: v for k, v in r.items() if k.startswith("other_")}
    return [{"run": side.get(FROM_RUN, ""), "ours": ours_text(side), "verdict": side["verdict"],
             "kind": data_kind(side), "setting": setting_text(side), "counted": counted}
            for side, counted in ((r, True), (other, False))]


def replicate_values(r: dict) -> list[dict]:
    """Each replicate's value of a claim with its interval at its precision and its verdict
    (``name`` A or B); ``disagree`` on each where the two verdicts differ."""
    sides = replicate_sides(r)
    disagree = len({s["verdict"] for s in sides if s["verdict"]}) > 1
    return [{"name": s["name"], "ours": ours_text(s), "verdict": s["verdict"],
             "disagree": disagree} for s in sides]


def _listed(cell) -> list[str]:
    return [p.strip() for p in str(cell or "").split(";") if p.strip()]


def evidence(r: dict) -> dict:
    """What a claim's anchor opens: the document's sentence and where it says it, the published
    value and band, ours with its interval, n and how the interval was made, the data (its kind,
    every departure from the document's method the tables record), the reason in full, and the
    tables, run, sources, trials, device and launch path it read (each where the ledger has
    it: a ledger before issue 51 lacks data_kind, departure, tables and device)."""
    read = [(label, str(r.get(key) or "")) for key, label in (
        ("run", "made in"), ("sources", "sources"), ("trials", "trials"), ("device", "device"),
        ("launch_path", "launch path")) if str(r.get(key) or "")]
    return {"sentence": str(r.get("claim") or ""), "where": str(r.get("where") or ""),
            "published": with_unit(r.get("published", ""), r.get("unit", "")),
            "band": band_text(r), "ours": ours_text(r), "n": str(r.get("n") or ""),
            "interval": str(r.get("interval") or ""), "kind": data_kind(r),
            "data": _listed(r.get("data")), "departures": _listed(r.get("departure")),
            "reason": reason_text(r.get("reason", "")), "tables": _listed(r.get("tables")),
            "read": read, "setting": setting_text(r), "replicates": replicate_values(r)}


def band_text(r: dict) -> str:
    """The band and, in brackets, which rule of claims/bands.py set it (a ledger before issue
    51's round 4 has no ``band_basis``: the band alone)."""
    band, basis = (str(v) if pd.notna(v) else "" for v in (r.get("band", ""),
                                                           r.get("band_basis", "")))
    return f"{band} ({basis})" if band and basis else band


def claim_rows(ledger: pd.DataFrame) -> list[dict]:
    """The ledger's rows as the page shows them: every value formatted once, here."""
    out = []
    for r in ledger.to_dict("records"):
        reason = reason_text(r.get("reason", ""))
        reason_short, more = short_reason(reason)
        run_short, run_full = run_text(r)
        out.append({**r, "reason": reason, "anchor": f"claim-{r.get('claim_id') or ''}",
                    "published_shown": with_unit(r.get("published", ""), r.get("unit", "")),
                    "ours_shown": ours_text(r), "reason_short": reason_short,
                    "reason_more": more, "run_short": run_short, "run_full": run_full,
                    "balance": hardware_balance(r), "both": both_runs(r),
                    "kind": data_kind(r), "setting": setting_text(r), "evidence": evidence(r),
                    "replicates": replicate_values(r)})
    return out


def checked_against(target, table: pd.DataFrame | None) -> str:
    """What the answers in a target's table were checked against, said per table."""
    stopped = table is not None and bool(table.apply(
        lambda c: c.astype(str).str.contains("stopped", regex=False)).to_numpy().any())
    name = target.name
    if name.startswith("gerritsen2012_table3") or name.startswith("gerritsen2012_fig3"):
        what = ("each minimum spanning forest checked against Kruskal's total weight and a "
                "spanning-forest check (mst.check)")
    elif target.solvers or target.benchmarks:
        what = ("each answer checked against sequential Dijkstra on the CPU (every source's "
                "distances, by digest) before its time was kept")
    else:
        what = "no solver answers in this table (counts and published values only)"
    if stopped:
        what += "; cells marked \"stopped\": not checked (the run was stopped before its " \
                "answer was written, so the value is an extrapolation)"
    return what[0].upper() + what[1:] + "."


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def previous_reference_ledger(reference: Path) -> tuple[pd.DataFrame | None, str]:
    """The reference ledger as it was before its last change (from git): the committed one where
    the working copy differs from it, else the one before the last commit that changed it."""
    path = reference / "claims.csv"
    if not path.is_file():
        return None, ""
    top = _git(["rev-parse", "--show-toplevel"], reference)
    if not top:
        return None, ""
    root = Path(top.strip()).resolve()
    rel = path.resolve().relative_to(root).as_posix()
    reference = root  # every git call below names paths from the top of the checkout
    changed = _git(["diff", "--quiet", "HEAD", "--", rel], reference) is None
    if changed:
        rev = "HEAD"
    else:
        last = (_git(["log", "-n", "1", "--format=%h", "--", rel], reference) or "").strip()
        if not last:
            return None, ""
        rev = f"{last}^"
    text = _git(["show", f"{rev}:{rel}"], reference)
    if not text:
        return None, ""
    import io

    old = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    if not {"claim_id", "verdict", "ours"} <= set(old.columns):
        return None, ""  # an older ledger layout: no comparison rather than no page
    label = (_git(["log", "-n", "1", "--format=%h %cs", rev], reference) or rev).strip()
    return old, label


def what_changed(current: pd.DataFrame, previous: pd.DataFrame | None) -> list[dict]:
    """Claims whose verdict differs from the previous reference ledger's, with both values."""
    if previous is None or "claim_id" not in previous or "claim_id" not in current:
        return []
    before = {r["claim_id"]: r for r in previous.to_dict("records") if r.get("claim_id")}
    out = []
    for r in current.to_dict("records"):
        old = before.get(r.get("claim_id"))
        if old is None:
            out.append({"claim_id": r["claim_id"], "claim": r["claim"], "before": "(new claim)",
                        "before_ours": "", "now": r["verdict"], "now_ours": ours_text(r)})
        elif old["verdict"] != r["verdict"]:
            out.append({"claim_id": r["claim_id"], "claim": r["claim"], "before": old["verdict"],
                        "before_ours": ours_text(old), "now": r["verdict"],
                        "now_ours": ours_text(r)})
    return out


def verification(reference: Path) -> dict:
    """How many run tables and timed answers the reference run holds, and how many were checked
    (status "ok": the answer matched the reference digest) or stopped, failed or not run."""
    tables, rows, status = 0, 0, {}
    for p in sorted(reference.glob("runs/*/*.csv")):
        try:
            df = read_csv(p, usecols=["status"], dtype=str, keep_default_na=False)
        except (ValueError, pd.errors.ParserError):
            continue
        tables += 1
        rows += len(df)
        for k, n in df["status"].str.split(":").str[0].value_counts().items():
            status[k] = status.get(k, 0) + int(n)
    return {"tables": tables, "rows": rows, "ok": status.get("ok", 0),
            "other": {k: n for k, n in status.items() if k != "ok"}}
