"""A password in a URL (``https://user:pass@host/...``) is never written or printed.

The registry refuses such URLs (credentials belong in ``~/.netrc``, which ``requests`` reads by
itself), yet a URL also reaches us from a results folder, a redirect or an old origin record:
every text write (``graphrepro.atomic``), the command line's output and every refusal that
quotes a URL pass through ``strip_credentials``, which drops the user-information part of each
URL in a text and leaves everything else as it was.
"""

from __future__ import annotations

import re

# scheme://  then the user-information, which ends at the last '@' before the host: no white
# space, '/', '?' or '#' can be in it (they end the authority), nor a quote or angle bracket
# (the end of a URL quoted in JSON, CSV or HTML), so a browser's reading and ours agree.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#\"'<>]*@")


def strip_credentials(text: str) -> str:
    """``text`` with every URL's ``user:password@`` removed (a text with no URL is unchanged)."""
    if "@" not in text:  # the common case, free
        return text
    return _USERINFO.sub(r"\1", text)
