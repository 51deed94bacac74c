"""JSON-RPC messages as the proxy reads and writes them: plain `json`, no SDK.

The SDK's `mcp_types` names the `_meta` keys below; importing it would add most of a second
to every start of the proxy (a client starts its servers at once, and waits for each), so
they are written here and `tests/test_proxy_units.py` holds them equal to the SDK's.
"""

from __future__ import annotations

from ...values.decoding import decode_json
from ...values.encoding import encode_json

#: The `_meta` key by which a request carries its protocol version (2026-07-28 on; before,
#: the version is agreed once, by `initialize`).
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
#: The keys that say who asks, per request, from 2026-07-28 on. The proxy's own requests
#: carry the client's, so that the server answers them as it answers the client.
ENVELOPE_KEYS = (PROTOCOL_VERSION_KEY, "io.modelcontextprotocol/clientInfo",
                 "io.modelcontextprotocol/clientCapabilities")


def parse(line: bytes) -> object:
    """The JSON value of a line (numbers of any size), or None when it is not JSON, `NaN`
    included (it is passed on all the same)."""
    try:
        return decode_json(line.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8 (a UnicodeDecodeError), not JSON, too deep
        return None


def encode(message: object) -> bytes:
    """A message as one line; only what the proxy writes itself is encoded here (numbers of
    any size; never NaN)."""
    return encode_json(message, separators=(",", ":")).encode("utf-8", errors="backslashreplace") + b"\n"


def id_key(request_id: object) -> str:
    """A request id as a key: the ids 1, 1.0 and "1" are three requests, not one."""
    return encode_json(request_id)


def is_request(message: object, method: str) -> bool:
    return isinstance(message, dict) and message.get("method") == method and "id" in message


def is_call(message: object) -> bool:
    """A `tools/call`: a request, or one sent as a notification (no id), which is judged too."""
    return isinstance(message, dict) and message.get("method") == "tools/call"


def is_answer(message: object) -> bool:
    """A response (a result or an error): it answers a request of the other side."""
    return isinstance(message, dict) and "id" in message and "method" not in message


def params_of(message: dict) -> dict:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def envelope(request: dict) -> dict:
    """The per-request envelope of a 2026-07-28 request (its `_meta` keys above); empty for
    a request of an earlier version, whose session agreed on everything at `initialize`."""
    meta = params_of(request).get("_meta")
    if not isinstance(meta, dict):
        return {}
    return {key: meta[key] for key in ENVELOPE_KEYS if key in meta}


def refusal_response(request: dict, result: dict) -> dict:
    """The response to a refused `tools/call`: its tool error result. A request that carries
    its protocol version (2026-07-28 on) gets `resultType` too, as the SDK's serializer
    writes every result of that version."""
    if PROTOCOL_VERSION_KEY in envelope(request):
        result = {**result, "resultType": "complete"}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def error_response(request: dict, text: str) -> dict:
    """A JSON-RPC error answering a request the proxy could not judge (a host's rule kind
    raised): an internal error, not a tool result, so the call is neither refused nor run."""
    return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": f"turngate: {text}"}}


def with_arguments(request: dict, arguments: object) -> dict:
    """The request with other arguments (a cast call); everything else as it came."""
    return {**request, "params": {**request["params"], "arguments": arguments}}
