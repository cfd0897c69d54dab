"""What a workflow run wrote that no job declared: `snakemake --summary` lists every declared
output and log, and an executor that copies back only declared files would lose the rest."""

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
    return written - declared
