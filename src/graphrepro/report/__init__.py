"""The report: target tables (published beside ours), figures, and the HTML page."""
