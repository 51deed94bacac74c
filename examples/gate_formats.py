"""One call per format: an OpenAI Chat, an Anthropic and an MCP turn, each gated by its
format's `gate`, from the SDKs' own objects. Offline: the model's turns are written out.

Run from the repository's top folder:  python examples/gate_formats.py
"""

from anthropic.types import Message, ToolUseBlock, Usage
from mcp.types import ListToolsResult, Tool
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion_message_function_tool_call import Function

import turngate
from turngate.formats import anthropic_messages, mcp_calls, openai_chat

PAGE = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}

# OpenAI Chat Completions: the tools as sent, the assistant message as the SDK returns it.
tools = turngate.Toolset([{"type": "function", "function": {"name": "get_page", "parameters": PAGE}}])
chat_message = ChatCompletionMessage(role="assistant", tool_calls=[ChatCompletionMessageFunctionToolCall(
    id="call_1", type="function", function=Function(name="get_page", arguments='{"uid": "42"}'))])
chat_gated = openai_chat.gate(chat_message, tools)
print("OpenAI Chat:", "run" if chat_gated.ok else "reply", chat_gated.calls or chat_gated.reply)

# Anthropic Messages: a list where an integer is declared, so the reply goes back instead.
tools = turngate.Toolset([{"name": "get_page", "input_schema": PAGE}])
anthropic_message = Message(id="msg_1", type="message", role="assistant", model="m", stop_reason="tool_use",
                  stop_sequence=None, usage=Usage(input_tokens=1, output_tokens=1),
                  content=[ToolUseBlock(type="tool_use", id="toolu_1", name="get_page", input={"uid": [42]})])
anthropic_gated = anthropic_messages.gate(anthropic_message, tools)
print("Anthropic:", "run" if anthropic_gated.ok else "reply", anthropic_gated.calls or anthropic_gated.reply)

# MCP: the server's list_tools result, and the turn's tools/call params; cast where it helps.
tools = turngate.Toolset(ListToolsResult(tools=[Tool(name="get_page", input_schema=PAGE)]), casts=True)
mcp_gated = mcp_calls.gate([{"name": "get_page", "arguments": {"uid": "42"}}], tools)
print("MCP:", "run" if mcp_gated.ok else "reply", mcp_gated.calls, "cast:", mcp_gated.verdict.casts[0].changed)
