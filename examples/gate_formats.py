"""One call per format: an OpenAI Chat, an Anthropic and an MCP turn, each gated by its
format's `gate`, from the SDKs' own objects. Offline: the model's turns are written out.

Run from the repository's top folder:  python examples/gate_formats.py
"""

from anthropic.types import Message, ToolUseBlock, Usage
from mcp.types import ListToolsResult, Tool
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

import turngate
from turngate.formats import anthropic_messages, mcp_calls, openai_chat

PAGE = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}

# OpenAI Chat Completions: the tools as sent, the assistant message as the SDK returns it.
tools = turngate.Toolset([{"type": "function", "function": {"name": "get_page", "parameters": PAGE}}])
message = ChatCompletionMessage(role="assistant", tool_calls=[ChatCompletionMessageFunctionToolCall(
    id="call_1", type="function", function={"name": "get_page", "arguments": '{"uid": "42"}'})])
gated = openai_chat.gate(message, tools)
print("OpenAI Chat:", "run" if gated.ok else "reply", gated.calls or gated.reply)

# Anthropic Messages: a list where an integer is declared, so the reply goes back instead.
tools = turngate.Toolset([{"name": "get_page", "input_schema": PAGE}])
message = Message(id="msg_1", type="message", role="assistant", model="m", stop_reason="tool_use",
                  stop_sequence=None, usage=Usage(input_tokens=1, output_tokens=1),
                  content=[ToolUseBlock(type="tool_use", id="toolu_1", name="get_page", input={"uid": [42]})])
gated = anthropic_messages.gate(message, tools)
print("Anthropic:", "run" if gated.ok else "reply", gated.calls or gated.reply)

# MCP: the server's list_tools result, and the turn's tools/call params; cast where it helps.
tools = turngate.Toolset(ListToolsResult(tools=[Tool(name="get_page", input_schema=PAGE)]), casts=True)
gated = mcp_calls.gate([{"name": "get_page", "arguments": {"uid": "42"}}], tools)
print("MCP:", "run" if gated.ok else "reply", gated.calls, "cast:", gated.verdict.casts[0].changed)
