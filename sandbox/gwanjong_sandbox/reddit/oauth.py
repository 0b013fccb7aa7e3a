"""Reddit's token endpoint (www.reddit.com/api/v1/access_token) and /api/v1/me."""

from __future__ import annotations

import base64
import secrets
import zlib

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.corpus import BASE_TIME
from gwanjong_sandbox.reddit.http import RedditHttp
from gwanjong_sandbox.reddit.model import (
    CLIENT_ID,
    CLIENT_SECRET,
    ME,
    PASSWORD,
    b36,
    user_fullname,
)


class RedditOAuth(RedditHttp):
    """Script-app and application-only OAuth."""

    async def token(self, request: Request) -> Response:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            client, _, secret = base64.b64decode(encoded).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            client, secret = "", ""
        if scheme.lower() != "basic" or (client, secret) != (CLIENT_ID, CLIENT_SECRET):
            return JSONResponse({"message": "Unauthorized", "error": 401}, status_code=401)
        form = await self._form(request)
        grant = form.get("grant_type")
        user: str | None = None
        if grant == "password":
            if (form.get("username"), form.get("password")) != (ME, PASSWORD):
                return JSONResponse({"error": "invalid_grant"})  # HTTP 200, as Reddit does
            user = ME
        elif grant != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        token = f"{len(self.tokens) + 1}-{secrets.token_urlsafe(20)}"
        self.tokens[token] = (client, user)
        return JSONResponse(
            {"access_token": token, "token_type": "bearer", "expires_in": 86400, "scope": "*"}
        )

    async def route_me(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:  # application-only token: there is no "me"
            return self._forbidden(client)
        created = BASE_TIME.timestamp() - 86400 * 400
        return self._json(
            {
                "is_employee": False,
                "seen_layout_switch": True,
                "has_visited_new_profile": False,
                "pref_no_profanity": True,
                "has_external_account": False,
                "pref_geopopular": "",
                "pref_show_trending": True,
                "subreddit": {
                    "default_set": True,
                    "user_is_contributor": False,
                    "banner_img": "",
                    "restrict_posting": True,
                    "user_is_banned": False,
                    "free_form_reports": True,
                    "community_icon": None,
                    "show_media": True,
                    "icon_color": "#A5A4A4",
                    "user_is_muted": None,
                    "display_name": f"u_{user}",
                    "header_img": None,
                    "title": "",
                    "coins": 0,
                    "previous_names": [],
                    "over_18": False,
                    "icon_size": [256, 256],
                    "primary_color": "",
                    "icon_img": "",
                    "description": "",
                    "submit_link_label": "",
                    "header_size": None,
                    "restrict_commenting": False,
                    "subscribers": 0,
                    "submit_text_label": "",
                    "is_default_icon": True,
                    "link_flair_position": "",
                    "display_name_prefixed": f"u/{user}",
                    "key_color": "",
                    "name": "t5_" + b36(zlib.crc32(user.encode()) % 36**6),
                    "is_default_banner": True,
                    "url": f"/user/{user}/",
                    "quarantine": False,
                    "banner_size": None,
                    "user_is_moderator": True,
                    "accept_followers": True,
                    "public_description": "A bot account. Posts are drafted with an AI assistant.",
                    "link_flair_enabled": False,
                    "disable_contributor_requests": False,
                    "subreddit_type": "user",
                    "user_is_subscriber": False,
                },
                "pref_show_presence": False,
                "snoovatar_img": "",
                "snoovatar_size": None,
                "gold_expiration": None,
                "has_gold_subscription": False,
                "is_sponsor": False,
                "num_friends": 0,
                "can_edit_name": False,
                "verified": True,
                "new_modmail_exists": None,
                "pref_autoplay": True,
                "coins": 0,
                "has_paypal_subscription": False,
                "has_subscribed_to_premium": False,
                "id": user_fullname(user)[3:],
                "can_create_subreddit": True,
                "over_18": False,
                "is_gold": False,
                "is_mod": False,
                "awarder_karma": 0,
                "suspension_expiration_utc": None,
                "has_stripe_subscription": False,
                "is_suspended": False,
                "pref_video_autoplay": True,
                "in_chat": True,
                "has_android_subscription": False,
                "in_redesign_beta": True,
                "icon_img": "",
                "has_mod_mail": False,
                "pref_nightmode": False,
                "awardee_karma": 0,
                "hide_from_robots": False,
                "password_set": True,
                "link_karma": 1,
                "force_password_reset": False,
                "total_karma": 2,
                "inbox_count": 0,
                "pref_top_karma_subreddits": True,
                "has_mail": False,
                "pref_show_snoovatar": False,
                "name": user,
                "pref_clickgadget": 5,
                "created": created,
                "has_verified_email": True,
                "gold_creddits": 0,
                "created_utc": created,
                "has_ios_subscription": False,
                "pref_show_twitter": False,
                "in_beta": False,
                "comment_karma": 1,
                "accept_followers": True,
                "has_subscribed": True,
            },
            headers,
        )
