"""X's web login as twikit 2.3.3 runs it: the home page, ondemand JS, guest token, onboarding tasks."""

from __future__ import annotations

import secrets
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

from gwanjong_sandbox.twikit.core import TwikitCore
from gwanjong_sandbox.twikit.model import (
    HOME_HTML,
    ONDEMAND,
    ONDEMAND_JS,
    PASSWORD,
    READER_EMAIL,
    UI_METRICS_JS,
    WEB_BEARER,
    web_error,
)
from gwanjong_sandbox.twitter.model import READER


class TwikitLogin(TwikitCore):
    """Bootstrap and login routes."""

    async def home(self, _request: Request) -> Response:
        return HTMLResponse(HOME_HTML)

    async def ondemand(self, request: Request) -> Response:
        if request.path_params["name"] != f"ondemand.s.{ONDEMAND}a.js":
            return PlainTextResponse("Not Found", status_code=404)
        return Response(ONDEMAND_JS, media_type="application/javascript")

    async def js_inst(self, _request: Request) -> Response:
        return Response(UI_METRICS_JS, media_type="application/javascript")

    async def user_state(self, request: Request) -> Response:
        return JSONResponse({"userState": "normal"})

    # -- login ----------------------------------------------------------------------------

    async def guest_activate(self, request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {WEB_BEARER}":
            return web_error(401, 32, "Could not authenticate you.")
        token = str(1880000000000000000 + len(self.guests))
        self.guests.add(token)
        return JSONResponse({"guest_token": token})

    async def sso_init(self, request: Request) -> Response:
        if request.headers.get("x-guest-token") not in self.guests:
            return web_error(400, 239, "Bad guest token.")
        return JSONResponse({})

    def _subtask(self, flow_token: str, subtask: dict[str, Any]) -> JSONResponse:
        return JSONResponse({"flow_token": flow_token, "status": "success", "subtasks": [subtask]})

    async def task(self, request: Request) -> Response:
        if request.headers.get("x-guest-token") not in self.guests:
            return web_error(400, 239, "Bad guest token.")
        try:
            body = await request.json()
        except ValueError:
            return web_error(400, 214, "Bad request.")
        if request.query_params.get("flow_name") == "login" and "flow_token" not in body:
            token = f"g;{int(time.time() * 1000)}:-{secrets.token_hex(6)}:{secrets.token_hex(8)}:0"
            self.flows[token] = {"user": None}
            return self._subtask(
                token,
                {
                    "subtask_id": "LoginJsInstrumentationSubtask",
                    "js_instrumentation": {
                        "url": "https://twitter.com/i/js_inst?c_name=ui_metrics",
                        "timeout_ms": 2000,
                        "next_link": {"link_type": "task", "link_id": "next_link"},
                    },
                },
            )
        token = str(body.get("flow_token") or "")
        flow = self.flows.get(token)
        inputs = body.get("subtask_inputs") or [{}]
        step = inputs[0].get("subtask_id")
        if flow is None:
            return web_error(400, 399, "Incorrect. Please try again.")
        if step == "LoginJsInstrumentationSubtask":
            return self._subtask(
                token,
                {
                    "subtask_id": "LoginEnterUserIdentifierSSO",
                    "settings_list": {"settings": [{"value_identifier": "user_identifier"}]},
                },
            )
        if step == "LoginEnterUserIdentifierSSO":
            responses = inputs[0].get("settings_list", {}).get("setting_responses", [{}])
            ident = str(
                responses[0].get("response_data", {}).get("text_data", {}).get("result", "")
            )
            if ident.lower() not in (READER, READER_EMAIL):
                return self._subtask(
                    token,
                    {
                        "subtask_id": "DenyLoginSubtask",
                        "cta": {
                            "secondary_text": {
                                "text": "Sorry, we could not find your account.",
                                "entities": [],
                            }
                        },
                    },
                )
            flow["user"] = READER
            return self._subtask(
                token, {"subtask_id": "LoginEnterPassword", "enter_password": {"hint": ident}}
            )
        if step == "LoginEnterAlternateIdentifierSubtask":
            return self._subtask(token, {"subtask_id": "LoginEnterPassword", "enter_password": {}})
        if step == "LoginEnterPassword":
            if (
                inputs[0].get("enter_password", {}).get("password") != PASSWORD
                or flow["user"] is None
            ):
                return web_error(400, 399, "Wrong password!")
            return self._subtask(
                token,
                {
                    "subtask_id": "AccountDuplicationCheck",
                    "check_logged_in_account": {
                        "true_link": {"link_id": "AccountDuplicationCheck_true"},
                        "false_link": {"link_id": "AccountDuplicationCheck_false"},
                    },
                },
            )
        if step == "AccountDuplicationCheck" and flow["user"]:
            reader = self.world.by_username(READER)
            assert reader is not None
            auth_token = secrets.token_hex(20)
            self.world.sessions[auth_token] = reader.id
            del self.flows[token]
            response = JSONResponse(
                {
                    "flow_token": token,
                    "status": "success",
                    "subtasks": [
                        {
                            "subtask_id": "LoginSuccessSubtask",
                            "open_account": {
                                "user": {
                                    "id": int(reader.id),
                                    "id_str": reader.id,
                                    "name": reader.name,
                                    "screen_name": reader.username,
                                },
                                "next_link": {"link_type": "subtask", "link_id": "next_link"},
                            },
                        }
                    ],
                }
            )
            response.set_cookie(
                "auth_token", auth_token, domain=".x.com", secure=True, httponly=True, path="/"
            )
            response.set_cookie(
                "ct0", secrets.token_hex(16), domain=".x.com", secure=True, path="/"
            )
            return response
        return web_error(400, 399, "Incorrect. Please try again.")
