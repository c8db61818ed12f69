"""Drives catalog's MCP server with the official MCP Python SDK, as an agent's client would.

    python client.py URL PLAN.json

The plan is `{"sessions": [{"token": null or "catp_...", "calls": [{"name", "arguments"}]}]}`.
Each session is one client connection: the bearer token (if any) goes in `Authorization` on
every request, then `initialize`, `tools/list`, and each call in order. Printed on stdout, as
JSON: for each session the initialize result, the tools listed, and each call's result (its
`isError`, its text content, its structured content).

Written for the SDK's version 2, whose streamable HTTP client is `streamable_http_client` (1.x
called it `streamablehttp_client`) and takes an `httpx2.AsyncClient` for headers.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def run_session(url, token, calls):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx2.Timeout(60.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                listed = await session.list_tools()
                results = []
                for call in calls:
                    result = await session.call_tool(call["name"], call.get("arguments") or {})
                    texts = [block.text for block in result.content if block.type == "text"]
                    results.append(
                        {
                            "isError": bool(result.is_error),
                            "texts": texts,
                            "structured": result.structured_content,
                        }
                    )
                return {
                    "init": dump(init),
                    "tools": [dump(tool) for tool in listed.tools],
                    "results": results,
                }


async def main():
    url = sys.argv[1]
    with open(sys.argv[2], encoding="utf-8") as f:
        plan = json.load(f)
    out = []
    for s in plan["sessions"]:
        out.append(await run_session(url, s.get("token"), s["calls"]))
    print(json.dumps({"sessions": out}, ensure_ascii=False))


asyncio.run(main())
