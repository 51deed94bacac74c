"""The example MCP server of `turngate demo`: a small site's pages, in memory, behind two
tools whose input schemas pydantic generates. Run over stdio:

    python -m turngate.mcp.demo_server

Needs the `mcp` extra. Every start holds the same pages, so a replay gives the same results.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ..extras import missing_extra

try:
    from mcp.server.mcpserver import MCPServer
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("mcp", __name__, error) from error

Language = Literal["default", "de", "fr"]
Status = Literal["draft", "review", "published"]

server = MCPServer("turngate-demo", instructions="The pages of a small site, read and updated by uid.")

PAGES: dict[int, dict[str, Any]] = {
    42: {"uid": 42, "title": "Opening hours", "status": "published", "keywords": ["hours"],
         "translations": {"de": "Öffnungszeiten", "fr": "Horaires d'ouverture"}},
    43: {"uid": 43, "title": "Contact", "status": "published", "keywords": ["contact", "address"],
         "translations": {"de": "Kontakt"}},
}


def _page(uid: int) -> dict[str, Any]:
    if uid not in PAGES:
        raise ValueError(f"there is no page {uid}")
    return PAGES[uid]


@server.tool()
def get_page(uid: int, language: Language = "default") -> str:
    """Read a page's metadata, in one of the site's languages."""
    page = _page(uid)
    title = page["title"] if language == "default" else page["translations"].get(language, page["title"])
    shown = {"uid": uid, "language": language, "title": title, "status": page["status"],
             "keywords": page["keywords"]}
    return json.dumps(shown, ensure_ascii=False)


@server.tool()
def update_page_metadata(uid: int, title: str, status: Status = "draft", keywords: list[str] | None = None) -> str:
    """Update the metadata of a page: its title, its status and, if given, its keywords."""
    page = _page(uid)
    page.update(title=title, status=status)
    if keywords is not None:
        page["keywords"] = list(keywords)
    return (f"Page {uid} updated: title {json.dumps(title, ensure_ascii=False)}, status {status}, "
            f"keywords {json.dumps(page['keywords'], ensure_ascii=False)}.")


if __name__ == "__main__":
    server.run("stdio")
