"""The graphrepro logger plugin for Snakemake (``--logger graphrepro``; the workflow's profiles
name it): the progress lines of graphrepro.report.progress in place of snakemake's own "Finished
jobid" and "n of m steps" lines, every other record as snakemake formats it.

Built only on the public ``snakemake-interface-logger-plugins`` (snakemake finds a plugin by
this package name); what the lines say lives in graphrepro.report.progress."""

from __future__ import annotations

import sys

from snakemake_interface_logger_plugins.base import LogHandlerBase

from graphrepro.report.progress import Progress, silenced


class LogHandler(LogHandlerBase):
    # snakemake attaches its own filter (--quiet, --printshellcmds) and formatter to this handler,
    # and adds no stream handler of its own beside it
    writes_to_stream = True
    writes_to_file = False
    has_filter = False
    has_formatter = False
    needs_rulegraph = False

    def __post_init__(self) -> None:
        self.progress = Progress.started_run()
        self.stream = sys.stdout if self.common_settings.stdout else sys.stderr

    def emit(self, record) -> None:
        if silenced():  # after a Ctrl-C: the one line the Snakefile's onerror prints, no more
            return
        try:
            text = self.progress.text(record, self.format)
            if text is None or (self.common_settings.dryrun
                                and getattr(record, "event", None) == "job_info"):
                # a dry run's job blocks (rule, wildcards, resources, shell) are what it is for:
                # snakemake's own formatting, as without the plugin
                text = self.format(record)
            if text:
                self.stream.write(text + "\n")
                self.stream.flush()
        except Exception:  # noqa: BLE001  (logging's contract: report, never raise)
            self.handleError(record)
