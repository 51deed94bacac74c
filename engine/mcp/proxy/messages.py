"""JSON-RPC messages as the proxy reads and writes them: plain `json`, no SDK.

A message is read as the MCP SDKs read it: its bytes decoded as UTF-8 with each invalid
byte taken as U+FFFD (what the Python SDK's stdio reader and the TypeScript SDK's decoder
do), then parsed as JSON that may hold `NaN` and `Infinity` (pydantic's parser takes them,
as `json` does). The SDK's `mcp_types` names the `_meta` keys below; importing it would add
most of a second to every start of the proxy, so they are written here and
`tests/test_proxy_units.py` holds them equal to the SDK's.
"""

from __future__ import annotations

import json
from typing import Any

from ...values.decoding import any_size_integer
from ...values.encoding import encode_json

#: The `_meta` key by which a request carries its protocol version (2026-07-28 on; before,
#: the version is agreed once, by `initialize`).
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
#: The keys that say who asks, per request, from 2026-07-28 on. The proxy's own requests
#: carry the client's, so that the server answers them as it answers the client.
ENVELOPE_KEYS = (PROTOCOL_VERSION_KEY, "io.modelcontextprotocol/clientInfo",
                 "io.modelcontextprotocol/clientCapabilities")
#: Who answered, on every 2026-07-28 result; the proxy's refusals carry the server's.
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
#: The `_meta` key of every frame of a `subscriptions/listen` stream: the listen request's id.
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
TOOLS_CHANGED = "notifications/tools/list_changed"

Message = dict[str, Any]


#: Lines read as the SDKs read them: `NaN` and `Infinity` too (their parsers take them, so a
#: call holding one is judged, not passed on unread), integers of any size.
_AS_SERVERS_READ = json.JSONDecoder(parse_int=any_size_integer)


def parse(line: bytes | str) -> object:
    """The JSON value of a line, or None when it is not JSON (it is passed on all the same)."""
    try:
        return _AS_SERVERS_READ.decode(line.decode("utf-8", "replace") if type(line) is bytes else line)  # type: ignore[arg-type]
    except (ValueError, RecursionError):
        return None


def encode(message: object) -> bytes:
    """A message as one line; only what the proxy writes itself is encoded here (numbers of
    any size; never NaN)."""
    return encode_json(message, separators=(",", ":")).encode("utf-8", errors="backslashreplace") + b"\n"


def id_key(request_id: object) -> str:
    """A request id as a key: the ids 1, 1.0 and "1" are three requests, not one."""
    return encode_json(request_id)


def allowed_id(message: Message) -> bool:
    """Whether a message has an id MCP allows (text or a whole number). The SDKs read a
    request with any other id (null, an object, 1.5, true) as a notification: nothing
    answers it."""
    return "id" in message and type(message["id"]) in (str, int)


def is_request(message: object, method: str) -> bool:
    return isinstance(message, dict) and message.get("method") == method and "id" in message


def is_call(message: object) -> bool:
    """A `tools/call`: a request, or one sent as a notification (no id), which is judged too."""
    return isinstance(message, dict) and message.get("method") == "tools/call"


def is_answer(message: object) -> bool:
    """A response (a result or an error): it answers a request of the other side."""
    return isinstance(message, dict) and "id" in message and "method" not in message


def params_of(message: Message) -> Message:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def meta_of(holder: object) -> Message:
    meta = holder.get("_meta") if isinstance(holder, dict) else None
    return meta if isinstance(meta, dict) else {}


def envelope(request: Message) -> Message:
    """The per-request envelope of a 2026-07-28 request (its `_meta` keys above); empty for
    a request of an earlier version, whose session agreed on everything at `initialize`."""
    meta = meta_of(params_of(request))
    return {key: meta[key] for key in ENVELOPE_KEYS if key in meta}


def subscription_of(message: Message) -> object:
    """The listen stream a notification is a frame of (its id), or None."""
    return meta_of(params_of(message)).get(SUBSCRIPTION_ID_KEY)


def refusal_response(request: Message, result: Message, server_info: object = None) -> Message:
    """The response to a refused `tools/call`: its tool error result. A request that carries
    its protocol version (2026-07-28 on) gets what every result of that version carries, as
    the SDK's serializer writes it: `resultType`, and the server's `serverInfo` in `_meta`
    (once the proxy has seen it)."""
    if PROTOCOL_VERSION_KEY in envelope(request):
        result = {**result, "resultType": "complete"}
        if server_info is not None:
            result["_meta"] = {SERVER_INFO_KEY: server_info}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def error_response(request: Message, text: str) -> Message:
    """A JSON-RPC error answering a request the proxy could not judge (a host's rule kind
    raised): an internal error, not a tool result, so the call is neither refused nor run."""
    return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": f"turngate: {text}"}}


def with_arguments(request: Message, arguments: object) -> Message:
    """The request with other arguments (a cast call); everything else as it came."""
    return {**request, "params": {**request["params"], "arguments": arguments}}
