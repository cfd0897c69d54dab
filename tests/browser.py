"""Opening the report in headless Chromium (Debian's `chromium`), with no driver library.

Chromium's own command line is enough for what the tests ask: a copy of the page with a small
probe script appended is loaded with ``--dump-dom`` (the probe writes what it measured into the
DOM as JSON), and ``--screenshot`` takes a picture of the page from a given section on (a copy
with the sections before it removed: a headless screenshot is always of the top of the page).
Playwright or Selenium would add a browser download or a driver for the same two calls.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=10000"]

# What the test checks, measured in the page after load at the window's width.
PROBE = r"""
<script>
window.addEventListener("load", () => {
  const W = window.innerWidth, out = {width: W, page_width: document.documentElement.scrollWidth,
                                     page_height: document.documentElement.scrollHeight};
  const outside = e => !e.closest(".tbl.all");
  out.shown_at_load = Array.from(document.querySelectorAll("#claims-table tbody tr.claim")).filter(
    tr => !tr.hidden).length;
  out.search_at_load = location.search;
  out.overflowing_tables = Array.from(document.querySelectorAll(".tbl")).filter(
    t => outside(t) && t.offsetParent !== null && t.scrollWidth > t.clientWidth + 1).map(t => t.id || "?");
  out.past_right_edge = Array.from(document.querySelectorAll("body *")).filter(e => {
    const r = e.getBoundingClientRect(); return outside(e) && r.width > 0 && r.right > W + 1;
  }).slice(0, 10).map(e => e.tagName + "#" + (e.id || "") + "." + e.className);
  // past the window's edge and not inside a box that scrolls on its own (a table's .tbl, the nav)
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll") return true; } return false; };
  out.past_edge_unboxed = Array.from(document.querySelectorAll("body *")).filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.right > W + 1 && !scrolls(e);
  }).slice(0, 10).map(e => e.tagName + "#" + (e.id || "") + "." + e.className);
  // every link to a claim lands on a row, and what each section says of a claim
  out.claim_links = Array.from(document.querySelectorAll('a[href^="#claim-"]')).map(a => a.getAttribute("href"));
  out.claim_anchor_missing = out.claim_links.filter(h => !document.getElementById(h.slice(1)));
  out.claim_ids = Array.from(document.querySelectorAll("#claims-table tbody tr.claim")).map(tr => tr.id);
  out.claims_ours = Object.fromEntries(Array.from(document.querySelectorAll("#claims-table tbody tr.claim")).map(
    tr => [tr.dataset.claim, tr.querySelector("td.ours").textContent.trim()]));
  out.section_ours = Array.from(document.querySelectorAll("table.claims tbody tr")).map(
    tr => [tr.dataset.claim, tr.querySelector("td.ours").textContent.trim()]);
  out.cells = Array.from(document.querySelectorAll("td")).map(td => td.textContent.trim());
  // cells wider than their column (text spilling over the next one), outside "all columns"
  out.overflowing_cells = Array.from(document.querySelectorAll("td")).filter(
    td => outside(td) && td.offsetParent !== null && td.scrollWidth > td.clientWidth + 1).map(
    td => (td.closest("table").id || td.closest("table").className) + ":" + (td.closest("tr").dataset.claim || "")
          + ":" + td.textContent.trim().slice(0, 40)).slice(0, 60);
  const ct = document.getElementById("claims-table");
  out.claims_table_width = ct ? Math.round(ct.getBoundingClientRect().width) : 0;
  out.claims_table_height = ct ? Math.round(ct.getBoundingClientRect().height) : 0;
  out.viewport = (document.querySelector('meta[name="viewport"]') || {}).content || "";
  // the evidence rows open at load (a claim's anchor in the address opens its own)
  out.evidence_open = Array.from(document.querySelectorAll("#claims-table tr.ev-row")).filter(
    t => !t.hidden).map(t => [t.previousElementSibling.id, t.textContent.replace(/\s+/g, " ").trim()]);
  out.both_rows = Array.from(document.querySelectorAll("#claims-table tr.claim .both")).map(
    d => [d.closest("tr").id, d.textContent.replace(/\s+/g, " ").trim()]);
  out.headline = (document.querySelector("dl.glance dd") || {}).textContent || "";
  // replicates A and B, the drift per kind and the run's commit (issue 53 item 3)
  const text = e => e ? e.textContent.replace(/\s+/g, " ").trim() : "";
  out.commit = text(document.getElementById("run-commit"));
  out.replicates_line = text(document.getElementById("run-replicates"));
  out.replicate_rows = Array.from(document.querySelectorAll("#claims-table tr.claim .reps")).map(
    d => [d.closest("tr").id, text(d)]);
  out.replicate_evidence = Object.fromEntries(Array.from(document.querySelectorAll(
    "#claims-table tr.ev-row .ev-reps")).map(p => [p.closest("tr").previousElementSibling.id, text(p)]));
  out.drift_kinds = Array.from(document.querySelectorAll("h3.drift-kind")).map(text);
  out.drift_rows = Array.from(document.querySelectorAll("table.drift tbody tr")).length;
  // frontier's tuning graphs apart from its held-out ones, each peer at its best (item 4)
  const peers = document.getElementById("frontier-peers-at-best");
  out.peer_tables = peers ? Array.from(peers.querySelectorAll("table")).map(t => ({
    head: Array.from(t.querySelectorAll("thead th")).map(text),
    graphs: Array.from(t.querySelectorAll("tbody tr")).map(tr => text(tr.children[0]))})) : [];
  const imgs = Array.from(document.images);
  out.images = imgs.length;
  out.broken_images = imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt);
  out.toc = Array.from(document.querySelectorAll("nav.toc a")).map(a => a.getAttribute("href"));
  out.missing_anchors = out.toc.filter(h => !document.getElementById(h.slice(1)));
  out.target_sections = Array.from(document.querySelectorAll("h3[id]")).map(h => h.id);
  out.counts = {};
  document.querySelectorAll("#verdict-counts tbody tr").forEach(tr => {
    const c = {}; tr.querySelectorAll("td[data-verdict]").forEach(td => c[td.dataset.verdict] = +td.textContent);
    out.counts[tr.dataset.document] = c;
  });
  out.claim_rows = Array.from(document.querySelectorAll("#claims-table tbody tr.claim")).map(
    tr => [tr.dataset.document, tr.dataset.verdict, tr.querySelector("a").getAttribute("href")]);
  // the claims table's filter and sort, as a reader uses them
  const select = document.getElementById("f-verdict");
  if (select) {
    select.value = "reproduced"; select.dispatchEvent(new Event("input"));
    out.filtered_reproduced = Array.from(document.querySelectorAll("#claims-table tbody tr.claim")).filter(
      tr => !tr.hidden).length;
    select.value = ""; select.dispatchEvent(new Event("input"));
    document.querySelector("#claims-table th").click();
    out.sorted_first_document = (document.querySelector("#claims-table tbody tr.claim") || {}).dataset?.document;
  }
  document.querySelectorAll("button.toggle").forEach(b => b.click());   // every "all columns" view
  out.page_width_all_columns = document.documentElement.scrollWidth;
  const pre = document.createElement("pre"); pre.id = "probe-result";
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  if (window.parent !== window) window.parent.postMessage(pre.textContent, "*");
});
</script>
"""


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


def _run(args: list[str], width: int, height: int, timeout: int = 120) -> str:
    if chromium() is None:
        raise RuntimeError("no chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
               *args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "HOME": profile})
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def _with(html: Path, scratch: Path, extra: str, name: str) -> Path:
    page = html.read_text()
    i = page.rindex("</body>")
    copy = scratch / name
    copy.write_text(page[:i] + extra + page[i:])
    return copy


# Headless Chromium's window is at least 500 px wide: a phone's width is a frame of that width in
# a wider page, the probe posting what it measured to the page around it.
MIN_WINDOW = 500
FRAME = """<!doctype html><html><body style="margin:0"><script>
window.addEventListener("message", m => { const p = document.createElement("pre");
  p.id = "probe-result"; p.textContent = m.data; document.body.appendChild(p); });
