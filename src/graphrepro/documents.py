"""The five documents of the study (``../shared/seeds/INDEX.md``), by their short names, and
those a plugin brings (``register_document``: a separate package's solvers and claims)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable


@dataclass(frozen=True)
class Document:
    short: str
    citation: str
    contributes: str
    issue: int | None = None  # the issue that reproduces it in full (none for a plugin's)


DOCUMENTS = [
    Document("safari2017", "M. Safari, A. Ebneenasir, Locality-Based Relaxation: An Efficient Method "
             "for GPU-Based Computation of Shortest Paths, TTCS 2017 (hal-01760642)",
             "Harish et al.'s two-kernel SSSP; locality-based relaxation (LBR); Tables 1-2, "
             "Figs. 3-4, the CalNev comparison", 5),
    Document("senthilkumar", "B. Senthilkumar, S. Rachakonda, SSSP optimizations on GPU: a hybrid of "
             "workfront sweep and near-far pile, Rutgers CS516 project report",
             "workfront sweep, near-far pile and their hybrid; times on five graphs; the msdoor "
             "Delta sweep", 6),
    Document("singla", "G. Singla, A. Tiwari, D. P. Singh, New Approach for Graph Algorithms on GPU "
             "using CUDA", "edge-based parallel Dijkstra and BFS vs serial (Figs. 7-10)", 7),
    Document("an2017", "R. An, Parallelization of the Bellman-Ford algorithm, CSC299 progress "
             "report, 2017", "edge- and vertex-parallel Bellman-Ford, edges per thread, pinned "
             "vs pageable transfers (Figs. 1-2, section 4.1)", 8),
    Document("gerritsen2012", "N. Gerritsen, Accelerating I/O efficient graph algorithms on grid "
             "graphs using the GPU, MSc thesis, TU Eindhoven, 2012",
             "I/O-efficient MST and SSSP on terrain grids with GPU phases (Tables 3.1-3.8, "
             "5.1-5.7)", 10),
]

# Not a document: the study's own solver beside them (issue 21), its own report section, last.
BEYOND = Document("graphrepro", "today's best, beside the documents: the study's own GPU SSSP "
                  "(frontier) with the peers ADDS and Gunrock (built from their public source, "
                  "same run: issue 33), each document's best variant and the CPU baselines",
                  "an asynchronous bucketed SSSP with no grid barrier per bucket; the issue's "
                  "goals against ADDS", 21)

BY_SHORT = {d.short: d for d in DOCUMENTS}


# Documents brought by plugins (``graphrepro.solvers`` entry points), in the order they were
# registered, and the claims file each may bring: the report gives each a section after the
# study's documents, and the ledger judges its claims like theirs.
PLUGIN_DOCUMENTS: dict[str, Document] = {}
PLUGIN_CLAIMS: dict[str, Traversable] = {}


def register_document(document: Document, claims: Traversable | None = None) -> Document:
    """Add a plugin's document, with its claims file (``published/claims/<short>.csv``'s
    columns) if it has one. A short name already taken is refused: a plugin cannot stand in for
    one of the study's documents."""
    taken = {d.short for d in (*DOCUMENTS, BEYOND)} | set(PLUGIN_DOCUMENTS) | {"reference", "peer"}
    if document.short in taken:
        raise ValueError(f"document {document.short!r} is already registered")
    if claims is not None and not claims.is_file():
        raise ValueError(f"document {document.short}: no claims file at {claims}")
    PLUGIN_DOCUMENTS[document.short] = document
    if claims is not None:
        PLUGIN_CLAIMS[document.short] = claims
    return document


def all_documents() -> list[Document]:
    """The study's documents, then the plugins', then the study's own section (``BEYOND``)."""
    return [*DOCUMENTS, *PLUGIN_DOCUMENTS.values(), BEYOND]


def claims_file(short: str) -> Traversable:
    """Where a document's claims are: a plugin's own file, else the package's published copy."""
    return PLUGIN_CLAIMS.get(short) or resources.files("graphrepro.published") / "claims" / f"{short}.csv"
