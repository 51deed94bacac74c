"""What Streamable HTTP adds to a JSON-RPC message, as the specification has it: the headers
that route it (the session, the protocol version, and in 2026-07-28 the method, the name
and the arguments a tool's schema mirrors as `Mcp-Param-*`), server-sent events, the
headers a hop does not pass on, and the `Origin` a local server accepts.

The SDK's `mcp.shared.inbound` holds the same rules; importing it imports the whole SDK
(most of a second), so they are written here and `tests/test_proxy_http_units.py` holds
them equal to the SDK's.
"""

from __future__ import annotations

import base64
import os
import re
from typing import Any, Iterator, Mapping
from urllib.parse import urlsplit

from ..messages import PROTOCOL_VERSION_KEY, Message, envelope, params_of

SESSION = "mcp-session-id"
VERSION = "mcp-protocol-version"
METHOD = "mcp-method"
NAME = "mcp-name"
PARAM = "Mcp-Param-"
LAST_EVENT = "last-event-id"
ACCEPT_BOTH = "application/json, text/event-stream"
#: The request parameter each method's `Mcp-Name` mirrors (2026-07-28).
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
#: Headers of one connection, not of the message: a hop never passes them on (RFC 9110 7.6.1),
#: nor the ones the next hop computes itself.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"})

_SAFE = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=")


def header_value(value: str) -> str:
    """A value as a header carries it: printable ASCII as it is, anything else (or what
    looks like the sentinel) base64-wrapped as `=?base64?...?=`."""
    if _SAFE.fullmatch(value) and value == value.strip() and not _SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


def routing_headers(message: object) -> dict[str, str]:
    """The headers a 2026-07-28 request carries besides its body (none for an earlier one,
    whose version header is the session's)."""
    if not isinstance(message, dict):
        return {}
    version = envelope(message).get(PROTOCOL_VERSION_KEY)
    method = message.get("method")
    if not isinstance(version, str) or not isinstance(method, str):
        return {}
    headers = {VERSION: version, METHOD: method}
    named = params_of(message).get(NAMED.get(method, ""))
    if isinstance(named, str):
        headers[NAME] = header_value(named)
    return headers


def _mirrored(schema: object, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return
    for name, child in properties.items():
        if isinstance(child, dict):
            token = child.get("x-mcp-header")
            if isinstance(token, str):
                yield (*path, name), token
            yield from _mirrored(child, (*path, name))


def param_headers(schema: object, arguments: object) -> dict[str, str]:
    """The `Mcp-Param-*` headers a `tools/call` mirrors from its arguments, where its tool's
    schema marks properties with `x-mcp-header` (2026-07-28)."""
    headers: dict[str, str] = {}
    for path, token in _mirrored(schema):
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool):
            headers[f"{PARAM}{token}"] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            headers[f"{PARAM}{token}"] = header_value(str(value))
    return headers


def passed_on(headers: Mapping[str, str] | list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers a hop passes on, in order (a name may come more than once)."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    return [(name, value) for name, value in items if name.lower() not in HOP_BY_HOP]


def event(data: bytes, event_id: str | None = None) -> bytes:
    """One server-sent event of a JSON-RPC message (its data one line: JSON has no raw newline)."""
    head = f"id: {event_id}\n".encode() if event_id is not None else b""
    return head + b"event: message\ndata: " + data.rstrip(b"\r\n") + b"\n\n"


def error_message(request_id: object, code: int, text: str) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


class HeaderError(ValueError):
    """A `--header` that cannot be used; the text is one sentence."""


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def header_option(text: str, environ: Mapping[str, str] = os.environ) -> tuple[str, str]:
    """`Name: value` as a header, `${NAME}` in the value taken from the environment (so
    that a token need not be on the command line, where other users can see it)."""
    name, colon, value = text.partition(":")
    if not colon or not re.fullmatch(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+", name.strip()):
        raise HeaderError(f'the header "{text}" is not "Name: value".')

    def variable(found: re.Match[str]) -> str:
        if found.group(1) not in environ:
            raise HeaderError(f'the header "{name.strip()}" takes ${{{found.group(1)}}} from the environment, '
                              "which does not set it.")
        return environ[found.group(1)]

    return name.strip(), _VARIABLE.sub(variable, value.strip())


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def origin_allowed(origin: str | None, listen_host: str, allowed: tuple[str, ...]) -> bool:
    """Whether a request's `Origin` may reach the proxy: none (not a browser), one the user
    allowed, or a page on this machine (or on the host the proxy listens on). A page
    elsewhere is refused: a browser would otherwise let any web page reach a local server
    through a DNS name that resolves to 127.0.0.1 (DNS rebinding)."""
    if origin is None or origin in allowed:
        return True
    host = urlsplit(origin).hostname
    return host is not None and (host in LOOPBACK or host == listen_host.strip("[]"))


def listen_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for an IPv6 address) as the host and the port."""
    host, colon, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise HeaderError(f'the address "{text}" is not HOST:PORT (127.0.0.1:8808, say).')
    return host, int(port)
