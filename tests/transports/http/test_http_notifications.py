"""Change notifications on long-lived streams (the legacy GET stream, the 2026-07-28 listen stream):
``app.notify_*`` never waits on a client and never fails because of one, and a connected client
receives every notification — including one sent the instant its stream opened, and on a stream
reopened after an earlier one closed."""

import trio

from mcptrio.transports.http import HttpConfig

from .client import LEGACY, SseReader, http_server, initialize, modern, new_client

ROUNDS = 20


def get_headers(session_id, **extra):
    headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
    headers.update(extra)
    return headers


async def _expect_list_changed(reader, what, timeout=2.0):
    with trio.move_on_after(timeout):
        message = await reader.next_message()
        assert message is not None, f"{what}: the stream ended instead"
        assert message["method"] == "notifications/tools/list_changed", message
        return
    raise AssertionError(f"{what}: notifications/tools/list_changed never arrived within {timeout} s")


async def test_get_stream_reopened_after_close_still_receives_notifications(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, url)
            for round_ in range(3):
                async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                    assert response.status_code == 200
                    reader = SseReader(response)
                    await reader.next()  # priming
                    await trio.sleep(0.2)  # well settled on the open stream
                    await app.notify_tools_changed()
                    await _expect_list_changed(reader, f"GET stream #{round_ + 1} of the session")
                await trio.sleep(0.3)  # the server has seen this GET go away


async def test_notification_right_after_the_get_stream_opened_is_delivered(app):
    """The client has the stream (headers and priming event read) and a notification follows at once."""
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(60):
            for round_ in range(ROUNDS):
                session_id = await initialize(client, url)  # a fresh session each round
                async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                    reader = SseReader(response)
                    priming = await reader.next()
                    assert priming is not None and priming.data == ""
                    await app.notify_tools_changed()
                    await _expect_list_changed(reader, f"round {round_}: notification right after the GET opened")


async def test_notification_right_after_the_listen_ack_is_delivered(app):
    """Once the client holds the acknowledgment, the subscription is live: nothing after it is lost."""
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(60):
            for round_ in range(ROUNDS):
                body, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, round_)
                async with client.stream("POST", url, json=body, headers=headers) as response:
                    reader = SseReader(response)
                    ack = await reader.next_message()
                    assert ack["method"] == "notifications/subscriptions/acknowledged"
                    await app.notify_tools_changed()
                    await _expect_list_changed(reader, f"round {round_}: notification right after the ack")


async def test_notify_never_raises_after_a_stream_was_cut_off(app):
    """A burst overflows the session's stream buffer (the stream is ended, by design); neither that
    burst nor any later notification may raise in the caller of ``app.notify_*`` (an exception
    there also skips every session and listener after this one), and after the client reconnects
    it receives notifications again."""
    config = HttpConfig(stream_buffer=4)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, url)
            async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                reader = SseReader(response)
                await reader.next()
                await trio.sleep(0.2)
                raised = []
                for n in range(10):  # no checkpoint between them: the buffer overflows
                    try:
                        await app.notify_tools_changed()
                    except Exception as exc:
                        raised.append((n, repr(exc)))
                with trio.move_on_after(2):
                    await reader.rest()
            await trio.sleep(0.3)
            later = []
            async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                reader = SseReader(response)
                await reader.next()
                await trio.sleep(0.2)
                try:
                    await app.notify_tools_changed()
                except Exception as exc:
                    later.append(repr(exc))
                else:
                    await _expect_list_changed(reader, "the session's new GET stream after the cut-off")
    assert not raised, f"app.notify_tools_changed() raised during the burst: {raised}"
    assert not later, f"app.notify_tools_changed() raised after the client reconnected: {later}"


async def test_notifications_dropped_by_a_cut_off_stream_can_be_resumed(app):
    """Every event of a legacy stream gets an id; a client cut off by the buffer limit resumes with
    Last-Event-ID and receives what it did not get — nothing is silently lost."""
    config = HttpConfig(stream_buffer=4)
    sent = 10
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, url)
            async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                reader = SseReader(response)
                await reader.next()
                await trio.sleep(0.2)
                for _ in range(sent):
                    try:
                        await app.notify_tools_changed()
                    except Exception:
                        pass  # reported by test_notify_never_raises_after_a_stream_was_cut_off
                with trio.move_on_after(2):
                    await reader.rest()
            first = [e for e in reader.events if e.data]
            last_id = [e.id for e in reader.events if e.id][-1]
            await trio.sleep(0.3)
            async with client.stream(
                "GET", url, headers=get_headers(session_id, **{"last-event-id": last_id})
            ) as response:
                resumed_reader = SseReader(response)
                with trio.move_on_after(1):
                    while await resumed_reader.next() is not None:
                        pass
            resumed = [e for e in resumed_reader.events if e.data]
    got = len(first) + len(resumed)
    assert got == sent, f"{sent} notifications sent, {len(first)} on the stream + {len(resumed)} resumed"
