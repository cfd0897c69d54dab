"""Reading the report's HTML back in tests: its tables as rows, and one section of the page."""

import re
from html.parser import HTMLParser


class _Tables(HTMLParser):
    """Every <table> of a fragment as a list of {header: cell text} rows."""

    def __init__(self):
        super().__init__()
        self.tables, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"head": [], "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr":
            table = self.tables[-1]
            if not table["head"]:
                table["head"] = self._row
            else:
                table["rows"].append(dict(zip(table["head"], self._row)))


def html_tables(fragment):
    parser = _Tables()
    parser.feed(fragment)
    return [t["rows"] for t in parser.tables]


def section(html, anchor):
    """The page from the heading with this id up to the next heading."""
    start = html.index(f' id="{anchor}"')
    end = re.compile(r"<h[23][ >]").search(html, start)
    return html[start:end.start() if end else len(html)]
