"""The console's routes: sign-in and the pages (`web.app` adds the static files and `Guard`)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gwanjong_gateway import web
from gwanjong_gateway.console import health_pages, pages
from gwanjong_gateway.console.app import Console, redirect


def build_app(console: Console) -> Starlette:
    async def home(_request: Request) -> Response:
        return redirect("/approvals")

    s = console.signed_in
    routes = [
        Route("/", home),
        Route("/signin/{token}", console.link_signin),
        Route("/signin", console.token_form, methods=["GET", "POST"]),
        Route("/signout", s(Console.signout), methods=["POST"]),
        Route("/signed-out", console.signed_out),
        Route("/approvals", s(pages.approvals)),
        # approvals are a7, hand-offs h12 (rules/refs.py); /approvals/7 stays an approval's
        Route("/approvals/a{id:int}", s(pages.approval), methods=["GET"]),
        Route("/approvals/a{id:int}", s(pages.decide), methods=["POST"]),
        Route("/approvals/{id:int}", s(pages.approval), methods=["GET"]),
        Route("/approvals/{id:int}", s(pages.decide), methods=["POST"]),
        Route("/handoffs", s(pages.handoffs), methods=["GET"]),
        Route("/handoffs/h{id:int}", s(pages.handoff), methods=["POST"]),
        Route("/handoffs/h{id:int}/dismiss", s(pages.handoff), methods=["POST"]),
        Route("/history", s(pages.history)),
        Route("/history/{id:int}", s(pages.record)),
        Route("/inbox", s(health_pages.inbox_page)),
        Route("/counts.json", s(pages.counts)),
        Route("/usage", s(health_pages.usage_page)),
        Route("/usage/resume", s(health_pages.resume), methods=["POST"]),
    ]
    return web.app(routes, console.allowed)
