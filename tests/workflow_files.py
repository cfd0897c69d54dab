"""What a workflow run wrote that no job declared: `snakemake --summary` lists every declared
output and log, and an executor that copies back only declared files would lose the rest. And
the smallest config that runs one target on one 6 x 6 road grid."""

from pathlib import Path


def undeclared(workdir: Path, summary: str, tops=("results", "reports")) -> set[str]:
    """The files under ``tops`` of ``workdir`` that the summary names as no output or log."""
    declared = set()
    for line in summary.splitlines()[1:]:
        output, _date, _rule, logs, *_ = line.split("\t") + [""] * 4
        declared.add(output)
        declared.update(p for p in logs.split(",") if p and p != "-")
    written = {str(p.relative_to(workdir)) for top in tops
               for p in (workdir / top).rglob("*") if p.is_file()}
    # a file inside a declared directory() output travels with it; a rule's `benchmark:` file
    # (results/job_stats/) is written by snakemake itself, which --summary does not list
    folders = tuple(d.rstrip("/") + "/" for d in declared if d)
    return {w for w in written - declared
            if not w.startswith(folders) and "/job_stats/" not in f"/{w}"}


ONE_GRID_CONFIG = """\
results: results
report: reports/index.html
reference: {reference}
seed: 1
measure: {{sources: 2, trials: 1, warmup: 0}}
graphs:
  road_6x6:
    generate: {{kind: road_grid, rows: 6, cols: 6, keep: 0.8, max_weight: 100, seed: 1}}
targets:
  {target}: {{graphs: [road_6x6]}}
"""


def one_grid_config(target: str, reference: Path) -> str:
    """A config of ``target`` alone on road_6x6 (2 sources, 1 trial); ``reference`` a folder
    that does not exist, so the page holds this run alone."""
    return ONE_GRID_CONFIG.format(target=target, reference=reference)
