try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while Python is still loading the command line
    import sys

    print("interrupted (SIGINT): nothing was written", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
