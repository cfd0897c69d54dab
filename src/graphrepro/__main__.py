import signal

# A Ctrl-C or SIGTERM while the command line loads would break an import half-way (numpy reports
# that as a broken installation, with a traceback): both are held until main() is ready to answer
# them in one line (it lets them through first thing).
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

import os  # noqa: E402
import sys  # noqa: E402

# A GPU-timed run under the gpu-host profile goes to its GPU's worker before numpy, numba or the
# command line load (client.py): the interpreter's start is all such a job pays for itself.
if (sys.argv[1:2] == ["run"] and os.environ.get("GRAPHREPRO_WORKER") == "1"
        and os.environ.get("GRAPHREPRO_IN_WORKER") != "1"):
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    from .client import run_from_main

    status = run_from_main(sys.argv[1:])
    if status is not None:
        raise SystemExit(status)

from .cli import main  # noqa: E402

raise SystemExit(main())
