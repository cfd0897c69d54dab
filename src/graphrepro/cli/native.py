"""The native baselines: building the C++ and CUDA programs, and what one launch costs here."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import atomic
from ..bounded import load_json
from ..harness.files import write_provenance


def cmd_build_native(args) -> int:
    from .. import native

    if args.boost_subset:
        packed = native.pack_boost_subset(Path(args.boost_subset))
        print(f"{args.boost_subset}: {packed['headers']} headers of Boost {packed['boost']} "
              f"({packed['bytes'] / 1e6:.1f} MB); there: unpack it and set BOOST_INCLUDE to that "
              f"directory", file=sys.stderr)
        return 0
    directory = Path(args.out) if args.out else native.native_dir()
    if args.cuda:
        manifest = native.build_cuda(directory, force=args.force)
        for program, why in manifest["not_built"].items():
            print(f"{program}: not built: {why}", file=sys.stderr)
        print(f"{directory}: {', '.join(manifest['programs']) or 'no CUDA program'} "
              f"({manifest.get('nvcc_version', 'no nvcc')})", file=sys.stderr)
        return 0
    manifest = native.build(directory, force=args.force)
    print(f"{directory}: {', '.join(manifest['programs'])} ({manifest.get('compiler_version', '')}, "
          f"Boost {manifest.get('boost', '?')})", file=sys.stderr)
    return 0


def add_build_native(sub) -> None:
    sp = sub.add_parser("build-native", help="compile the C++ baselines (BGL, plain C++) with g++ -O3")
    sp.add_argument("--out", help="where the binaries go (default: build/native, or $GRAPHREPRO_NATIVE_DIR)")
    sp.add_argument("--force", action="store_true", help="rebuild even when up to date")
    sp.add_argument("--cuda", action="store_true",
                    help="build the CUDA C++ programs (the launch floor) with nvcc instead")
    sp.add_argument("--boost-subset", metavar="TAR_GZ",
                    help="build nothing: pack the Boost headers the programs include into this "
                         "archive, for a machine without boost-headers (BOOST_INCLUDE there)")
    sp.set_defaults(func=cmd_build_native)


def cmd_launch_floor(args) -> int:
    import time

    started = time.perf_counter()

    import pandas as pd

    from ..harness import launch_floor

    binary, why = None, ""
    if args.native:
        manifest = load_json(Path(args.native))
        if "launch_floor" in manifest.get("programs", {}):
            binary = Path(args.native).parent / manifest["programs"]["launch_floor"]["binary"]
        else:
            why = "not run: " + manifest.get("not_built", {}).get("launch_floor", "not built")
    rows = launch_floor.measure(binary, vertices=args.vertices, trials=args.trials,
                                native_note=why)
    # its record first (the machine, the run that made it), then the table
    from ..harness import provenance

    settings = {"native": args.native, "vertices": args.vertices, "trials": args.trials}
    out = Path(args.output)
    write_provenance(out, {**provenance(settings), "settings": settings,
                           "job": {"wall_s": round(time.perf_counter() - started, 4)}})
    atomic.write_csv(pd.DataFrame(rows), out)
    return 0


def add_launch_floor(sub) -> None:
    sp = sub.add_parser("launch-floor", help="what one launch costs here: empty launch, launch + "
                        "read-back, a Harish round, grid sync, copy bandwidth; native and ours")
    sp.add_argument("--native", help="the CUDA build manifest (build-native --cuda) naming the "
                    "native program; without it, no native column")
    sp.add_argument("--vertices", type=int, default=264346,
                    help="vertices of the Harish-style round (default: NY's)")
    sp.add_argument("--trials", type=int, default=7)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_launch_floor)


def cmd_build_peers(args) -> int:
    """Issue 33: each peer's public source at its pinned commit, verified, patched, built."""
    from ..datasets.peers import PEER_SOURCES, build_peers
    from ..errors import InputError

    unknown = sorted(set(args.peer or []) - set(PEER_SOURCES))
    if unknown:
        raise InputError(f"no peer {', '.join(unknown)}; the peers are {', '.join(PEER_SOURCES)}")
    mirrors = None if args.no_mirrors else list(args.mirror or [])
    if args.fetch_only:  # the workflow's local step: a compute node may have no network
        from ..datasets.download import DownloadError
        from ..datasets.peers import fetch, peers_dir

        out = Path(args.out or peers_dir())
        (out / "downloads").mkdir(parents=True, exist_ok=True)
        for name in args.peer or PEER_SOURCES:
            try:
                tarball, origin = fetch(PEER_SOURCES[name], out, mirrors, offline=args.offline)
            except DownloadError as e:
                if e.verification:
                    raise
                # the build then records "not built: source not reachable", as it would here
                print(f"{name}: not fetched ({e})", file=sys.stderr)
                continue
            dest = out / "downloads" / tarball.name
            if tarball != dest:  # a mirror's copy: the folder the build reads must hold it
                import shutil

                from ..atomic import replacing

                with replacing(dest) as tmp:
                    shutil.copyfile(tarball, tmp)
            print(f"{name}: {dest} ({origin})", file=sys.stderr)
        return 0
    manifest = build_peers(args.peer or None, Path(args.out) if args.out else None,
                           mirrors, arch=args.arch,
                           offline=args.offline, compile=not args.no_compile, force=args.force)
    for name, why in manifest["not_built"].items():
        print(f"{name}: {why}", file=sys.stderr)
    built = ", ".join(manifest["peers"]) or "no peer built"
    print(f"{args.out or 'build/peers'}: {built} (for {manifest['arch']})", file=sys.stderr)
    return 0


def add_build_peers(sub) -> None:
    sp = sub.add_parser("build-peers", help="download ADDS and Gunrock at their pinned commits, "
                        "verify the unpacked trees, apply the study's patch, build with nvcc")
    sp.add_argument("--peer", action="append", metavar="NAME", help="adds or gunrock (default: both)")
    sp.add_argument("--out", help="where the binaries and manifest.json go (default: build/peers, "
                    "or $GRAPHREPRO_PEERS_DIR)")
    sp.add_argument("--mirror", action="append", metavar="DIR",
                    help="an offline mirror searched by file name before any download")
    sp.add_argument("--no-mirrors", action="store_true", help="search no mirror, not even "
                    "$GRAPHREPRO_OFFLINE_MIRRORS")
    sp.add_argument("--offline", action="store_true", help="mirrors only: never download")
    sp.add_argument("--arch", help="the GPU to build for (default: this machine's, else sm_90)")
    sp.add_argument("--no-compile", action="store_true",
                    help="fetch, verify and patch only (CI: no nvcc there)")
    sp.add_argument("--force", action="store_true", help="rebuild even when up to date")
    sp.add_argument("--fetch-only", action="store_true",
                    help="only fetch and verify the source archives into OUT/downloads (where "
                         "the network is, before the build runs where it may not be)")
    sp.set_defaults(func=cmd_build_peers)
