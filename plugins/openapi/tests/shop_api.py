"""A FastAPI application as teams write them, for the plugin's tests: path, query and body
parameters, nested models, enums, a file answer and error answers (one an RFC 9457 problem)."""

from __future__ import annotations

import enum

import anyio
from fastapi import Cookie, FastAPI, Header, HTTPException, Query, Request, Security
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.security import APIKeyQuery, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
EXPORT = bytes(range(256)) * 8192  # 2 MiB


class Color(enum.StrEnum):
    red = "red"
    green = "green"
    blue = "blue"


class Dimensions(BaseModel):
    width: float = Field(gt=0)
    height: float = Field(gt=0)


class ItemIn(BaseModel):
    name: str = Field(min_length=1)
    color: Color
    dimensions: Dimensions
    tags: list[str] = []
    secret_note: str | None = Field(default=None, json_schema_extra={"writeOnly": True})


class Item(BaseModel):
    id: int = Field(json_schema_extra={"readOnly": True})
    name: str
    color: Color
    dimensions: Dimensions
    tags: list[str] = []


class Page(BaseModel):
    items: list[Item]
    total: int


class Seen(BaseModel):
    key: str
    bearer: str
    trace: str | None
    session: str | None


def make_app(calls: dict[str, object] | None = None) -> FastAPI:
    """The shop; ``calls`` records what the slow operation saw (whether its caller went away)."""
    calls = calls if calls is not None else {}
    app = FastAPI(title="Shop", version="1.0.0")
    key_in_query = APIKeyQuery(name="api_key")
    bearer = HTTPBearer()

    @app.get("/secure/echo", operation_id="secure_echo")
    def secure_echo(
        key: str = Security(key_in_query),
        token: HTTPAuthorizationCredentials = Security(bearer),
        x_trace: str | None = Header(default=None),
        session: str | None = Cookie(default=None),
    ) -> Seen:
        return Seen(key=key, bearer=token.credentials, trace=x_trace, session=session)

    @app.get("/export", operation_id="export", response_class=Response,
             responses={200: {"content": {"application/octet-stream": {}}}})  # fmt: skip
    def export() -> Response:
        return Response(EXPORT, media_type="application/octet-stream")

    @app.get("/slow", operation_id="slow")
    async def slow(request: Request) -> dict[str, str]:
        calls["slow"] = "started"
        with anyio.move_on_after(10):
            while (await request.receive())["type"] != "http.disconnect":  # (the request's empty body first)
                pass
            calls["slow"] = "abandoned"  # the client went away
            return {"state": "abandoned"}
        calls["slow"] = "finished"
        return {"state": "finished"}

    items: dict[int, Item] = {
        1: Item(id=1, name="kite", color=Color.red, dimensions=Dimensions(width=1.5, height=2), tags=["toy"]),
        2: Item(id=2, name="lamp", color=Color.green, dimensions=Dimensions(width=0.3, height=0.5)),
    }

    @app.get("/items", operation_id="list_items", summary="List the items", tags=["items"])
    def list_items(color: Color | None = None, limit: int = Query(10, ge=1, le=100)) -> Page:
        found = [item for item in items.values() if color is None or item.color == color]
        return Page(items=found[:limit], total=len(found))

    @app.get("/items/{item_id}", operation_id="get_item", summary="One item", tags=["items"])
    def get_item(item_id: int) -> Item:
        if item_id not in items:
            raise HTTPException(status_code=404, detail=f"no item {item_id}")
        return items[item_id]

    @app.post("/items", operation_id="create_item", status_code=201, tags=["items"])
    def create_item(item: ItemIn) -> Item:
        new = Item(id=max(items) + 1, **item.model_dump(exclude={"secret_note"}))
        items[new.id] = new
        return new

    @app.put("/items/{item_id}/tags", operation_id="set_tags", tags=["items"])
    def set_tags(item_id: int, tags: list[str]) -> list[str]:
        if item_id not in items:
            raise HTTPException(status_code=404, detail=f"no item {item_id}")
        items[item_id].tags = tags
        return tags

    @app.delete("/items/{item_id}", operation_id="delete_item", status_code=204, tags=["admin"])
    def delete_item(item_id: int) -> Response:
        items.pop(item_id, None)
        return Response(status_code=204)

    @app.get("/items/{item_id}/photo", operation_id="item_photo", response_class=Response, tags=["items"],
             responses={200: {"content": {"image/png": {}}}})  # fmt: skip
    def item_photo(item_id: int) -> Response:
        return Response(PNG, media_type="image/png")

    @app.get("/items/{item_id}/label", operation_id="item_label", response_class=PlainTextResponse)
    def item_label(item_id: int) -> str:
        return f"item {item_id}"

    @app.get("/stats", operation_id="stats")
    def stats() -> dict[str, int]:
        return {"items": len(items)}

    @app.post("/orders", operation_id="order")
    def order(item_id: int, quantity: int = Query(gt=0)) -> JSONResponse:
        return JSONResponse(
            {"type": "https://shop.example/out-of-stock", "title": "Out of stock", "status": 409,
             "detail": f"item {item_id} has none left"},
            status_code=409,
            media_type="application/problem+json",
        )  # fmt: skip

    return app