</script><iframe src="{src}" style="border:0;width:{w}px;height:{h}px;display:block"></iframe>
</body></html>"""


def _framed(page: Path, width: int, height: int) -> Path:
    frame = page.with_name(page.stem + f"-{width}px.html")
    frame.write_text(FRAME.replace("{src}", page.name).replace("{w}", str(width))
                     .replace("{h}", str(height)))
    return frame


def probe(html: Path, scratch: Path, width: int = 1400, query: str = "") -> dict:
    """Load the page at this width (with ``query``, "?verdict=...", after its address) and
    measure it (see PROBE)."""
    page = _with(html, scratch, PROBE, "probe.html")
    uri = page.as_uri() + query
    if width < MIN_WINDOW:
        page = _framed(page, width, 1000)
        uri = page.as_uri()
        page.write_text(page.read_text().replace('src="probe.html"', f'src="probe.html{query}"'))
    dom = _run(["--dump-dom", uri], max(width, MIN_WINDOW), 1000)
    m = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    if not m:
        raise RuntimeError("the probe wrote nothing: did the page's scripts fail?")
    import html as _html

    return json.loads(_html.unescape(m.group(1)))


def screenshot(html: Path, png: Path, *, start: str | None = None, width: int = 1400,
               height: int = 2400) -> Path:
    """A screenshot of the page, from the element with id ``start`` on (default: the top), with
    the collapsed block that holds it opened."""
    cut = "" if start is None else (
        "<script>document.addEventListener('DOMContentLoaded', () => {"
        f"let e = document.getElementById({json.dumps(start)});"
        "for (let p = e; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;"
        "while (e && e.parentElement !== document.body) e = e.parentElement;"
        "while (e && e.previousElementSibling) e.previousElementSibling.remove();});</script>")
    page = _with(html, png.parent, cut, png.stem + ".html")
    if width < MIN_WINDOW:
        page = _framed(page, width, height)
    _run([f"--screenshot={png}", page.as_uri()], max(width, MIN_WINDOW), height)
    if width < MIN_WINDOW:  # the frame only, not the empty page beside it
        from PIL import Image

        with Image.open(png) as im:
            im.crop((0, 0, width, height)).save(png)
    return png
