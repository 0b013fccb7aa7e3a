"""RFC 9728 protected-resource metadata for `[auth] mode = "jwt"`, so an OAuth-capable client
signs in with no manual step. The resource is `[auth] audience` (the MCP endpoint's public
URL, RFC 8707), the authorization server `[auth] issuer`; served at the well-known path
plus the resource's path (RFC 9728 §3.1) and at the bare one. Tokens mode serves none.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from fastmcp.server.auth import AccessToken, TokenVerifier
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gwanjong_gateway.config import AuthSection

WELL_KNOWN = "/.well-known/oauth-protected-resource"
log = logging.getLogger(__name__)


def resource_of(audience: str | None) -> str | None:
    """The audience as a resource URL (http or https, a host, no fragment), or None."""
    if not audience:
        return None
    parts = urlsplit(audience)
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.fragment:
        return None
    return audience


def metadata_path(resource: str) -> str:
    """Where RFC 9728 §3.1 puts the document for ``resource``: the well-known string
    between the host and the resource's path."""
    path = urlsplit(resource).path
    return WELL_KNOWN + (path if path != "/" else "")  # as the MCP SDK builds it


class ProtectedResource(TokenVerifier):
    """The jwt verifier plus its metadata: FastMCP puts `resource_metadata="<URL>"` in every
    401's `WWW-Authenticate` once the provider serves a route at that URL's path."""

    def __init__(self, verifier: TokenVerifier, auth: AuthSection, resource: str) -> None:
        super().__init__(required_scopes=auth.required_scopes or None)
        self.verifier = verifier
        self.resource = resource
        # the issuer and resource exactly as configured (a client compares them as strings;
        # a URL type would add a trailing slash to a bare host)
        assert auth.issuer is not None
        self.document: dict[str, Any] = {
            "resource": resource,
            "authorization_servers": [auth.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "gwanjong",
        }
        if auth.required_scopes:
            self.document["scopes_supported"] = list(auth.required_scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        return await self.verifier.verify_token(token)

    def _get_resource_url(self, path: str | None = None) -> AnyHttpUrl | None:
        return AnyHttpUrl(self.resource)  # the public URL, whatever path serves it here

    def get_routes(self, mcp_path: str | None = None) -> list[Any]:
        from mcp.server.auth.routes import cors_middleware

        async def serve(_request: Request) -> Response:
            return JSONResponse(self.document, headers={"Cache-Control": "public, max-age=3600"})

        paths = dict.fromkeys((metadata_path(self.resource), WELL_KNOWN))
        return [
            Route(
                p, endpoint=cors_middleware(serve, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"]
            )
            for p in paths
        ]


def with_metadata(verifier: TokenVerifier, auth: AuthSection) -> TokenVerifier:
    """``verifier`` serving its metadata, when the audience is a URL to describe."""
    resource = resource_of(auth.audience)
    if resource is None:
        log.warning(
            "[auth] audience %r is not the gateway's https URL, so no protected-resource "
            "metadata is served: OAuth clients must be given the issuer by hand. Set audience "
            "to the MCP endpoint's public URL (e.g. https://gwanjong.example.com/mcp).",
            auth.audience,
        )
        return verifier
    return ProtectedResource(verifier, auth, resource)
