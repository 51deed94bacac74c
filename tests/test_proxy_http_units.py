"""What the proxy writes down of Streamable HTTP instead of importing the SDK (its headers,
their values, the `Mcp-Param-*` a schema asks for), held equal to the SDK's; server-sent
events as the proxy writes and reads them; the `Origin` it lets in."""

from __future__ import annotations

import pytest
from mcp.shared import inbound

from turngate.mcp.proxy.http import wire
from turngate.mcp.proxy.http.events import EventReader, EventStream, resume_point

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def test_the_header_names_are_the_sdks():
    assert (wire.VERSION, wire.METHOD, wire.NAME, wire.PARAM) == (
        inbound.MCP_PROTOCOL_VERSION_HEADER, inbound.MCP_METHOD_HEADER, inbound.MCP_NAME_HEADER,
        inbound.MCP_PARAM_HEADER_PREFIX)
    assert wire.NAMED == dict(inbound.NAME_BEARING_METHODS)


@pytest.mark.parametrize("value", ["plain", " edge ", "café", "line\nbreak", "=?base64?abc?=", ""])
def test_a_header_value_is_written_as_the_sdk_writes_it(value):
    assert wire.header_value(value) == inbound.encode_header_value(value)


def test_a_request_is_routed_as_the_sdks_server_checks_it():
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "café", "_meta": MODERN}}
    headers = wire.routing_headers(call)
    assert inbound.classify_inbound_request(call, headers=headers).__class__.__name__ == "InboundModernRoute"
    assert wire.routing_headers({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}) == {}


def test_the_mirrored_arguments_are_the_sdks():
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry"},
        "where": {"type": "object", "properties": {"zone": {"type": "integer", "x-mcp-header": "Zone"}}}}}
    arguments = {"region": "eu-west ü", "dry": True, "where": {"zone": 3}}
    assert wire.param_headers(schema, arguments) == inbound.mcp_param_headers(inbound.x_mcp_header_map(schema),
                                                                              arguments)
    assert inbound.validate_mcp_param_headers(schema, arguments, wire.param_headers(schema, arguments)) is None


@pytest.mark.parametrize("origin, allowed", [
    (None, True), ("http://localhost:3000", True), ("http://127.0.0.1", True), ("http://[::1]:8808", True),
    ("https://app.example", True), ("http://evil.example", False), ("http://localhost.evil.example", False),
    ("null", False)])
def test_the_origins_a_local_proxy_lets_in(origin, allowed):
    assert wire.origin_allowed(origin, "127.0.0.1", ("https://app.example",)) is allowed


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_event_stream_resumes_where_its_reader_left_it(anyio_backend):
    streams: dict[str, EventStream] = {}
    stream = EventStream(streams)
    stream.prime()
    stream.send(b'{"a":1}\n')
    reader, seen = EventReader(), []
    async for chunk in stream.read():
        seen += reader.feed(chunk)
        if len(seen) == 1:
            break
    last_id = stream.events[1].split(b"\n")[0].removeprefix(b"id: ").decode()
    stream.send(b'{"b":2}')
    stream.close()
    again, start = resume_point(last_id, streams)  # type: ignore[misc]
    assert again is stream
    assert [data async for chunk in stream.read(start) for data in reader.feed(chunk)] == [b'{"b":2}']
    assert seen == [b'{"a":1}'] and resume_point("no-such.3", streams) is None


def test_events_are_read_across_chunks_and_line_endings():
    reader = EventReader()
    chunks = [b"id: 1\r", b"\nevent: message\r\ndata: {\"a\"", b":1}\r\n\r\n", b"data: x\ndata: y\n\n", b": ping\n\n"]
    assert [data for chunk in chunks for data in reader.feed(chunk)] == [b'{"a":1}', b"x\ny"]
