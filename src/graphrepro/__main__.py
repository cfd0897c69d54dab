import signal

# A Ctrl-C or SIGTERM while the command line loads would break an import half-way (numpy reports
# that as a broken installation, with a traceback): both are held until main() is ready to answer
# them in one line (it lets them through first thing).
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

from .cli import main  # noqa: E402

raise SystemExit(main())
