"""The official MCP Python SDK client (``mcp`` 2.3.0) calls a plain ``def`` tool that takes a
``datetime`` and a Pydantic model, served by ``mcptrio serve --transport http`` from an installed
plugin, in both eras: the SDK sees the tool's schemas (formats, Pydantic's constraints and
descriptions, no ``$ref``), the handler runs in a worker thread, and the structured result (a
Pydantic model with datetimes) comes back valid against the tool's output schema."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest
import trio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.cli.test_cli import fake_distribution

from ._support import LEGACY, MODERN, serve_http, text_of

PLUGIN = """
import datetime
import threading

import pydantic

import mcptrio

plugin = mcptrio.Registry("typesprobe")


class Meeting(pydantic.BaseModel):
    title: str = pydantic.Field(min_length=1, description="what it is about")
    minutes: int = pydantic.Field(gt=0, le=480, description="how long")
    attendees: list[str] = []


class Booked(pydantic.BaseModel):
    title: str
    starts: datetime.datetime
    ends: datetime.datetime
    thread: str


@plugin.tool
def book(when: datetime.datetime, meeting: Meeting) -> Booked:
    \"\"\"Book a meeting (a plain function: it runs in a worker thread).\"\"\"
    assert threading.current_thread() is not threading.main_thread()
    return Booked(title=meeting.title, starts=when, ends=when + datetime.timedelta(minutes=meeting.minutes),
                  thread="worker")
"""


@pytest.mark.parametrize("mode, version", [("legacy", LEGACY), ("auto", MODERN)])
async def test_the_sdk_client_calls_a_plain_tool_with_a_datetime_and_a_pydantic_model(
    tmp_path: Path, mode: str, version: str
) -> None:
    fake_distribution(tmp_path, "typesprobe_plugin", {"typesprobe": "typesprobe:plugin"}, {"typesprobe": PLUGIN})
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    async with serve_http(plugins="typesprobe", env=env) as server:
        with trio.fail_after(30):
            async with Client(streamable_http_client(server.url), mode=mode, read_timeout_seconds=20) as client:
                assert client.protocol_version == version
                [tool] = (await client.list_tools()).tools
                schema = tool.input_schema
                assert schema["properties"]["when"] == {"type": "string", "format": "date-time"}
                minutes = schema["properties"]["meeting"]["properties"]["minutes"]
                assert (minutes["exclusiveMinimum"], minutes["maximum"], minutes["description"]) == (0, 480, "how long")
                assert "$ref" not in json.dumps(schema) and "$ref" not in json.dumps(tool.output_schema)

                result = await client.call_tool(
                    "book", {"when": "2026-07-28T09:30:00+02:00", "meeting": {"title": "Plan", "minutes": 90}}
                )
                assert not result.is_error, result
                assert result.structured_content == {
                    "title": "Plan",
                    "starts": "2026-07-28T09:30:00+02:00",
                    "ends": "2026-07-28T11:00:00+02:00",
                    "thread": "worker",
                }
                ends = datetime.datetime.fromisoformat(result.structured_content["ends"])
                assert ends == datetime.datetime(2026, 7, 28, 9, 0, tzinfo=datetime.UTC)

                late = await client.call_tool("book", {"when": "tomorrow", "meeting": {"title": "Plan", "minutes": 5}})
                assert late.is_error
                assert text_of(late) == "invalid arguments: 'when': 'tomorrow' is not an ISO 8601 date-time"
                empty = await client.call_tool(
                    "book", {"when": "2026-07-28T09:30:00Z", "meeting": {"title": "Plan", "minutes": 0}}
                )
                assert empty.is_error
                assert text_of(empty) == (
                    "invalid arguments: 'meeting.minutes': 0 is less than or equal to the minimum of 0"
                )
